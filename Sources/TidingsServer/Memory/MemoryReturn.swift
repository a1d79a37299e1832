import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// Gives the memory that removed notifications leave back to the system,
/// so that a server that kept 100,000 notifications and let them go
/// returns to about the size it had idle.
///
/// Freed memory stays in glibc's arenas unless asked for: after every
/// `batch` removals, `malloc_trim` runs on a thread of its own (never on a
/// caller's: with much to give back it takes milliseconds, arena by arena).
package final class MemoryReturn: Sendable {
    /// Removals after which freed memory is given back.
    package let batch: Int
    /// Removals counted so far.
    private let removals = Atomic<Int>(0)
    /// A trim is queued and has not started: more removals need no other.
    private let pending = Atomic<Bool>(false)
    private let trimming = SerialQueue()

    /// Gives freed memory back after every `batch` removals.
    package init(batch: Int = 1_000) {
        self.batch = batch
    }

    /// Counts `count` notifications removed (dismissed, expired, replaced);
    /// every `batch` of them, freed memory goes back to the system.
    package func noteRemovals(_ count: Int = 1) {
        let (before, after) = removals.wrappingAdd(count, ordering: .relaxed)
        guard before / batch != after / batch, !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        trimming.async { [self] in
            pending.store(false, ordering: .releasing)
            _ = tidings_malloc_trim()
        }
    }

    /// Sets the allocator of this process up for a long-running server:
    /// at most as many arenas as CPUs (at least 2), so that memory freed by
    /// one thread serves the next rather than waiting in an arena of its
    /// own; and fixed thresholds (blocks of 256 KiB or more mapped on their
    /// own, free memory above 1 MiB at an arena's top given back), which
    /// glibc would otherwise raise for good after the first large block freed.
    package static func configureAllocator() {
        let processors = max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        _ = tidings_malloc_settings(Int32(processors), 256 << 10, 1 << 20)
    }
}
