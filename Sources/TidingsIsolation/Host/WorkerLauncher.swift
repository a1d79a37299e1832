import TidingsBase
import TidingsRuntime
import TidingsRegistry

/// Starts each bundle's extension in a worker process of its own (the
/// `tidings` binary, re-executed with its `worker` command), which a crash,
/// a hang or a runaway allocation takes down instead of the host.
package struct WorkerLauncher: ExtensionLauncher {
    /// How workers are started and limited.
    package var settings: WorkerSettings
    /// Where faults and quarantines are recorded; nil records nothing.
    package var ledger: FaultLedger?
    /// Told of what happens outside any call: faults of workers that died
    /// between calls, restarts and quarantines, the output extensions wrote.
    package var onFault: @Sendable (Diagnostic) -> Void
    /// Bundles whose workers may reach the network (by identifier or bundle name); none by default.
    package var networkGranted: Set<String> = []
    /// Starts its workers and remembers what this machine does not allow; shared by copies.
    private let sandboxes = SandboxBuilder()
    /// The warm workers of its content extensions (`settings.pool` bounds them); shared by copies.
    private let pool = WorkerPool()

    /// A launcher with `settings`, recording in `ledger` and reporting to `onFault`.
    package init(settings: WorkerSettings, ledger: FaultLedger? = nil,
                 onFault: @escaping @Sendable (Diagnostic) -> Void = { _ in }) {
        self.settings = settings
        self.ledger = ledger
        self.onFault = onFault
    }

    /// The layers of the sandbox its workers get on this machine (probed once per launcher and its copies).
    package var sandboxLayers: [SandboxLayer] {
        sandboxes.layers(for: settings)
    }

    /// The idle workers kept for content extensions now, and the memory they hold.
    package var idleWorkers: WorkerPoolStatus {
        pool.status
    }

    package func launch(_ bundle: ExtensionBundle, for host: HostEndpoint) throws(Diagnostic) -> any ExtensionProvider {
        guard let manifest = bundle.manifest else {
            throw .error(.bundleManifestMissing, "\(bundle.name) has no valid manifest.", at: .init(file: bundle.path))
        }
        let network = networkGranted.contains(manifest.bundleIdentifier) || networkGranted.contains(bundle.name)
        // What a report says nowhere else, it says here: which bundle (and so which app) it is about.
        let onFault = self.onFault
        return try WorkerProvider(bundle: bundle, for: host, settings: settings, sandboxes: sandboxes, pool: pool,
                                  ledger: ledger,
                                  network: network) { report in
            var located = report
            if located.location.file == nil { located.location.file = bundle.path }
            onFault(located)
        }
    }
}
