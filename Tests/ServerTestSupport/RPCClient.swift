@_exported import TidingsProtocol
import TidingsBase
import TestSupport

/// A JSON-RPC client over a Unix socket, as a front end would be: it sends
/// lines and reads answers and events. The server tests drive a server in
/// their own process with it; the attack tests, `tidings serve` as a process.
/// A facade over TidingsProtocol's `BlockingRPCClient` (what failed on the
/// client's side is thrown as an `RPCErrorReply` of code 0).
package final class RPCClient {
    private let client: BlockingRPCClient

    package init(path: String) throws {
        client = try BlockingRPCClient(path: path)
    }

    /// The socket's descriptor.
    package var socket: Int32 { client.socket.descriptor }
    /// Events received, in order, not yet taken.
    package var events: [JSON] { client.events }
    /// Requests the server sent (an `id` and a `method`), in order, not yet taken.
    package var serverRequests: [JSON] { client.serverRequests }

    /// Sends `text` and a newline.
    package func send(_ text: String) {
        try? client.send(line: Array(text.utf8))
    }

    /// Sends a request and returns its id.
    @discardableResult
    package func request(_ method: String, _ params: JSON? = nil, id: JSON? = nil) -> JSON {
        (try? client.request(MethodName(method), params, id: id)) ?? id ?? .null
    }

    /// Calls `method` and returns its result, or throws the error the server answered.
    package func call(_ method: String, _ params: JSON? = nil, timeout: Double = patience) throws -> JSON {
        let id = request(method, params)
        return try result(of: id, timeout: timeout)
    }

    /// The answer to request `id`: its result, or its error thrown.
    package func result(of id: JSON, timeout: Double = patience) throws -> JSON {
        do throws(RPCCallFailure) {
            return try client.result(of: id, until: MonotonicClock.deadline(after: timeout))
        } catch {
            switch error {
            case .answered(let reply): throw reply
            case .client(let failure): throw Self.reply(failure, waitingFor: id)
            }
        }
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
        try clientSide(waitingFor: id) { () throws(RPCClientFailure) in
            try client.answer(to: id, until: MonotonicClock.deadline(after: timeout))
        }
    }

    /// True when the answer to `id` has arrived (read while waiting for
    /// another) and is not taken yet; it does not read.
    package func hasAnswer(to id: JSON) -> Bool {
        client.hasAnswer(to: id)
    }

    /// The next event of `method` (taking it): waits until it comes, for at most `timeout` seconds.
    package func event(_ method: String, timeout: Double = patience) throws -> JSON? {
        try clientSide { () throws(RPCClientFailure) in
            try client.event(method, until: MonotonicClock.deadline(after: timeout))?["params"]
        }
    }

    /// The next request the server sent of `method` (taking it): waits until
    /// it comes, for at most `timeout` seconds.
    package func serverRequest(_ method: String, timeout: Double = patience) throws -> JSON? {
        try clientSide { () throws(RPCClientFailure) in
            try client.serverRequest(method, until: MonotonicClock.deadline(after: timeout))
        }
    }

    /// Answers the server's request `id` with `result`.
    package func respond(to id: JSON, result: JSON) {
        try? client.respond(to: id, result: result)
    }

    /// Answers the server's request `id` with an error of `code`.
    package func respond(to id: JSON, errorCode code: Int64, message: String) {
        try? client.respond(to: id, error: RPCErrorReply(code: code, message: message))
    }

    /// Reads whatever arrives for `seconds`, filing it.
    package func drain(for seconds: Double) throws {
        try clientSide { () throws(RPCClientFailure) in try client.drain(until: MonotonicClock.deadline(after: seconds)) }
    }

    /// The next raw line, or nil when none came in time; throws at end of stream.
    package func readLine(until deadline: UInt64) throws -> String? {
        try clientSide { () throws(RPCClientFailure) in
            try client.readLine(until: deadline).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// `body`, its failure thrown as a reply of code 0.
    private func clientSide<Value>(waitingFor id: JSON? = nil,
                                   _ body: () throws(RPCClientFailure) -> Value) throws -> Value {
        do throws(RPCClientFailure) {
            return try body()
        } catch {
            throw Self.reply(error, waitingFor: id)
        }
    }

    private static func reply(_ failure: RPCClientFailure, waitingFor id: JSON?) -> RPCErrorReply {
        switch failure {
        case .timedOut: RPCErrorReply(code: 0, message: "no answer to \(id.map { "\($0)" } ?? "it") in time")
        case .broken(let reason): RPCErrorReply(code: 0, message: reason)
        }
    }
}
