import Synchronization
import TidingsBase

/// The clock a host sets and judges completion deadlines by, in monotonic
/// nanoseconds: the system's monotonic clock (`monotonic`), or one a test
/// moves forward, to show what a completion long after its response meets
/// without waiting that long.
package struct DeadlineClock: Sendable {
    /// Now, in nanoseconds.
    package let now: @Sendable () -> UInt64
    /// Told when the clock jumps forward (a test's clock), so that what
    /// sleeps until one of its instants (`DeadlineTimer`) looks again; nil
    /// for a clock that only runs.
    package let jumps: ClockJumps?

    /// A clock reading `now`, whose forward jumps, if it makes any, `jumps` tells of.
    package init(now: @escaping @Sendable () -> UInt64, jumps: ClockJumps? = nil) {
        self.now = now
        self.jumps = jumps
    }

    /// The system's monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`).
    package static let monotonic = DeadlineClock { MonotonicClock.now() }

    /// The instant `seconds` from now.
    package func deadline(after seconds: Double) -> UInt64 {
        CheckedNumbers.instant(now(), after: seconds)
    }

    /// The instant of the system's monotonic clock at which this clock reads
    /// `instant` (at once when it already does): what a wait on the system's
    /// clock waits until.
    func systemInstant(at instant: UInt64) -> UInt64 {
        let now = now()
        return instant > now ? MonotonicClock.now() &+ (instant - now) : MonotonicClock.now()
    }
}

/// Who hears that a `DeadlineClock` jumped forward: each listener is called,
/// on the thread that moved the clock, every time it does.
package final class ClockJumps: Sendable {
    private let listeners = Mutex<[@Sendable () -> Void]>([])

    /// Nobody listening yet.
    package init() {}

    /// Calls `listener` after every jump from now on.
    package func listen(_ listener: @escaping @Sendable () -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    /// The clock jumped: tells every listener.
    package func jumped() {
        for listener in listeners.withLock({ $0 }) { listener() }
    }
}
