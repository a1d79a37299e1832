import TidingsBase

/// The clock a host sets and judges completion deadlines by, in monotonic
/// nanoseconds: the system's monotonic clock (`monotonic`), or one a test
/// moves forward, to show what a completion long after its response meets
/// without waiting that long.
package struct DeadlineClock: Sendable {
    /// Now, in nanoseconds.
    package let now: @Sendable () -> UInt64

    /// A clock reading `now`.
    package init(now: @escaping @Sendable () -> UInt64) {
        self.now = now
    }

    /// The system's monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`).
    package static let monotonic = DeadlineClock { MonotonicClock.now() }

    /// The instant `seconds` from now.
    package func deadline(after seconds: Double) -> UInt64 {
        now() &+ UInt64(max(0, seconds) * 1e9)
    }

    /// The instant of the system's monotonic clock at which this clock reads
    /// `instant` (at once when it already does): what a wait on the system's
    /// clock waits until.
    func systemInstant(at instant: UInt64) -> UInt64 {
        let now = now()
        return instant > now ? MonotonicClock.now() &+ (instant - now) : MonotonicClock.now()
    }
}
