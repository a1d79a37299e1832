import Synchronization

/// One issuer's table that turns the ABI's context handles back into the
/// sinks of their host calls. Handles are numbers, never reused, so a stale
/// or forged handle finds nothing instead of freed memory.
package final class ContextRegistry: Sendable {
    /// The directory slot its handles carry.
    package let slot: HandleSlot

    private struct Table {
        /// Handles made so far.
        var made: UInt64 = 0
        var sinks: [UInt64: any HostCallSink] = [:]
    }

    private let table = Mutex(Table())

    /// A registry whose handles carry `slot`.
    package init(slot: HandleSlot) {
        self.slot = slot
    }

    /// A new handle, never given before.
    package func makeHandle() -> UInt64 {
        table.withLock { $0.made += 1 }
        return slot.makeHandle()
    }

    /// How many handles it has made.
    package var handlesMade: UInt64 {
        table.withLock { $0.made }
    }

    /// Makes `handle` name `sink`.
    package func bind(_ handle: UInt64, to sink: any HostCallSink) {
        table.withLock { $0.sinks[handle] = sink }
    }

    /// The sink `handle` names, if its context is still open.
    package func sink(_ handle: UInt64) -> (any HostCallSink)? {
        table.withLock { $0.sinks[handle] }
    }

    /// Forgets `handle`.
    package func remove(_ handle: UInt64) {
        _ = table.withLock { $0.sinks.removeValue(forKey: handle) }
    }
}
