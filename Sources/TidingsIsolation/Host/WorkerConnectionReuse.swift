import TidingsBase

/// A worker between two instances (`WorkerPool`): what the host's side of
/// its channel held for the instance that ended goes, so that nothing of
/// one notification's reaches the next.
extension WorkerConnection {
    /// Clears what an ended instance left beside its context (forgotten at
    /// its `destroy`): a completion still pending of the tokens given for it
    /// is abandoned (its waiter stops waiting, as when a worker ends), and
    /// the sealed copies of the attachments it opened are closed. The tokens
    /// stay the worker's: a completion the extension makes late (from a
    /// global, say) is reported as late, as in process, not taken as stray.
    func clearInstance(tokens given: [UInt64]) {
        for token in given { host.completions.abandon(token) }
        copies.clear()
    }
}
