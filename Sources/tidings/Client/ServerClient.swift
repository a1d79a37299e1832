import Glibc
import TidingsBase
import TidingsServer

/// A JSON-RPC 2.0 client of a running `tidings serve`, over its Unix
/// socket: one JSON message per line each way. A call sends one request
/// and waits for its answer, skipping the events a subscribed connection
/// is pushed meanwhile. Used by one thread; it owns its socket.
final class ServerClient {
    /// Why a call got no result.
    enum Failure: Error {
        /// No server answers at the socket: none listens, or the socket or its directory is missing.
        case noServer(path: String)
        /// The socket or its directory is not the user's own, or another user's server listens there.
        case unsafe(Diagnostic)
        /// The server answered with an error object.
        case answered(RPCError)
        /// The connection broke, or the answer was not JSON-RPC.
        case broken(String)
    }

    /// The socket's path, for messages.
    let path: String
    /// The connection, closed with the client.
    private let connection: FileDescriptor
    private var socket: Int32 { connection.rawValue }
    private var received: [UInt8] = []
    private var nextID: Int64 = 0

    /// The longest a call waits for its answer, in seconds.
    static let answerTimeout = 30.0

    /// Connects to the server listening at `path` (see `UnixSocket.connect(to:)`:
    /// the socket must be the user's own, and so must the server).
    init(path: String) throws(Failure) {
        self.path = path
        do throws(Diagnostic) {
            connection = try UnixSocket.connect(to: path)
        } catch {
            if error.code.refusesPath { throw .unsafe(error) }
            throw .noServer(path: path)
        }
    }

    /// Calls `method` with `params` and returns its result; thrown: the
    /// server's error, or why no answer came.
    func call(_ method: String, _ params: JSON = .object([])) throws(Failure) -> JSON {
        nextID += 1
        let id = JSON.integer(nextID)
        let request = JSON.object([("jsonrpc", .string("2.0")), ("id", id), ("method", .string(method)), ("params", params)])
        try send(Array((request.serialized() + "\n").utf8))
        let deadline = MonotonicClock.deadline(after: Self.answerTimeout)
        while true {
            let message = try nextMessage(until: deadline)
            // An event has no id; an error with a null id refuses the connection or the line itself.
            guard let answered = message["id"], answered == id || (answered == .null && message["error"] != nil) else { continue }
            if let error = message["error"] {
                throw .answered(RPCError(Int(error["code"]?.integerValue ?? 0), error["message"]?.stringValue ?? "", data: error["data"]))
            }
            return message["result"] ?? .null
        }
    }

    /// Sends `bytes` whole. The corresponding C function is `send`.
    private func send(_ bytes: [UInt8]) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { buffer in
                SystemCall.retrying { Glibc.send(socket, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
            }
            guard count > 0 else { throw .broken("The server at \(path) closed the connection: \(SystemError.current()).") }
            sent += count
        }
    }

    /// The next whole message, read before `deadline` (monotonic nanoseconds).
    /// The corresponding C functions are `poll` and `recv`.
    private func nextMessage(until deadline: UInt64) throws(Failure) -> JSON {
        while true {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(received[..<newline])
                received.removeSubrange(...newline)
                do throws(Diagnostic) {
                    return try JSON.parse(line)
                } catch {
                    throw .broken("The server at \(path) answered something that is not JSON: \(error.message)")
                }
            }
            let now = MonotonicClock.now()
            guard now < deadline else {
                throw .broken("The server at \(path) did not answer within \(NumberText.short(Self.answerTimeout)) s.")
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(UInt64(Int32.max), max(1, (deadline - now) / 1_000_000)))
            guard SystemCall.retrying({ poll(&descriptor, 1, milliseconds) }) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { buffer in
                SystemCall.retrying { recv(socket, buffer.baseAddress, buffer.count, 0) }
            }
            guard count > 0 else { throw .broken("The server at \(path) closed the connection before answering.") }
            received += chunk[..<count]
        }
    }
}

extension RPCError {
    /// The most precise name of what went wrong, for a client's message:
    /// the code of the first error among `data.diagnostics`, else
    /// `data.cause`, else `rpc.CODE`.
    var cause: Diagnostic.Code {
        let diagnostics = data?["diagnostics"]?.arrayValue ?? []
        let first = diagnostics.first { $0["severity"]?.stringValue == "error" } ?? diagnostics.first
        if let code = first?["code"]?.stringValue ?? data?["cause"]?.stringValue { return Diagnostic.Code(code) }
        return Diagnostic.Code("rpc.\(code)")
    }
}
