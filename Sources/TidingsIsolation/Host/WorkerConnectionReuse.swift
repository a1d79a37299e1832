import TidingsBase

/// A worker between two instances (`WorkerPool`): what the host's side of
/// its channel held for the instance that ended goes, so that nothing of
/// one notification's reaches the next.
extension WorkerConnection {
    /// Clears what an ended instance left beside its context (forgotten at
    /// its `destroy`): the completion tokens given for it, which the worker
    /// may no longer complete (one still pending is abandoned: nothing will
    /// answer it), and the sealed copies of the attachments it opened.
    func clearInstance(tokens given: [UInt64]) {
        state.withLock { state in
            for token in given { state.tokens.remove(token) }
        }
        for token in given { host.completions.abandon(token) }
        copies.clear()
    }
}
