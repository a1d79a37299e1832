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

/// The system's clocks and time zone (`TZ` in the environment given, else
/// `/etc/localtime`), read again when `reloadTimeZone()` is told the zone changed.
package final class SystemScheduleClock: ScheduleClock {
    /// The environment the zone is found by (its `TZ`).
    private let environment: [String: String]
    private let zone: Mutex<TimeZoneRules>

    /// The system's clocks, with the time zone as `environment` (by default
    /// the process's `TZ`) and /etc/localtime make it now.
    package init(environment: [String: String] = SystemScheduleClock.processTimeZoneVariable) {
        self.environment = environment
        zone = Mutex(TimeZoneRules.local(environment: environment))
    }

    /// The process's `TZ`, as an environment of its own. The corresponding C function is `getenv`.
    package static var processTimeZoneVariable: [String: String] {
        getenv("TZ").map { ["TZ": String(cString: $0)] } ?? [:]
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

    /// Reads the system's time zone again (the machine's zone changed).
    package func reloadTimeZone() {
        let loaded = TimeZoneRules.local(environment: environment)
        zone.withLock { $0 = loaded }
    }

    /// Now on `clock`, in seconds. The corresponding C function is `clock_gettime`.
    private static func seconds(on clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
