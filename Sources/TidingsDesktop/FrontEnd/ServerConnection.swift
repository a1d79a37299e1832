import Glibc
import TidingsBase

/// An error object the server answered a call with.
package struct ServerError: Error, Hashable, Sendable {
    /// The JSON-RPC error code (-32001: no such notification, …).
    package var code: Int64
    /// The server's sentence.
    package var message: String
}

/// A JSON-RPC 2.0 connection to `tidings serve` that never blocks: one JSON
/// message per line each way, requests sent under ids of its own and their
/// answers handed to the callback given with each call; events and the
/// server's own requests handed to the owner. Its socket does not block: the
/// owner polls `descriptor` for `wantsToWrite ? POLLIN|POLLOUT : POLLIN` and
/// calls `receive()` and `flush()` when it is ready. One thread; it owns its socket.
package final class ServerConnection {
    /// What arrived that is not an answer.
    package enum Message {
        /// An event: its method and params.
        case event(String, JSON)
        /// A request of the server's own: its id and method.
        case request(JSON, String)
    }

    private let socket: FileDescriptor
    private var input: [UInt8] = []
    private var output: [UInt8] = []
    private var nextID: Int64 = 0
    private var waiting: [Int64: (Result<JSON, ServerError>) -> Void] = [:]
    /// The longest line accepted from the server (its own limit is 1 MiB by default, events included).
    private static let lineLimit = 64 << 20

    /// Connects to the server at `path` (the socket must be the user's own, and so must the server).
    /// - Throws: the diagnostic of `UnixSocket.connect(to:)`.
    package init(path: String) throws(Diagnostic) {
        let connected = try UnixSocket.connect(to: path)
        let flags = fcntl(connected.rawValue, F_GETFL)
        guard flags >= 0, fcntl(connected.rawValue, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .error(.socketUnavailable, "Cannot make the connection to \(path) non-blocking: \(SystemError.current()).")
        }
        socket = connected
    }

    /// The socket, to poll.
    package var descriptor: Int32 { socket.rawValue }

    /// True while requests wait to be written.
    package var wantsToWrite: Bool { !output.isEmpty }

    /// How many calls wait for their answer.
    package var callsWaiting: Int { waiting.count }

    /// Sends a request for `method` with `params`; `then` is called with its
    /// result or error when the answer comes (from `receive()`), and never
    /// if the connection ends first.
    package func call(_ method: String, _ params: JSON = .object([]),
                      then: @escaping (Result<JSON, ServerError>) -> Void) {
        nextID += 1
        waiting[nextID] = then
        send(.object([("jsonrpc", .string("2.0")), ("id", .integer(nextID)), ("method", .string(method)),
                      ("params", params)]))
    }

    /// Answers the server's request `id` with an error.
    package func refuse(_ id: JSON, code: Int64, message: String) {
        send(.object([("jsonrpc", .string("2.0")), ("id", id),
                      ("error", .object([("code", .integer(code)), ("message", .string(message))]))]))
    }

    private func send(_ message: JSON) {
        message.serialize(into: &output)
        output.append(UInt8(ascii: "\n"))
    }

    /// Writes what it can of the requests waiting, without blocking.
    /// - Throws: why the connection broke.
    package func flush() throws(SystemError) {
        while !output.isEmpty {
            let count = output.withUnsafeBytes { buffer in
                SystemCall.retrying { Glibc.send(socket.rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
            }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                throw SystemError.current()
            }
            output.removeFirst(count)
        }
    }

    /// Reads what has arrived and handles each message in the order it came:
    /// an answer by its call's callback, the others by `handle`.
    /// - Returns: whether the server closed the connection.
    /// - Throws: why the connection broke, or a line that is not JSON.
    package func receive(_ handle: (Message) -> Void) throws(Diagnostic) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                SystemCall.retrying { recv(socket.rawValue, buffer.baseAddress, buffer.count, 0) }
            }
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
            input += chunk[..<count]
            // Each chunk's whole lines are handled as they come: a line too long is refused before more is read.
            var start = input.startIndex
            while let newline = input[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(input[start..<newline])
                start = newline + 1
                if let message = try dispatch(try JSON.parse(line, file: "the server's message")) { handle(message) }
            }
            input.removeSubrange(..<start)
            if input.count > Self.lineLimit {
                throw .error(.socketUnavailable, "The server sent a line longer than \(Self.lineLimit) bytes.")
            }
        }
    }

    /// Calls the callback of an answer; returns an event or a request of the server's.
    private func dispatch(_ message: JSON) throws(Diagnostic) -> Message? {
        if let method = message["method"]?.stringValue {
            if let id = message["id"] { return .request(id, method) }
            return .event(method, message["params"] ?? .object([]))
        }
        guard let id = message["id"]?.integerValue, let callback = waiting.removeValue(forKey: id) else {
            if let error = message["error"] {
                throw .error(.socketUnavailable, "The server refused the connection: \(error["message"]?.stringValue ?? "").")
            }
            return nil
        }
        if let error = message["error"] {
            callback(.failure(ServerError(code: error["code"]?.integerValue ?? 0,
                                          message: error["message"]?.stringValue ?? "")))
        } else {
            callback(.success(message["result"] ?? .null))
        }
        return nil
    }
}
