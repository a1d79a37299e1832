import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// Starts workers in the strongest sandbox this machine allows, and
/// remembers what it does not allow (a kernel or session without user
/// namespaces, a cgroup that is not delegated), so that later workers go
/// straight to the fallback, and every fallback is reported as a weakened
/// or missing layer.
///
/// Owned by a `WorkerLauncher` (and shared by its copies and the providers
/// it makes): what it learnt goes with the launcher, and two launchers of
/// different settings each probe their own.
package final class SandboxBuilder: Sendable {
    /// A builder that knows nothing yet.
    package init() {}

    /// Why layers failed before, in this process; nil while untried or working.
    private struct Known {
        var namespaces: String?
        var view: String?
        var cgroup: String?
    }

    private let known = Mutex(Known())
    /// The layers a probe found, once.
    private let probed = Mutex<[SandboxLayer]?>(nil)

    /// The sandbox layers a worker started with `settings` gets on this
    /// machine, found once by a worker that serves no bundle.
    package func layers(for settings: WorkerSettings) -> [SandboxLayer] {
        if let known = probed.withLock({ $0 }) { return known }
        let found = WorkerConnection.probe(settings: settings, sandboxes: self)
        probed.withLock { $0 = found }
        return found
    }

    /// A worker's sandbox, started.
    package final class Started: Sendable {
        /// The sandbox's init (and through it, the worker).
        package let process: SandboxedProcess
        /// The worker's cgroup, if it has one.
        package let cgroup: WorkerCgroup?
        /// A private directory made for a worker without a view, removed by
        /// its init (and by `cleanUp()`); the host watches how much is in it.
        package let scratchDirectory: String?
        /// The layers the host put in place (the worker adds its own).
        package let layers: [SandboxLayer]
        /// What the worker is to do to itself (`hello`).
        package let settings: WorkerSandboxSettings
        /// The bundle's path as the worker reaches it.
        package let bundlePath: String

        fileprivate init(process: SandboxedProcess, cgroup: WorkerCgroup?, scratchDirectory: String?,
                         layers: [SandboxLayer], settings: WorkerSandboxSettings, bundlePath: String) {
            self.process = process
            self.cgroup = cgroup
            self.scratchDirectory = scratchDirectory
            self.layers = layers
            self.settings = settings
            self.bundlePath = bundlePath
        }

        /// Removes what the sandbox left once it ended: its cgroup, its private directory.
        package func cleanUp() {
            cgroup?.remove()
            if let scratchDirectory { try? FileSystem.removeTree(scratchDirectory) }
        }
    }

    /// What a sandbox needs besides the bundle: the worker program, its
    /// limits, and whether the network is granted.
    package struct Plan: Sendable {
        package var executable: String
        package var bundle: String
        package var network = false
        package var settings: WorkerSettings

        package init(executable: String, bundle: String, network: Bool, settings: WorkerSettings) {
            self.executable = executable
            self.bundle = bundle
            self.network = network
            self.settings = settings
        }
    }

    /// Starts `plan.executable worker` with `channel` as its descriptor 3 and
    /// `output` as its 1 and 2, in a sandbox; a layer the machine refuses is
    /// left out (and remembered, and reported) and the start tried again.
    /// - Throws: why the worker itself could not be started.
    package func start(_ plan: Plan, channel: Int32, output: Int32) throws(SandboxedProcess.SpawnFailure) -> Started {
        while true {
            let known = self.known.withLock { $0 }
            let useNamespaces = plan.settings.sandbox.namespaces && known.namespaces == nil
            let useView = useNamespaces && plan.settings.sandbox.fileSystemView && known.view == nil
            var cgroup: WorkerCgroup?
            var cgroupMissing = known.cgroup ?? (plan.settings.sandbox.cgroup ? nil : "turned off by the host's settings")
            if cgroupMissing == nil && plan.settings.memoryLimit > 0 {
                switch WorkerCgroup.make(memoryLimit: cgroupLimit(plan.settings)) {
                case .success(let made): cgroup = made
                case .failure(let unavailable):
                    cgroupMissing = unavailable.reason
                    self.known.withLock { $0.cgroup = unavailable.reason }
                }
            }
            let (user, group) = Self.identity
            var scratchDirectory: String?
            var sandbox = WorkerSandboxSettings()
            sandbox.allowNetwork = plan.network
            sandbox.seccomp = plan.settings.sandbox.seccomp
            sandbox.memoryLimit = plan.settings.memoryLimit
            sandbox.cpuTimePerCall = plan.settings.cpuTimePerCall
            sandbox.cpuTimeTotal = plan.settings.cpuTimeTotal
            sandbox.scratchSize = plan.settings.scratchSize
            var request = SpawnRequest(executable: plan.executable, arguments: ["worker"],
                                       environment: Self.environment(scratch: "/tmp"), channel: channel, user: user,
                                       group: group)
            request.output = output
            let tasks = TaskLimit.resourceLimit(userNamespace: useNamespaces, user: user)
            request.taskLimit = tasks.limit
            if useNamespaces {
                request.namespaces = [.user, .pid, .ipc, .uts]
                if !plan.network { request.namespaces.insert(.network) }
            }
            let runtime = SandboxView.runtimeDirectory
            var bundlePath = plan.bundle
            var bundleDirectory: Int32 = -1
            if useView {
                let view = SandboxView.make(bundle: plan.bundle, executable: plan.executable, runtime: runtime,
                                            network: plan.network, scratchSize: plan.settings.scratchSize)
                request.namespaces.insert(.mount)
                request.mounts = view.mounts
                sandbox.paths = plan.settings.sandbox.landlock ? view.rules : []
                sandbox.scratch = "/tmp"
            } else {
                let directory = Self.makeScratchDirectory(owner: user, group: group)
                scratchDirectory = directory
                request.removeWhenDone = directory
                let scratch = directory ?? "/nonexistent"
                request.environment = Self.environment(scratch: scratch)
                sandbox.scratch = scratch
                if geteuid() == 0 && !plan.bundle.isEmpty {
                    // A root host's worker runs as nobody, whom the bundle's parents may shut out: it gets the
                    // bundle's directory as a descriptor and reaches it through that.
                    bundleDirectory = open(plan.bundle, TIDINGS_O_PATH | O_DIRECTORY | O_CLOEXEC)
                    if bundleDirectory >= 0 { bundlePath = WorkerProcess.bundleDescriptorPath }
                }
                sandbox.paths = !plan.settings.sandbox.landlock ? [] : SandboxView.rulesWithoutView(
                    bundle: bundlePath, executable: plan.executable, runtime: runtime, network: plan.network,
                    scratch: scratch)
            }
            request.bundleDirectory = bundleDirectory
            defer { if bundleDirectory >= 0 { close(bundleDirectory) } }
            let prepared = request
            let spawn = { @Sendable (directory: Int32) -> Result<SandboxedProcess, SandboxedProcess.SpawnFailure> in
                var request = prepared
                request.cgroupDirectory = directory
                do throws(SandboxedProcess.SpawnFailure) {
                    return .success(try SandboxedProcess.spawn(request))
                } catch {
                    return .failure(error)
                }
            }
            let started = cgroup.map { $0.start(spawn) } ?? spawn(-1)
            switch started {
            case .success(let process):
                var layers = Self.layers(namespaces: request.namespaces, view: useView, network: plan.network,
                                         cgroup: cgroup, known: self.known.withLock { $0 },
                                         cgroupMissing: cgroupMissing, settings: plan.settings,
                                         scratch: sandbox.scratch)
                layers.append(TaskLimit.layer(userNamespace: request.namespaces.contains(.user), cgroup: cgroup,
                                              user: user, counted: tasks.counted))
                return Started(process: process, cgroup: cgroup, scratchDirectory: scratchDirectory, layers: layers,
                               settings: sandbox, bundlePath: bundlePath)
            case .failure(let failure):
                cgroup?.remove()
                if let scratchDirectory { try? FileSystem.removeTree(scratchDirectory) }
                let reason = failure.description
                switch failure.step {
                case .clone where !request.namespaces.isEmpty, .idMap:
                    self.known.withLock { $0.namespaces = reason }
                case .mountSource, .mount, .pivot:
                    self.known.withLock { $0.view = reason }
                case .clone where cgroup != nil:
                    self.known.withLock { $0.cgroup = reason }
                default:
                    throw failure
                }
            }
        }
    }

    /// The cgroup's memory limit for a worker whose extension may use
    /// `settings.memoryLimit`: that, the private /tmp, and the worker's own
    /// footprint (the Swift runtime and the tidings binary, about 20 MiB resident).
    private func cgroupLimit(_ settings: WorkerSettings) -> UInt64 {
        settings.memoryLimit + settings.scratchSize + WorkerSettings.workerFootprint
    }

    /// The user and group a worker runs as: nobody when the host is root
    /// (a sandbox needs no privilege, and root's files stay out of reach),
    /// else the host's own.
    static var identity: (uid_t, gid_t) {
        geteuid() == 0 ? (65534, 65534) : (geteuid(), getegid())
    }

    /// The worker's environment: none of the host's (which may hold secrets)
    /// but its language and time zone; its home and temporary directory are
    /// its private scratch directory; no backtracer (a crash is the host's to report, at once).
    static func environment(scratch: String) -> [String] {
        var entries = ["SWIFT_BACKTRACE=enable=no", "PATH=/usr/bin:/bin", "HOME=\(scratch)", "TMPDIR=\(scratch)"]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if text.hasPrefix("LANG=") || text.hasPrefix("LC_") || text.hasPrefix("TZ=") { entries.append(text) }
            cursor += 1
        }
        return entries
    }

    /// Where scratch directories of workers without a view of their own are made.
    static let scratchBase = "/tmp"

    /// A new private directory for a worker without a view of its own,
    /// 0700, owned by the worker's user, named after this host
    /// (`tidings-worker-PID-XXXXXX`, so that those of hosts that are gone are
    /// known and removed); nil when none can be made. The sandbox's init
    /// removes it when the worker ends.
    private static func makeScratchDirectory(owner: uid_t, group: gid_t) -> String? {
        removeStaleScratchDirectories
        let base = scratchBase
        var template = Array(Path.join(base, "tidings-worker-\(getpid())-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let path = String(cString: made)
        if geteuid() == 0 { _ = chown(path, owner, group) }
        return path
    }

    /// Removes, once per process, the scratch directories of hosts that are
    /// gone (their inits remove their own, unless killed first).
    private static let removeStaleScratchDirectories: Void = {
        for name in (try? FileSystem.contentsOfDirectory(scratchBase)) ?? [] where name.hasPrefix("tidings-worker-") {
            let rest = name.dropFirst("tidings-worker-".count)
            guard let pid = Int32(rest.prefix { $0.isNumber }), pid != getpid(),
                  kill(pid, 0) != 0 && errno == ESRCH
            else { continue }
            try? FileSystem.removeTree(Path.join(scratchBase, name))
        }
    }()

    /// The layers the host put in place, or could not.
    private static func layers(namespaces: SpawnRequest.Namespaces, view: Bool, network: Bool, cgroup: WorkerCgroup?,
                               known: Known, cgroupMissing: String?, settings: WorkerSettings,
                               scratch: String) -> [SandboxLayer] {
        var layers: [SandboxLayer] = []
        if namespaces.isEmpty {
            layers.append(SandboxLayer("namespaces", .missing,
                                       known.namespaces.map { "none: \($0)" } ?? "none: turned off by the host's settings"))
            layers.append(SandboxLayer("processes", .weakened,
                                       "no PID namespace: the sandbox's init, as subreaper, kills what the worker leaves behind"))
        } else {
            layers.append(SandboxLayer("namespaces", .active, "\(namespaces.names) namespaces"))
            layers.append(SandboxLayer("processes", .active,
                                       "a PID namespace of its own: nothing the worker starts outlives it"))
        }
        if view {
            layers.append(SandboxLayer("filesystem", .active,
                                       "a read-only view of the system's libraries, the Swift runtime and the bundle; a private /tmp of \(settings.scratchSize >> 20) MiB"))
        } else {
            layers.append(SandboxLayer("filesystem", .weakened,
                                       "no view of its own (\(known.view ?? known.namespaces ?? "turned off by the host's settings")): Landlock alone fences the file system; private directory \(scratch)"))
        }
        if network {
            layers.append(SandboxLayer("network", .weakened, "granted by the host's configuration"))
        } else {
            layers.append(SandboxLayer("network", .active,
                                       namespaces.contains(.network) ? "none: an empty network namespace, and no sockets but socket pairs"
                                                                     : "no sockets but socket pairs (seccomp)"))
        }
        // A sanitized build's runtime shares the limit with the extension.
        let sanitizer = Sanitizer.current.map { "; this build's \($0.rawValue) uses part of it" } ?? ""
        if let cgroup {
            layers.append(SandboxLayer("memory", .active, cgroup.summary + sanitizer))
        } else if settings.memoryLimit > 0 {
            layers.append(SandboxLayer("memory", .weakened,
                                       "no cgroup (\(cgroupMissing ?? "unknown")): RLIMIT_DATA of \(settings.memoryLimit >> 20) MiB, no process but its own, \(WorkerSandbox.descriptorLimit) descriptors, no larger socket buffers; memfd, shared anonymous memory and System V IPC refused; its scratch space \(settings.scratchSize >> 20) MiB\(sanitizer)"))
        } else {
            layers.append(SandboxLayer("memory", .missing, "no memory limit: turned off by the host's settings"))
        }
        return layers
    }
}
