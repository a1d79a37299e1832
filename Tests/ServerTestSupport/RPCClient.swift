import Glibc
import TidingsBase
import TidingsServer
import TestSupport

/// An error the server answered with.
package struct RPCErrorReply: Error, CustomStringConvertible {
    package let code: Int64
    package let message: String
    package let data: JSON?
    package var description: String { "\(code): \(message)" }

    package init(code: Int64, message: String, data: JSON?) {
        self.code = code
        self.message = message
        self.data = data
    }
}

/// A JSON-RPC client over a Unix socket, as a front end would be: it sends
/// lines and reads answers and events. The server tests drive a server in
/// their own process with it; the attack tests, `tidings serve` as a process.
package final class RPCClient {
    package let socket: Int32
    private var buffer: [UInt8] = []
    private var nextID: Int64 = 0
    /// Events received, in order, not yet taken.
    package private(set) var events: [JSON] = []
    /// Requests the server sent (an `id` and a `method`), in order, not yet taken.
    package private(set) var serverRequests: [JSON] = []
    /// Answers read while waiting for another, by id.
    private var answers: [JSON: JSON] = [:]

    package init(path: String) throws {
        let descriptor = try UnixSocket.connect(to: path)
        socket = descriptor.take()
    }

    deinit {
        close(socket)
    }

    /// Sends `text` and a newline.
    package func send(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Sends a request and returns its id.
    @discardableResult
    package func request(_ method: String, _ params: JSON? = nil, id: JSON? = nil) -> JSON {
        nextID += 1
        let id = id ?? .integer(nextID)
        var members: [(String, JSON)] = [("jsonrpc", .string("2.0")), ("id", id), ("method", .string(method))]
        if let params { members.append(("params", params)) }
        send(JSON.object(members).serialized())
        return id
    }

    /// Calls `method` and returns its result, or throws the error the server answered.
    package func call(_ method: String, _ params: JSON? = nil, timeout: Double = patience) throws -> JSON {
        let id = request(method, params)
        return try result(of: id, timeout: timeout)
    }

    /// The answer to request `id`: its result, or its error thrown.
    package func result(of id: JSON, timeout: Double = patience) throws -> JSON {
        let answer = try self.answer(to: id, timeout: timeout)
        if let error = answer["error"] {
            throw RPCErrorReply(code: error["code"]?.integerValue ?? 0, message: error["message"]?.stringValue ?? "",
                                data: error["data"])
        }
        return answer["result"] ?? .null
    }

    /// Every delivered notification (`{app, notification}`), of `app` when
    /// given, read page by page, `limit` at a time; `between` runs between two pages.
    package func listAll(app: String? = nil, limit: Int? = nil, between: () throws -> Void = {}) throws -> [JSON] {
        var listed: [JSON] = []
        var cursor: JSON = .null
        repeat {
            var params: [(String, JSON)] = [("cursor", cursor)]
            if let app { params.append(("app", .string(app))) }
            if let limit { params.append(("limit", .integer(Int64(limit)))) }
            let page = try call("notifications.list", .object(params))
            listed += page["notifications"]?.arrayValue ?? []
            cursor = page["next"] ?? .null
            if cursor != .null { try between() }
        } while cursor != .null
        return listed
    }

    /// The whole response object for `id`.
    package func answer(to id: JSON, timeout: Double = patience) throws -> JSON {
        let deadline = MonotonicClock.deadline(after: timeout)
        while true {
            if let answer = answers.removeValue(forKey: id) { return answer }
            guard let message = try readMessage(until: deadline) else { throw RPCErrorReply(code: 0, message: "no answer to \(id) in time", data: nil) }
            file(message)
        }
    }

    /// True when the answer to `id` has arrived (read while waiting for
    /// another) and is not taken yet; it does not read.
    package func hasAnswer(to id: JSON) -> Bool {
        answers[id] != nil
    }

    /// The next event of `method` (taking it): waits until it comes, for at most `timeout` seconds.
    package func event(_ method: String, timeout: Double = patience) throws -> JSON? {
        let deadline = MonotonicClock.deadline(after: timeout)
        while true {
            if let position = events.firstIndex(where: { $0["method"]?.stringValue == method }) {
                return events.remove(at: position)["params"]
            }
            guard let message = try readMessage(until: deadline) else { return nil }
            file(message)
        }
    }

    /// The next request the server sent of `method` (taking it): waits until
    /// it comes, for at most `timeout` seconds.
    package func serverRequest(_ method: String, timeout: Double = patience) throws -> JSON? {
        let deadline = MonotonicClock.deadline(after: timeout)
        while true {
            if let position = serverRequests.firstIndex(where: { $0["method"]?.stringValue == method }) {
                return serverRequests.remove(at: position)
            }
            guard let message = try readMessage(until: deadline) else { return nil }
            file(message)
        }
    }

    /// Answers the server's request `id` with `result`.
    package func respond(to id: JSON, result: JSON) {
        send(JSON.object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)]).serialized())
    }

    /// Answers the server's request `id` with an error of `code`.
    package func respond(to id: JSON, errorCode code: Int64, message: String) {
        send(JSON.object([("jsonrpc", .string("2.0")), ("id", id), ("error", .object([
            ("code", .integer(code)), ("message", .string(message)),
        ]))]).serialized())
    }

    /// Reads whatever arrives for `seconds`, filing it.
    package func drain(for seconds: Double) throws {
        let deadline = MonotonicClock.deadline(after: seconds)
        while let message = try readMessage(until: deadline) { file(message) }
    }

    /// The next raw line, or nil when none came in time; throws at end of stream.
    package func readLine(until deadline: UInt64) throws -> String? {
        try readMessageBytes(until: deadline).map { String(decoding: $0, as: UTF8.self) }
    }

    private func file(_ message: JSON) {
        if case .array(let replies) = message {
            for reply in replies { file(reply) }
        } else if message["method"] != nil && message["id"] != nil {
            serverRequests.append(message)
        } else if let id = message["id"] {
            answers[id] = message
        } else {
            events.append(message)
        }
    }

    private func readMessage(until deadline: UInt64) throws -> JSON? {
        guard let bytes = try readMessageBytes(until: deadline) else { return nil }
        return try JSON.parse(bytes)
    }

    private func readMessageBytes(until deadline: UInt64) throws -> [UInt8]? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            let now = MonotonicClock.now()
            guard now < deadline else { return nil }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(max(1, (deadline - now) / 1_000_000)))
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw RPCErrorReply(code: 0, message: "the server closed the connection", data: nil) }
            buffer += chunk[..<count]
        }
    }
}
