import Synchronization
import TidingsBase

/// A JSON-RPC 2.0 connection to `tidings serve` for async code: a call
/// suspends until its answer comes; a thread of its own reads (holding none
/// of the concurrency pool's few threads), settles each answer with the call
/// waiting for it and hands events and the server's own requests on in
/// ``incoming``, in the order they came, which finishes when the connection
/// ends. The descriptor is closed when the last holder (the owner, the
/// reading thread) lets go.
package final class AsyncRPCConnection: Sendable {
    private let socket: RPCSocket
    /// Events and requests of the server's, in order; finished at the end of the connection.
    package let incoming: AsyncStream<ServerMessage>
    private let continuation: AsyncStream<ServerMessage>.Continuation
    private let state = Mutex(State())
    /// Held while a line is written, so that lines never interleave.
    private let writing = Mutex(())

    private struct State: ~Copyable {
        var output = RPCOutput()
        var waiting: [JSON: CheckedContinuation<JSON, any Error>] = [:]
        var ended = false
    }

    /// Connects to the server at `path` (the socket must be the user's own,
    /// and so must the server) and starts reading.
    /// - Throws: the diagnostic of `UnixSocket.connect(to:)`, or `serve.socket` when there is no thread to read.
    package init(path: String) throws(Diagnostic) {
        socket = try RPCSocket(path: path)
        (incoming, continuation) = AsyncStream.makeStream(of: ServerMessage.self)
        guard Threads.start({ [self] in readMessages() }) else {
            throw .error(.socketUnavailable, "No thread to read the server's answers.")
        }
    }

    /// Calls `method` with `params` (none when nil) and returns its result.
    /// - Throws: `RPCCallFailure`: the server's error, or the connection's end before the answer.
    package func call(_ method: MethodName, _ params: JSON?) async throws -> JSON {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<JSON, any Error>) in
            let bytes = state.withLock { state -> [UInt8]? in
                guard !state.ended else { return nil }
                let id = state.output.request(method, params)
                state.waiting[id] = waiter
                return state.output.take()
            }
            guard let bytes else {
                return waiter.resume(throwing: RPCCallFailure.client(.broken("The connection to the server ended.")))
            }
            write(bytes)
        }
    }

    /// Sends a request for `method` with `params` whose answer nobody waits
    /// for (it is dropped as it comes): a hello, which every later call on
    /// the connection is ordered after. Written before this returns.
    package func send(_ method: MethodName, _ params: JSON?) {
        let bytes = state.withLock { state -> [UInt8]? in
            guard !state.ended else { return nil }
            _ = state.output.request(method, params)
            return state.output.take()
        }
        if let bytes { write(bytes) }
    }

    /// Answers the server's request `id` with `result`.
    package func respond(to id: JSON, result: JSON) {
        write(state.withLock { state in
            state.output.respond(to: id, result: result)
            return state.output.take()
        })
    }

    /// Answers the server's request `id` with `error`.
    package func respond(to id: JSON, error: RPCErrorReply) {
        write(state.withLock { state in
            state.output.respond(to: id, error: error)
            return state.output.take()
        })
    }

    /// Ends the connection: the calls waiting fail, ``incoming`` finishes.
    package func shutDown() {
        socket.shutDown()
    }

    /// Writes `bytes` whole; a connection that broke is ended (the reader then sees its end).
    private func write(_ bytes: [UInt8]) {
        let written = writing.withLock { _ -> Bool in
            do throws(SystemError) {
                try socket.send(bytes)
                return true
            } catch {
                return false
            }
        }
        if !written { socket.shutDown() }
    }

    /// The reading thread's loop: messages until the end of the connection,
    /// or a line too long or not JSON (the connection is ended then).
    private func readMessages() {
        var input = RPCInput()
        reading: while true {
            let reading: RPCSocket.Reading
            do throws(SystemError) { reading = try socket.read() } catch { break }
            guard case .bytes(let bytes) = reading else { break }
            input.append(bytes)
            do throws(RPCClientFailure) {
                while let messages = try input.nextMessages() {
                    for message in messages { settle(message) }
                }
            } catch {
                socket.shutDown()
                break reading
            }
        }
        let lost = state.withLock { state in
            state.ended = true
            defer { state.waiting = [:] }
            return state.waiting
        }
        for waiter in lost.values {
            waiter.resume(throwing: RPCCallFailure.client(.broken("The connection to the server ended before its answer.")))
        }
        continuation.finish()
    }

    /// Resumes the call an answer is for; hands on the others.
    private func settle(_ message: ServerMessage) {
        guard case .answer(let id, _) = message else {
            continuation.yield(message)
            return
        }
        guard let waiter = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return }
        switch message.reply {
        case .success(let result): waiter.resume(returning: result)
        case .failure(let error): waiter.resume(throwing: RPCCallFailure.answered(error))
        }
    }
}
