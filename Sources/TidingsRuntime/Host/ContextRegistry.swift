import Synchronization
import TidingsBase

/// The table that turns the ABI's context handles back into the sinks of
/// their host calls. Handles are numbers, never reused, so a stale or
/// forged handle finds nothing instead of freed memory.
package final class ContextRegistry: Sendable {
    /// The one table of the process: host functions find contexts here.
    package static let shared = ContextRegistry()

    private struct Table {
        var next: UInt64 = 1
        var sinks: [UInt64: any HostCallSink] = [:]
    }

    private let table = Mutex(Table())

    /// A new handle, never given before.
    package func makeHandle() -> UInt64 {
        table.withLock { table in
            defer { table.next += 1 }
            return table.next
        }
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
        table.withLock { table in
            table.sinks.removeValue(forKey: handle)
            table.sinks.releaseUnusedCapacity()
        }
    }
}
