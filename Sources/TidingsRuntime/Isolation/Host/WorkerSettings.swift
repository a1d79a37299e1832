/// How worker processes are started and limited: the executable, and what
/// each worker may use.
package struct WorkerSettings: Sendable, Equatable {
    /// The executable to start with the `worker` command: the `tidings`
    /// binary, so that nothing extra is installed.
    package var executable: String
    /// Bytes of memory an extension may allocate beyond what the worker uses
    /// once started (`RLIMIT_DATA`); 0 for no limit.
    package var memoryLimit: UInt64 = WorkerSettings.defaultMemoryLimit
    /// Seconds of CPU time one call may use; 0 for no limit.
    package var cpuTimePerCall = 2.0
    /// Seconds a call may take before its worker is taken to hang and killed.
    package var callTimeout = 10.0
    /// Seconds a worker has to load its library and answer.
    package var launchTimeout = 10.0
    /// Restarts and quarantine after faults.
    package var restarts = RestartPolicy()

    /// 64 MiB. iOS documents no limit; service extensions are killed at about
    /// 24 MB of footprint (dirty memory). `RLIMIT_DATA` also counts memory
    /// that is reserved writable but never touched (each thread's 8 MiB
    /// stack, malloc's arenas), so the same extension needs more of it.
    package static let defaultMemoryLimit: UInt64 = 64 << 20

    /// Settings for workers started from `executable`, with the default limits.
    package init(executable: String) {
        self.executable = executable
    }
}

/// When a faulted worker starts again, and when its bundle is given up on.
package struct RestartPolicy: Sendable, Equatable {
    /// Seconds to wait before the first restart; each further fault within
    /// `window` doubles it.
    package var initialBackoff = 0.1
    /// The longest wait, in seconds.
    package var maximumBackoff = 30.0
    /// The seconds over which faults are counted.
    package var window = 60.0
    /// The faults within `window` that quarantine the bundle until its files change.
    package var quarantineAfter = 3

    package init() {}

    /// The wait before a restart after `recentFaults` faults within the window (at least one).
    package func backoff(afterFaults recentFaults: Int) -> Double {
        let doublings = min(max(recentFaults - 1, 0), 30)
        return min(initialBackoff * Double(1 << doublings), maximumBackoff)
    }
}
