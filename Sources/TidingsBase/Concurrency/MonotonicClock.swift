import Glibc

/// Nanoseconds on the system's monotonic clock, for deadlines that must not
/// move when the wall clock does.
package enum MonotonicClock {
    /// Now, in nanoseconds. The corresponding C function is `clock_gettime(CLOCK_MONOTONIC)`.
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The instant `seconds` from now (now for what is not more than 0; the
    /// last instant for what lies past it).
    package static func deadline(after seconds: Double) -> UInt64 {
        CheckedNumbers.instant(now(), after: seconds)
    }
}
