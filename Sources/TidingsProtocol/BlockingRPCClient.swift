import TidingsBase

/// A JSON-RPC 2.0 client of `tidings serve` that waits: a call sends its
/// request and reads until its answer comes, keeping what arrives meanwhile —
/// answers to other calls by id, events and the server's own requests in
/// order — for whoever asks next. For the command line and the tests; one
/// thread, which owns it.
package final class BlockingRPCClient {
    /// The connection.
    package let socket: RPCSocket
    private var input = RPCInput()
    private var output = RPCOutput()
    /// Events received, in order, not yet taken (each the whole notification).
    package private(set) var events: [JSON] = []
    /// Requests the server sent, in order, not yet taken (each the whole request).
    package private(set) var serverRequests: [JSON] = []
    /// Answers read while waiting for another, by id.
    private var answers: [JSON: JSON] = [:]

    /// Connects to the server at `path` (see `RPCSocket.init(path:blocking:)`).
    package init(path: String) throws(Diagnostic) {
        socket = try RPCSocket(path: path)
    }

    /// Sends a request for `method` with `params` (none when nil) under the
    /// next id, or under `id`.
    /// - Returns: the request's id.
    @discardableResult
    package func request(_ method: MethodName, _ params: JSON?, id: JSON? = nil) throws(RPCClientFailure) -> JSON {
        let id = output.request(method, params, id: id)
        try flush()
        return id
    }

    /// The result of the answer to `id`, waiting for it until `deadline`; thrown, its error.
    package func result(of id: JSON, until deadline: UInt64) throws(RPCCallFailure) -> JSON {
        let answer: JSON
        do throws(RPCClientFailure) { answer = try self.answer(to: id, until: deadline) } catch { throw .client(error) }
        switch ServerMessage.answer(id: id, answer).reply {
        case .success(let result): return result
        case .failure(let error): throw .answered(error)
        }
    }

    /// The whole answer to `id` (taking it), waiting for it until `deadline`
    /// (monotonic nanoseconds). With `orRefusal`, an error answered under a
    /// `null` id (the server refused the line or the connection) is the answer too.
    package func answer(to id: JSON, orRefusal: Bool = false, until deadline: UInt64) throws(RPCClientFailure) -> JSON {
        while true {
            if let answer = answers.removeValue(forKey: id) { return answer }
            if orRefusal, let refusal = answers.removeValue(forKey: .null) { return refusal }
            guard try readMessages(until: deadline) else { throw .timedOut }
        }
    }

    /// True when the answer to `id` has arrived (read while waiting for another) and is not taken yet; it does not read.
    package func hasAnswer(to id: JSON) -> Bool {
        answers[id] != nil
    }

    /// The next event of `method` (taking it), waiting for it until `deadline`; nil when none came.
    package func event(_ method: String, until deadline: UInt64) throws(RPCClientFailure) -> JSON? {
        try take(from: \.events, method, until: deadline)
    }

    /// The next request of the server's of `method` (taking it), waiting for it until `deadline`; nil when none came.
    package func serverRequest(_ method: String, until deadline: UInt64) throws(RPCClientFailure) -> JSON? {
        try take(from: \.serverRequests, method, until: deadline)
    }

    private func take(from queue: ReferenceWritableKeyPath<BlockingRPCClient, [JSON]>, _ method: String,
                      until deadline: UInt64) throws(RPCClientFailure) -> JSON? {
        while true {
            if let position = self[keyPath: queue].firstIndex(where: { $0["method"]?.stringValue == method }) {
                return self[keyPath: queue].remove(at: position)
            }
            guard try readMessages(until: deadline) else { return nil }
        }
    }

    /// Answers the server's request `id` with `result`.
    package func respond(to id: JSON, result: JSON) throws(RPCClientFailure) {
        output.respond(to: id, result: result)
        try flush()
    }

    /// Answers the server's request `id` with `error`.
    package func respond(to id: JSON, error: RPCErrorReply) throws(RPCClientFailure) {
        output.respond(to: id, error: error)
        try flush()
    }

    /// Sends `bytes` and a newline, as they are.
    package func send(line bytes: [UInt8]) throws(RPCClientFailure) {
        output.queue(line: bytes)
        try flush()
    }

    /// Reads and keeps whatever arrives until `deadline`.
    package func drain(until deadline: UInt64) throws(RPCClientFailure) {
        while try readMessages(until: deadline) {}
    }

    /// The next raw line (taking it, unread by the client), waiting for it until `deadline`; nil when none came.
    package func readLine(until deadline: UInt64) throws(RPCClientFailure) -> [UInt8]? {
        while true {
            if let line = try input.nextLine() { return line }
            guard try read(until: deadline) else { return nil }
        }
    }

    /// Keeps the messages of the next whole line, reading until one has come.
    /// - Returns: false when none came before `deadline`.
    private func readMessages(until deadline: UInt64) throws(RPCClientFailure) -> Bool {
        while true {
            if let messages = try input.nextMessages() {
                for message in messages { keep(message) }
                return true
            }
            guard try read(until: deadline) else { return false }
        }
    }

    private func keep(_ message: ServerMessage) {
        switch message {
        case .answer(let id, let json): answers[id] = json
        case .event(_, let json): events.append(json)
        case .request(_, _, let json): serverRequests.append(json)
        }
    }

    /// Reads what arrives before `deadline` into the input; false when nothing did.
    private func read(until deadline: UInt64) throws(RPCClientFailure) -> Bool {
        let reading: RPCSocket.Reading
        do throws(SystemError) { reading = try socket.read(until: deadline) } catch {
            throw .broken("The connection to the server broke: \(error).")
        }
        switch reading {
        case .bytes(let bytes):
            input.append(bytes)
            return true
        case .nothing: return false
        case .closed: throw .broken("The server closed the connection.")
        }
    }

    private func flush() throws(RPCClientFailure) {
        do throws(SystemError) { try socket.send(output.take()) } catch {
            throw .broken("The server closed the connection: \(error).")
        }
    }
}

/// Why a call got no result: the server's error, or the client's own failure.
package enum RPCCallFailure: Error, Sendable {
    /// The server answered with an error object.
    case answered(RPCErrorReply)
    /// No answer: the connection broke or the answer did not come in time.
    case client(RPCClientFailure)
}
