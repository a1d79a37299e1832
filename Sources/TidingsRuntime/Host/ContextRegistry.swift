import Synchronization

/// The table that turns the ABI's context handles back into instance
/// contexts. Handles are numbers, never reused, so a stale or forged handle
/// finds nothing instead of freed memory.
package final class ContextRegistry: Sendable {
    /// The one table of the process: host functions find contexts here.
    package static let shared = ContextRegistry()

    private struct Table {
        var next: UInt64 = 1
        var contexts: [UInt64: InstanceContext] = [:]
    }

    private let table = Mutex(Table())

    /// A new handle, never given before.
    package func makeHandle() -> UInt64 {
        table.withLock { table in
            defer { table.next += 1 }
            return table.next
        }
    }

    /// Makes `handle` name `context`.
    package func bind(_ handle: UInt64, to context: InstanceContext) {
        table.withLock { $0.contexts[handle] = context }
    }

    /// The context `handle` names, if it is still open.
    package func context(_ handle: UInt64) -> InstanceContext? {
        table.withLock { $0.contexts[handle] }
    }

    /// Forgets `handle`.
    package func remove(_ handle: UInt64) {
        _ = table.withLock { $0.contexts.removeValue(forKey: handle) }
    }
}
