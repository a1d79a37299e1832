import TidingsBase

/// Asking the client: the server's own requests (`RequestReceiver`).
extension Connection {
    func ask(_ method: String, _ params: JSON, within seconds: Double, answer: @escaping @Sendable (ClientReply) -> Void) {
        let tally = context.service.serverRequestTally
        guard let id = asked.open(answer) else {
            tally.unanswered()
            return answer(.gone)
        }
        tally.sent()
        let deadline = MonotonicClock.deadline(after: seconds)
        context.loop.post { [self] in
            // Weakly: an answer that came early leaves the deadline holding nothing, not the connection.
            context.loop.schedule(at: deadline) { [weak self] in self?.settle(.string(id), .timedOut) }
        }
        if !push(RPCReply.request(method, params: params, id: .string(id))) {
            settle(.string(id), .gone)
        }
    }

    /// The client answered a request of the server's: whoever asked is told,
    /// on the pool; an answer to an id nothing waits under is ignored (counted).
    func receive(_ response: RPCResponse) {
        let tally = context.service.serverRequestTally
        guard let answer = asked.take(response.id) else { return tally.unknownResponse() }
        tally.answered()
        let reply: ClientReply
        switch response.outcome {
        case .success(let result): reply = .result(result)
        case .failure(let error): reply = .error(error)
        }
        context.pool.run { answer(reply) }
    }

    /// Ends the wait for request `id` with `reply` (its deadline, or its line
    /// not sent), unless it was answered already.
    private func settle(_ id: RPCID, _ reply: ClientReply) {
        guard let answer = asked.take(id) else { return }
        context.service.serverRequestTally.unanswered()
        context.pool.run { answer(reply) }
    }

    /// The client can answer nothing more: what waits for its answers is
    /// told it is gone, the apps it said were in the foreground are not, and
    /// its authorization requests stop waiting for the user.
    func leave() {
        context.service.foreground.forget(self)
        context.service.authorizations.forget(client: ObjectIdentifier(self))
        let waiting = asked.end()
        guard !waiting.isEmpty else { return }
        context.service.serverRequestTally.unanswered(waiting.count)
        context.pool.run { for answer in waiting { answer(.gone) } }
    }
}
