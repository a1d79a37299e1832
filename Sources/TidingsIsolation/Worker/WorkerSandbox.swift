import Glibc
import TidingsBase
import TidingsSystemShims

/// What a worker process does to itself before it loads an extension: the
/// layers of the sandbox only a process can put on itself. The host has
/// already put it in its namespaces, its view of the file system and its
/// cgroup, and its init set no_new_privs and the task limit (`TaskLimit`).
///
/// `enter` changes the whole process; the worker calls it once, early,
/// while it is still its only thread (Landlock restricts the calling
/// thread and those it starts later).
package enum WorkerSandbox {
    /// Why the worker could not put itself in its sandbox.
    package struct Failure: Error, Sendable {
        package var sentence: String
    }

    /// The layers in place, and the CPU watchdog (nil without a budget).
    package struct Entered: Sendable {
        package var layers: [SandboxLayer]
        package var watchdog: CPUWatchdog?
    }

    /// Puts this process in its sandbox, as `settings` say:
    /// 1. every descriptor but 0, 1, 2 and the channel closed; no core files;
    ///    a data limit of what the worker uses now plus `memoryLimit`
    ///    (`RLIMIT_DATA`), and a lifetime CPU limit (`RLIMIT_CPU`); soft and
    ///    hard alike, so that nothing raises them again;
    /// 2. Landlock: only `settings.paths` are reachable, no TCP unless the
    ///    network is granted, no signals or abstract sockets outside;
    /// 3. the fatal-signal reporter and the CPU watchdog (a thread);
    /// 4. the seccomp filter, on every thread.
    /// A layer the kernel lacks is reported as missing, with the reason.
    /// - Parameters:
    ///   - channel: the host's channel, kept open; reports go there.
    ///   - kept: a descriptor right after the channel to keep open too (the bundle's directory).
    ///   - reports: the pre-encoded messages for a stack overflow, memory
    ///     exhaustion and an exhausted CPU budget.
    package static func enter(_ settings: WorkerSandboxSettings, channel: Int32, keeping kept: Int32?,
                              reports: (overflow: [UInt8], outOfMemory: [UInt8], cpuTime: [UInt8]))
        throws(Failure) -> Entered
    {
        var layers: [SandboxLayer] = []
        _ = tidings_close_range(UInt32(max(channel, kept ?? channel)) + 1, UInt32.max, 0)
        do throws(SystemError) {
            _ = try setLimit(RLIMIT_CORE, to: 0)
            if settings.memoryLimit > 0 {
                _ = try setLimit(RLIMIT_DATA, to: dataLimit(currentSize: try currentDataSize(), allowance: settings.memoryLimit))
            }
            // Few descriptors (each socket holds kernel memory no limit counts), and no file larger than
            // the scratch space (without a view of its own, the scratch directory is on a real disk).
            _ = try setLimit(RLIMIT_NOFILE, to: Self.descriptorLimit)
            if settings.scratchSize > 0 { _ = try setLimit(RLIMIT_FSIZE, to: settings.scratchSize) }
            if settings.cpuTimeTotal > 0 {
                // SIGXCPU at the soft limit, SIGKILL a second later should it be ignored.
                // From the host's channel: held to a year rather than trapping on what does not fit.
                let seconds = min(UInt64(saturating: settings.cpuTimeTotal, .up), 31_536_000)
                var limit = rlimit(rlim_cur: rlim_t(seconds), rlim_max: rlim_t(seconds + 1))
                _ = SystemCall.retrying { setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit) }
            }
        } catch {
            throw Failure(sentence: "The worker could not limit itself: \(error).")
        }
        layers.append(landlock(settings))
        do throws(SystemError) {
            try FatalSignalReporter.install(reportTo: channel, overflow: reports.overflow, outOfMemory: reports.outOfMemory)
        } catch {
            throw Failure(sentence: "The worker could not install its fatal-signal reporter: \(error).")
        }
        var watchdog: CPUWatchdog?
        if settings.cpuTimePerCall > 0 {
            do throws(SystemError) {
                watchdog = try CPUWatchdog(seconds: settings.cpuTimePerCall, report: reports.cpuTime, to: channel)
                layers.append(SandboxLayer(
                    "cpu", .active,
                    "\(NumberText.short(settings.cpuTimePerCall)) s of CPU time (all threads) within a call and what follows it (enforced within twice that); \(NumberText.short(settings.cpuTimeTotal)) s in the worker's life"))
            } catch {
                layers.append(SandboxLayer("cpu", .weakened,
                                           "no per-call budget (\(error)); \(NumberText.short(settings.cpuTimeTotal)) s in the worker's life"))
            }
        } else {
            layers.append(SandboxLayer("cpu", settings.cpuTimeTotal > 0 ? .weakened : .missing,
                                       "no per-call budget: turned off by the host's settings"))
        }
        layers.append(seccomp(settings, watchdog: watchdog))
        return Entered(layers: layers, watchdog: watchdog)
    }

    /// The Landlock domain of `settings.paths`, as a layer.
    private static func landlock(_ settings: WorkerSandboxSettings) -> SandboxLayer {
        guard !settings.paths.isEmpty else {
            return SandboxLayer("landlock", .missing, "turned off by the host's settings")
        }
        guard threadCount() == 1 else {
            return SandboxLayer("landlock", .missing, "the worker had more than one thread before it could restrict itself")
        }
        var result = tidings_landlock_result()
        let code: Int32 = withLandlockRules(settings.paths) { rules in
            tidings_landlock_restrict(rules.baseAddress, rules.count, settings.allowNetwork, &result)
        }
        switch -code {
        case 0:
            var what = "Landlock ABI \(result.abi): only the sandbox's paths"
            if result.network_restricted { what += ", no TCP" }
            if result.scoped { what += ", no signals or abstract sockets outside" }
            return SandboxLayer("landlock", .active, what)
        case ENOSYS:
            return SandboxLayer("landlock", .missing, "the kernel has no Landlock (Linux 5.13 and later)")
        case EOPNOTSUPP:
            return SandboxLayer("landlock", .missing, "Landlock is turned off in this kernel (lsm= boot parameter)")
        default:
            return SandboxLayer("landlock", .missing, "Landlock refused the rules: \(SystemError(code: -code))")
        }
    }

    /// The seccomp filter, as a layer.
    private static func seccomp(_ settings: WorkerSandboxSettings, watchdog: CPUWatchdog?) -> SandboxLayer {
        guard settings.seccomp else { return SandboxLayer("seccomp", .missing, "turned off by the host's settings") }
        var options = tidings_seccomp_options()
        options.struct_size = UInt32(MemoryLayout<tidings_seccomp_options>.size)
        options.allow_network = settings.allowNetwork
        options.own_pid = getpid()
        options.guarded_timer = watchdog?.timer ?? -1
        let code = tidings_seccomp_install(&options)
        switch -code {
        case 0:
            return SandboxLayer("seccomp", .active,
                                "no ptrace, no signals or other calls on other processes (priority, affinity, scheduling, I/O priority, memory placement, SIGIO owner), no exec, no new namespaces or mounts, no shared memory, no sockets but socket pairs\(settings.allowNetwork ? " and the network's" : "")")
        case ENOSYS, EINVAL:
            return SandboxLayer("seccomp", .missing, "the kernel has no seccomp filters")
        default:
            return SandboxLayer("seccomp", .missing, "the filter could not be installed: \(SystemError(code: -code))")
        }
    }

    /// Calls `body` with `paths` as C rules, valid during the call.
    private static func withLandlockRules<Result>(_ paths: [WorkerSandboxSettings.PathRule],
                                                  _ body: (UnsafeBufferPointer<tidings_landlock_rule>) -> Result) -> Result {
        var storage: [CChar] = []
        let offsets = paths.map { rule -> Int in
            defer { storage.append(contentsOf: rule.path.utf8CString) }
            return storage.count
        }
        return storage.withUnsafeBufferPointer { characters in
            let rules = zip(paths, offsets).map { rule, offset in
                tidings_landlock_rule(path: characters.baseAddress! + offset,
                                      access: tidings_landlock_access(rawValue: UInt32(rule.access.rawValue)))
            }
            return rules.withUnsafeBufferPointer(body)
        }
    }

    // MARK: - Parts, tested on their own

    /// How many threads this process has (`Threads` of `/proc/self/status`); 0 when unknown.
    static func threadCount() -> Int {
        Int(ProcessStatus(of: "self")?.numbers("Threads").first ?? 0)
    }

    /// The data limit that leaves `allowance` bytes beyond `currentSize`:
    /// their sum, or `unlimited` when it does not fit.
    static func dataLimit(currentSize: UInt64, allowance: UInt64) -> UInt64 {
        let (sum, overflow) = currentSize.addingReportingOverflow(allowance)
        return overflow || sum >= unlimited ? unlimited : sum
    }

    /// `VmData` of this process now, in bytes: its private writable memory,
    /// as `RLIMIT_DATA` counts it.
    private static func currentDataSize() throws(SystemError) -> UInt64 {
        guard let status = ProcessStatus(of: "self") else { throw SystemError(code: EIO) }
        guard let size = status.bytes("VmData") else {
            throw SystemError(code: ENODATA)
        }
        return size
    }

    /// Sets `resource`'s soft and hard limits to `value`, or to the hard limit
    /// when that is lower, and returns what it set.
    /// The corresponding C functions are `getrlimit` and `setrlimit`.
    private static func setLimit(_ resource: __rlimit_resource, to value: UInt64) throws(SystemError) -> UInt64 {
        let which = __rlimit_resource_t(resource.rawValue)
        var limit = rlimit()
        guard getrlimit(which, &limit) == 0 else { throw SystemError.current() }
        let applied = UInt64(limit.rlim_max) == unlimited ? rlim_t(value) : min(rlim_t(value), limit.rlim_max)
        limit.rlim_cur = applied
        limit.rlim_max = applied
        guard setrlimit(which, &limit) == 0 else { throw SystemError.current() }
        return UInt64(applied)
    }

    /// Descriptors a worker may have open (`RLIMIT_NOFILE`).
    static let descriptorLimit: UInt64 = 256

    /// `RLIM_INFINITY`, `(rlim_t) -1`, which Swift imports as an overflowing literal.
    static let unlimited = UInt64.max
}
