import TidingsBase

/// A JSON-RPC 2.0 connection to `tidings serve` that never blocks, for a
/// front end's poll loop: requests sent under ids of its own and their
/// answers handed to the callback given with each call; events and the
/// server's own requests handed to the owner, each in the order it came. The
/// owner polls `descriptor` for `wantsToWrite ? POLLIN|POLLOUT : POLLIN` and
/// calls `receive(_:)` and `flush()` when it is ready. One thread; it owns its socket.
package final class PolledRPCConnection {
    private let socket: RPCSocket
    private var input = RPCInput()
    private var output = RPCOutput()
    private var waiting: [JSON: (Result<JSON, RPCErrorReply>) -> Void] = [:]

    /// Connects to the server at `path` (the socket must be the user's own, and so must the server).
    /// - Throws: the diagnostic of `UnixSocket.connect(to:)`, or `serve.socket`.
    package init(path: String) throws(Diagnostic) {
        socket = try RPCSocket(path: path, blocking: false)
    }

    /// The socket, to poll.
    package var descriptor: Int32 { socket.descriptor }

    /// True while requests wait to be written.
    package var wantsToWrite: Bool { !output.pending.isEmpty }

    /// How many calls wait for their answer.
    package var callsWaiting: Int { waiting.count }

    /// Sends a request for `method` with `params`; `then` is called with its
    /// result or error when the answer comes (from `receive(_:)`), and never
    /// if the connection ends first.
    package func call(_ method: MethodName, _ params: JSON = .object([]),
                      then: @escaping (Result<JSON, RPCErrorReply>) -> Void) {
        waiting[output.request(method, params)] = then
    }

    /// Answers the server's request `id` with an error.
    package func refuse(_ id: JSON, code: Int64, message: String) {
        output.respond(to: id, error: RPCErrorReply(code: code, message: message))
    }

    /// Writes what it can of the requests waiting, without blocking.
    /// - Throws: why the connection broke.
    package func flush() throws(SystemError) {
        try socket.flush(&output)
    }

    /// Reads what has arrived and handles each message in the order it came:
    /// an answer by its call's callback, events and the server's requests by `handle`.
    /// - Returns: whether the server closed the connection.
    /// - Throws: why the connection broke, a line too long or not JSON, or
    ///   the server's refusal of the connection (an error under a `null` id).
    package func receive(_ handle: (ServerMessage) -> Void) throws(Diagnostic) -> Bool {
        while true {
            let reading: RPCSocket.Reading
            do throws(SystemError) { reading = try socket.read() } catch { return true }
            switch reading {
            case .closed: return true
            case .nothing: return false
            case .bytes(let bytes): input.append(bytes)
            }
            // Each chunk's whole lines are handled as they come: a line too long is refused before more is read.
            while let messages = try nextMessages() {
                for message in messages { try dispatch(message, handle) }
            }
        }
    }

    /// The messages of the next whole line read; nil until one has arrived whole.
    private func nextMessages() throws(Diagnostic) -> [ServerMessage]? {
        do throws(RPCClientFailure) {
            return try input.nextMessages()
        } catch {
            guard case .broken(let reason) = error else { throw .error(.socketUnavailable, "The server's connection failed.") }
            throw .error(.socketUnavailable, reason)
        }
    }

    /// Calls the callback of an answer; hands on the others.
    private func dispatch(_ message: ServerMessage, _ handle: (ServerMessage) -> Void) throws(Diagnostic) {
        guard case .answer(let id, _) = message else { return handle(message) }
        guard let callback = waiting.removeValue(forKey: id) else {
            if case .failure(let error) = message.reply {
                throw .error(.socketUnavailable, "The server refused the connection: \(error.message).")
            }
            return
        }
        callback(message.reply)
    }
}
