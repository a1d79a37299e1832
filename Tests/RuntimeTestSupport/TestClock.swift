import Synchronization
import TidingsBase
import TidingsRuntime

/// A deadline clock a test moves forward: the system's monotonic clock plus
/// the time the test has added, so that a completion can come "20 s later"
/// at once, and a deadline the host keeps passes at once.
package final class TestClock: Sendable {
    private let added = Atomic<UInt64>(0)
    private let jumps = ClockJumps()

    package init() {}

    /// The clock a host takes (`NotificationHost.Configuration.clock`).
    package var clock: DeadlineClock {
        DeadlineClock(now: { [self] in MonotonicClock.now() &+ added.load(ordering: .acquiring) }, jumps: jumps)
    }

    /// Moves the clock `seconds` forward; the deadlines now past expire.
    package func advance(seconds: Double) {
        added.add(UInt64(seconds * 1e9), ordering: .acquiringAndReleasing)
        jumps.jumped()
    }
}
