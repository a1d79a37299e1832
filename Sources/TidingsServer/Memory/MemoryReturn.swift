import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// Gives the memory that removed notifications leave back to the system,
/// so that a server that kept 100,000 notifications and let them all go
/// returns to about the size it had idle.
///
/// Freed memory stays in glibc's arenas unless asked for. Once a
/// notification is removed, `malloc_trim` runs on a thread of its own
/// (never a caller's: with much to give back it takes milliseconds, arena
/// by arena) a moment later, and again every such moment while removals go
/// on: at most ten times a second, and once after the last removal of a burst.
package final class MemoryReturn: Sendable {
    /// How long the trimming thread lets removals gather before each trim, in microseconds.
    private let gathering: UInt32
    /// Removals counted so far.
    private let removals = Atomic<Int>(0)
    /// A trimming thread runs: removals need start no other.
    private let trimming = Atomic<Bool>(false)

    /// Gives freed memory back `gathering` seconds after removals (a tenth by default).
    package init(gathering: Double = 0.1) {
        self.gathering = UInt32(gathering * 1e6)
    }

    /// Counts one notification that left for good (dismissed, removed): its
    /// memory goes back to the system shortly.
    package func noteRemoval() {
        removals.add(1, ordering: .relaxed)
        guard !trimming.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if !Threads.start({ self.trimWhileRemoving() }) { trimming.store(false, ordering: .releasing) }
    }

    /// Trims after each gathering while removals go on; ends after a trim no removal followed.
    private func trimWhileRemoving() {
        while true {
            usleep(gathering)
            let trimmed = removals.load(ordering: .relaxed)
            Self.trim()
            if removals.load(ordering: .relaxed) != trimmed { continue }
            trimming.store(false, ordering: .releasing)
            // A removal that came as this thread was leaving found it still running: stay for it.
            guard removals.load(ordering: .relaxed) != trimmed,
                  !trimming.exchange(true, ordering: .acquiringAndReleasing)
            else { return }
        }
    }

    /// Gives what every arena holds free back to the system now, on the
    /// calling thread: milliseconds when there is much, so never a caller's.
    package static func trim() {
        _ = tidings_malloc_trim()
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
