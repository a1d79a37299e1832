/// How worker processes are started and limited: the executable, and what
/// each worker may use.
package struct WorkerSettings: Sendable, Equatable {
    /// The executable to start with the `worker` command: the `tidings`
    /// binary, so that nothing extra is installed.
    package var executable: String
    /// Bytes of memory an extension may allocate beyond what the worker uses
    /// once started (`RLIMIT_DATA`); 0 for no limit.
    package var memoryLimit: UInt64 = WorkerSettings.defaultMemoryLimit
    /// Seconds of CPU time the worker's whole process (every thread) may
    /// use during one call, and again between two calls; 0 for no limit.
    package var cpuTimePerCall = 2.0
    /// Seconds of CPU time a worker may use in its life (`RLIMIT_CPU`); 0
    /// for no limit. A worker that reaches it is restarted.
    package var cpuTimeTotal = 600.0
    /// Bytes of the worker's private /tmp (a tmpfs, counted as memory).
    package var scratchSize: UInt64 = 16 << 20
    /// Which sandbox layers the host may use; all of them by default.
    package var sandbox = SandboxRequirements()
    /// Seconds a call may take before its worker is taken to hang and killed.
    package var callTimeout = 10.0
    /// Seconds a worker has to load its library and answer.
    package var launchTimeout = 10.0
    /// Restarts and quarantine after faults.
    package var restarts = RestartPolicy()
    /// Warm workers kept for content extensions' next opened interfaces.
    package var pool = WorkerPoolSettings()

    /// 64 MiB. iOS documents no limit; service extensions are killed at about
    /// 24 MB of footprint (dirty memory). `RLIMIT_DATA` also counts memory
    /// that is reserved writable but never touched (each thread's 8 MiB
    /// stack, malloc's arenas), so the same extension needs more of it.
    package static let defaultMemoryLimit: UInt64 = 64 << 20

    /// What a worker itself holds resident before its extension allocates
    /// anything (the Swift runtime, the tidings binary), for limits that
    /// count all of the worker's memory (its cgroup).
    package static let workerFootprint: UInt64 = 24 << 20

    /// Settings for workers started from `executable`, with the default limits.
    package init(executable: String) {
        self.executable = executable
    }
}

/// How many warm workers a host keeps for content extensions: a worker
/// whose interface closed cleanly waits, idle, for its bundle's next
/// opened interface, and a spare is started ahead of need when a bundle
/// has none left (see `WorkerPool`). Idle workers cost memory; these bound it.
package struct WorkerPoolSettings: Sendable, Equatable {
    /// The most idle workers of all bundles together; 0 keeps none (every
    /// opened interface starts a worker of its own, which ends with it).
    package var hostLimit = 4
    /// The most idle workers of one bundle; 0 keeps none.
    package var bundleLimit = 2
    /// Seconds an idle worker waits for an interface before it ends.
    package var idleTime = 60.0

    /// No worker kept: each opened interface's worker starts cold (one-shot commands, and measurements).
    package static let off = WorkerPoolSettings(hostLimit: 0, bundleLimit: 0, idleTime: 0)

    /// The defaults: 4 idle workers in all, 2 per bundle, for 60 s.
    package init() {}

    /// Limits of `hostLimit` idle workers in all, `bundleLimit` per bundle, for `idleTime` seconds each.
    package init(hostLimit: Int, bundleLimit: Int, idleTime: Double) {
        (self.hostLimit, self.bundleLimit, self.idleTime) = (hostLimit, bundleLimit, idleTime)
    }

    /// True when workers are kept at all.
    package var keepsWorkers: Bool { hostLimit > 0 && bundleLimit > 0 && idleTime > 0 }
}

/// Which layers of the sandbox the host may put a worker in. Each is used
/// when the machine allows it; turning one off (for a machine that refuses
/// it noisily, or for a test of the fallback) is reported like a missing one.
package struct SandboxRequirements: Sendable, Equatable {
    /// New user, PID, mount, IPC, network and UTS namespaces.
    package var namespaces = true
    /// A view of the file system of its own (needs the namespaces).
    package var fileSystemView = true
    /// A cgroup of its own for memory and tasks.
    package var cgroup = true
    /// Landlock rules on what it may reach.
    package var landlock = true
    /// The seccomp filter.
    package var seccomp = true

    /// Every layer turned off: a worker that is only a process of its own
    /// (for a measurement of what the sandbox costs; never a default).
    package static let none: SandboxRequirements = {
        var none = SandboxRequirements()
        none.namespaces = false
        none.fileSystemView = false
        none.cgroup = false
        none.landlock = false
        none.seccomp = false
        return none
    }()

    package init() {}
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
