import Synchronization
import TidingsBase
import TidingsRegistry

/// An extension served by worker processes, one at a time: it starts the
/// worker, restarts it with backoff after a fault, and quarantines the
/// bundle after `RestartPolicy.quarantineAfter` faults within its window,
/// until the bundle's library or manifest changes.
///
/// It never waits for a restart: while the worker is down (in its backoff,
/// or quarantined), making an instance fails at once with a diagnostic, and
/// the runtime shows the notification with its default content.
final class WorkerProvider: ExtensionProvider {
    private let bundle: ExtensionBundle
    private let extensionName: String
    private let settings: WorkerSettings
    private let ledger: FaultLedger?
    private let onFault: @Sendable (Diagnostic) -> Void
    private let state = Mutex(State())

    private struct State {
        var connection: WorkerConnection?
        var handlesResponses = false
        var handlesMedia = false
        /// When recent faults happened (monotonic nanoseconds), oldest first.
        var recentFaults: [UInt64] = []
        /// No start before this instant (monotonic nanoseconds).
        var restartAt: UInt64 = 0
        /// The bundle's files when it was quarantined; nil when it is not.
        var quarantine: [FaultLedger.FileStamp]?
    }

    /// Serves `bundle` from worker processes; starts the first one now,
    /// unless the ledger says the bundle is quarantined and its files have not changed.
    /// - Throws: why the first worker did not start (the library's load failure, say).
    init(bundle: ExtensionBundle, settings: WorkerSettings, ledger: FaultLedger?,
         onFault: @escaping @Sendable (Diagnostic) -> Void) throws(Diagnostic) {
        self.bundle = bundle
        extensionName = bundle.manifest?.bundleIdentifier ?? bundle.name
        self.settings = settings
        self.ledger = ledger
        self.onFault = onFault
        if let entry = ledger?.entries()[bundle.path] {
            if entry.isQuarantined {
                state.withLock { $0.quarantine = entry.quarantinedFiles }
                return
            }
            // Faults other hosts (earlier one-shot commands) recorded within the window count too.
            let (wallNow, now) = (FaultLedger.now, MonotonicClock.now())
            let recent = entry.faults.compactMap { record -> UInt64? in
                let age = UInt64(max(0, wallNow - record.time) * 1e9)
                return age < UInt64(settings.restarts.window * 1e9) && age < now ? now - age : nil
            }
            state.withLock { $0.recentFaults = recent }
        }
        let connection = try start()
        state.withLock { state in
            state.connection = connection
            (state.handlesResponses, state.handlesMedia) = (connection.handlesResponses, connection.handlesMedia)
        }
    }

    var handlesResponses: Bool { state.withLock { $0.handlesResponses } }

    var handlesMedia: Bool { state.withLock { $0.handlesMedia } }

    func makeInstance(context: InstanceContext) throws(Diagnostic) -> any ExtensionInstance {
        try connection().makeInstance(context: context)
    }

    func noteFault(_ diagnostic: Diagnostic) {
        let reports = state.withLock { note(WorkerFault(.completion, diagnostic), in: &$0) }
        for report in reports { onFault(report) }
    }

    /// The running worker, started when none runs and the backoff allows.
    /// - Throws: `worker.quarantined` or `worker.restarting` while it may
    ///   not start, or why a start failed (itself a fault).
    private func connection() throws(Diagnostic) -> WorkerConnection {
        var reports: [Diagnostic] = []
        defer { for report in reports { onFault(report) } }
        return try state.withLock { (state: inout State) throws(Diagnostic) -> WorkerConnection in
            if let files = state.quarantine {
                guard FaultLedger.stamps(of: files.map(\.path)) != files else {
                    throw .error(.workerQuarantined,
                                 "\(extensionName) is quarantined after repeated faults until its library or manifest changes; the notification shows its default content.")
                }
                state.quarantine = nil
                state.recentFaults = []
                state.restartAt = 0
                ledger?.lift(bundle.path, identifier: extensionName)
                reports.append(.note(.workerQuarantined, "\(extensionName)'s files changed: its quarantine is lifted."))
            }
            if let running = state.connection, running.isRunning { return running }
            let now = MonotonicClock.now()
            if now < state.restartAt {
                let milliseconds = (state.restartAt - now + 999_999) / 1_000_000
                throw .error(.workerRestarting,
                             "\(extensionName) restarts in \(milliseconds) ms after a fault; the notification shows its default content.")
            }
            do throws(Diagnostic) {
                let started = try start()
                state.connection = started
                (state.handlesResponses, state.handlesMedia) = (started.handlesResponses, started.handlesMedia)
                return started
            } catch {
                reports += note(WorkerFault(.launch, error), in: &state)
                throw error
            }
        }
    }

    /// Starts a worker whose end comes back to `ended(with:)`.
    private func start() throws(Diagnostic) -> WorkerConnection {
        try WorkerConnection.start(bundle, settings: settings, onEnd: { [weak self] fault in
            if let fault { self?.ended(with: fault) }
        }, onReport: onFault)
    }

    /// A worker ended with `fault`.
    private func ended(with fault: WorkerFault) {
        let reports = state.withLock { note(fault, in: &$0) }
        for report in reports { onFault(report) }
    }

    /// Counts `fault`: records it, sets the backoff, or quarantines the
    /// bundle (ending a worker that still runs). Returns what to report.
    private func note(_ fault: WorkerFault, in state: inout State) -> [Diagnostic] {
        let policy = settings.restarts
        let now = MonotonicClock.now()
        let window = UInt64(policy.window * 1e9)
        state.recentFaults.removeAll { now - $0 > window }
        state.recentFaults.append(now)
        let count = state.recentFaults.count
        var reports = [fault.diagnostic]
        var quarantined: [FaultLedger.FileStamp]?
        if state.quarantine == nil && count >= policy.quarantineAfter {
            quarantined = FaultLedger.stamps(of: FaultLedger.files(of: bundle))
            state.quarantine = quarantined
            state.connection?.retire()
            reports.append(.error(.workerQuarantined,
                                  "\(extensionName) is quarantined after \(count) faults within \(Int(policy.window)) s (the last: \(fault.kind.rawValue)); its notifications show their default content until its library or manifest changes."))
        } else if !fault.kind.leavesWorkerRunning {
            let wait = policy.backoff(afterFaults: count)
            state.restartAt = now + UInt64(wait * 1e9)
            reports.append(.note(.workerRestarting,
                                 "\(extensionName)'s worker restarts in \(Int((wait * 1000).rounded())) ms (fault \(count) of \(policy.quarantineAfter) within \(Int(policy.window)) s)."))
        }
        ledger?.record(fault, bundle: bundle.path, identifier: extensionName, quarantineFiles: quarantined)
        return reports
    }
}
