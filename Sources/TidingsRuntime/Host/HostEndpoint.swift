import TidingsABI

/// What one host's extensions reach through the ABI: the contexts its
/// context handles name, the completions its tokens name, and the function
/// table they were given. Each `NotificationHost` has its own, found
/// through the `HandleDirectory` by the slot its handles carry, so that
/// nothing of it is shared with another host in the process.
package final class HostEndpoint: HandleOwner {
    /// The contexts of its instances.
    package let contexts: ContextRegistry
    /// The completions its instances owe.
    package let completions: CompletionCenter
    /// The table its extensions are given.
    package let table: HostTable

    /// An endpoint whose extensions are given `table`, in a slot of its
    /// own, whose completion deadlines are judged by `clock`.
    package init(table: HostTable, clock: DeadlineClock = .monotonic) {
        let slot = HandleSlot()
        contexts = ContextRegistry(slot: slot)
        completions = CompletionCenter(slot: slot, clock: clock)
        self.table = table
        HandleDirectory.shared.bind(slot, to: self)
    }

    package func complete(_ token: UInt64, with given: CompletionGiven, by context: UInt64?) -> tidings_status {
        completions.complete(token, with: given, by: context)
    }
}
