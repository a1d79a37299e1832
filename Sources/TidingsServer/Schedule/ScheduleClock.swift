import Glibc
import Synchronization
import TidingsBase

/// The clocks pending requests are scheduled by: the wall clock calendar
/// triggers match (`wallNow`), the elapsed time interval triggers count
/// (`elapsedNow`, which counts a suspend, so an interval still lasts its
/// seconds of real time across one) and the user's time zone.
///
/// The system's is `SystemScheduleClock`; a test gives one it moves itself,
/// and drives the scheduler with `PendingScheduler.runDue()` rather than a thread.
package protocol ScheduleClock: Sendable {
    /// Now on the wall clock, in seconds since 1970 UTC (`CLOCK_REALTIME`): it jumps when the clock is set.
    func wallNow() -> Double
    /// Now on the elapsed clock, in seconds since an arbitrary instant
    /// (`CLOCK_BOOTTIME`): it never jumps, and counts a suspend.
    func elapsedNow() -> Double
    /// The user's time zone, which calendar triggers without one of their own match in.
    func timeZone() -> TimeZoneRules
}

/// The system's clocks and time zone (`TZ`, else `/etc/localtime`), read
/// again when `reloadTimeZone()` is told the zone changed.
package final class SystemScheduleClock: ScheduleClock {
    private let zone: Mutex<TimeZoneRules>

    /// The system's clocks, with the time zone as it is now.
    package init() {
        zone = Mutex(Self.systemZone())
    }

    package func wallNow() -> Double {
        Self.seconds(on: CLOCK_REALTIME)
    }

    package func elapsedNow() -> Double {
        Self.seconds(on: CLOCK_BOOTTIME)
    }

    package func timeZone() -> TimeZoneRules {
        zone.withLock { $0 }
    }

    /// Reads the system's time zone again (the machine's zone changed);
    /// true when it is another.
    @discardableResult
    package func reloadTimeZone() -> Bool {
        let loaded = Self.systemZone()
        return zone.withLock { zone in
            defer { zone = loaded }
            return zone != loaded
        }
    }

    /// The system's time zone as it is now.
    private static func systemZone() -> TimeZoneRules {
        TimeZoneRules.utc
    }

    /// Now on `clock`, in seconds. The corresponding C function is `clock_gettime`.
    static func seconds(on clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
