import TidingsBase
import TidingsRuntime
import TidingsRegistry

/// Where each extension runs, and the limits of those that run in workers:
/// the host's `--isolation` option, over the host's configuration file
/// (`$XDG_CONFIG_HOME/tidings/config.json`):
///
/// ```json
/// {
///   "isolation": "process",
///   "limits": {"memory-mib": 64, "cpu-seconds-per-call": 2, "call-timeout": 10,
///              "attachments-per-notification-mib": 64, "attachments-per-notification": 32},
///   "sandbox": {"namespaces": true, "filesystem-view": true, "cgroup": true, "landlock": true, "seccomp": true},
///   "bundles": {"com.example.trusted.content": {"isolation": "in-process"},
///               "com.example.weather.content": {"network": true}}
/// }
/// ```
///
/// A bundle is named by its identifier or its directory's name; its entry
/// wins over the default. A worker reaches no network unless its bundle's
/// entry grants it.
package struct IsolationPolicy: Sendable, Equatable {
    /// Where an extension runs.
    package enum Mode: String, Sendable, CaseIterable {
        /// In the host's own address space: fastest; a crash takes the host down.
        case inProcess = "in-process"
        /// In a worker process of its own.
        case process
    }

    /// The mode of bundles without an entry of their own.
    package var defaultMode = Mode.process
    /// Modes of single bundles, by identifier or bundle name.
    package var bundles: [String: Mode] = [:]
    /// Bundles whose workers may reach the network, by identifier or bundle name.
    package var networkGranted: Set<String> = []
    /// Bytes a worker's extension may allocate; nil keeps the default.
    package var memoryLimit: UInt64?
    /// CPU seconds per call; nil keeps the default.
    package var cpuTimePerCall: Double?
    /// Seconds per call before a worker counts as hung; nil keeps the default.
    package var callTimeout: Double?
    /// What the attachment store keeps per notification, bundle and app
    /// (`limits`' `attachments-*` members; the defaults otherwise).
    package var attachmentQuota = AttachmentQuota()
    /// Which sandbox layers workers may use (all, by default; each still only where the machine allows it).
    package var sandbox = SandboxRequirements()

    package init() {}

    /// The mode of `bundle`.
    package func mode(for bundle: ExtensionBundle) -> Mode {
        bundle.manifest.flatMap { bundles[$0.bundleIdentifier] } ?? bundles[bundle.name] ?? defaultMode
    }

    /// `settings` with this policy's limits.
    package func applied(to settings: WorkerSettings) -> WorkerSettings {
        var settings = settings
        if let memoryLimit { settings.memoryLimit = memoryLimit }
        if let cpuTimePerCall { settings.cpuTimePerCall = cpuTimePerCall }
        if let callTimeout { settings.callTimeout = callTimeout }
        settings.sandbox = sandbox
        return settings
    }

    /// The configuration file in `environment`; nil without a config directory.
    package static func standardPath(in environment: [String: String]) -> String? {
        BaseDirectory.config.path(in: environment).map { Path.join($0, "tidings/config.json") }
    }

    /// The policy the file at `path` sets; the defaults when there is no file.
    ///
    /// The policy decides how far extensions are trusted, so the file and
    /// its directory must be the user's own, writable by no one else, and
    /// the file a regular file, not a link (see `FileDescriptor(openingOwn:as:)`).
    /// - Throws: the file's first error (not JSON, an unknown mode, a limit
    ///   out of range), or why the file or its directory is refused.
    package static func load(from path: String) throws(Diagnostic) -> IsolationPolicy {
        let bytes: [UInt8]
        do throws(Diagnostic) {
            _ = try FileDescriptor(openingOwn: Path.directory(of: path), as: .directory)
            bytes = try FileSystem.readFile(path, limit: 1 << 20, own: true)
        } catch where error.code == .fileNotFound {
            return IsolationPolicy()
        }
        let json = try JSON.parse(bytes, file: path)
        var reader = JSONFieldReader(file: path, invalidCode: .configurationInvalid, unknownMemberCode: .configurationUnknownKey)
        var policy = IsolationPolicy()
        if let members = reader.object(json, at: []) {
            reader.checkMembers(members, allowed: ["isolation", "limits", "sandbox", "bundles"], at: [])
        }
        if let mode: Mode = reader.choice(json["isolation"], at: ["isolation"]) { policy.defaultMode = mode }
        if let limits = json["limits"], let members = reader.object(limits, at: ["limits"]) {
            reader.checkMembers(members, allowed: ["memory-mib", "cpu-seconds-per-call", "call-timeout"]
                                    + AttachmentQuotaKeys.names, at: ["limits"])
            AttachmentQuotaKeys.read(limits, with: &reader, into: &policy.attachmentQuota)
            if let mebibytes = reader.number(limits["memory-mib"], at: ["limits", "memory-mib"], in: 0...1_048_576) {
                policy.memoryLimit = UInt64(mebibytes * 1_048_576)
            }
            policy.cpuTimePerCall = reader.number(limits["cpu-seconds-per-call"], at: ["limits", "cpu-seconds-per-call"],
                                                  in: 0...3600)
            policy.callTimeout = reader.number(limits["call-timeout"], at: ["limits", "call-timeout"], in: 0.01...3600)
        }
        if let sandbox = json["sandbox"], let members = reader.object(sandbox, at: ["sandbox"]) {
            reader.checkMembers(members, allowed: ["namespaces", "filesystem-view", "cgroup", "landlock", "seccomp"],
                                at: ["sandbox"])
            if let on = reader.bool(sandbox["namespaces"], at: ["sandbox", "namespaces"]) { policy.sandbox.namespaces = on }
            if let on = reader.bool(sandbox["filesystem-view"], at: ["sandbox", "filesystem-view"]) {
                policy.sandbox.fileSystemView = on
            }
            if let on = reader.bool(sandbox["cgroup"], at: ["sandbox", "cgroup"]) { policy.sandbox.cgroup = on }
            if let on = reader.bool(sandbox["landlock"], at: ["sandbox", "landlock"]) { policy.sandbox.landlock = on }
            if let on = reader.bool(sandbox["seccomp"], at: ["sandbox", "seccomp"]) { policy.sandbox.seccomp = on }
        }
        if let bundles = json["bundles"], let members = reader.object(bundles, at: ["bundles"]) {
            for (name, entry) in members {
                if let fields = reader.object(entry, at: ["bundles", name]) {
                    reader.checkMembers(fields, allowed: ["isolation", "network"], at: ["bundles", name])
                }
                if let mode: Mode = reader.choice(entry["isolation"], at: ["bundles", name, "isolation"]) {
                    policy.bundles[name] = mode
                }
                if reader.bool(entry["network"], at: ["bundles", name, "network"]) == true {
                    policy.networkGranted.insert(name)
                }
            }
        }
        if let failure = reader.diagnostics.first(where: { $0.severity == .error }) { throw failure }
        return policy
    }
}

/// Starts each extension where the policy says: in this process or in a worker.
package struct IsolatingLauncher: ExtensionLauncher {
    /// Where each bundle runs.
    package var policy: IsolationPolicy
    /// How workers are started (the policy's limits already applied).
    package var workers: WorkerLauncher

    /// A launcher following `policy`, starting workers with `workers`.
    package init(policy: IsolationPolicy, workers: WorkerLauncher) {
        self.policy = policy
        self.workers = workers
        self.workers.settings = policy.applied(to: workers.settings)
        self.workers.networkGranted = policy.networkGranted
    }

    package func launch(_ bundle: ExtensionBundle, for host: HostEndpoint) throws(Diagnostic) -> any ExtensionProvider {
        switch policy.mode(for: bundle) {
        case .inProcess: try InProcessLauncher().launch(bundle, for: host)
        case .process: try workers.launch(bundle, for: host)
        }
    }
}

extension Diagnostic.Code {
    /// The host's configuration file has a value of the wrong type or range.
    package static let configurationInvalid = Self("config.invalid")
    /// The host's configuration file has a key Tidings does not know.
    package static let configurationUnknownKey = Self("config.unknown-key")
}
