import Synchronization
import TidingsBase
import TidingsRuntime
import TidingsRegistry

/// An extension served by worker processes, one at a time: it starts the
/// worker, restarts it with backoff after a fault, and quarantines the
/// bundle after `RestartPolicy.quarantineAfter` faults within its window,
/// until the content of the bundle's library or manifest changes. A fault
/// ledger that cannot be read keeps the bundle quarantined until it can.
///
/// It never waits for a restart: while the worker is down (in its backoff,
/// or quarantined), making an instance fails at once with a diagnostic, and
/// the runtime shows the notification with its default content.
///
/// A content extension's instances (its opened interfaces) each get a
/// worker of their own, one instance at a time — unless its manifest says
/// `TidingsSharedWorker`, when they all share one, as a service extension's
/// do. As on iOS, a worker lives on across notifications: when an
/// interface closes, its worker goes back to the host's `WorkerPool` for
/// the bundle's next one (its globals live on, its instance's state does
/// not), and when the bundle has no idle worker left after an open, a spare
/// starts in the background, so that an open costs no cold start. With the
/// pool off (`WorkerPoolSettings.off`), each worker ends with its instance.
/// When the bundle is quarantined, every worker of its that still runs ends;
/// when it is replaced or removed (`retire()`), its idle workers end, its
/// busy ones end with their instances, and a new provider serves the new version.
/// Its workers' lines in the host's log share one rate (`BundleReports`).
final class WorkerProvider: ExtensionProvider {
    private let bundle: ExtensionBundle
    /// The host its workers serve.
    private let host: HostEndpoint
    private let extensionName: String
    private let settings: WorkerSettings
    /// Starts its workers: its launcher's.
    private let sandboxes: SandboxBuilder
    private let ledger: FaultLedger?
    /// The digests of the bundle's files, remembered while they stay the same: its quarantine is checked at every start.
    private let contentDigests = ContentDigests()
    /// The bundle's policy grants it the network.
    private let network: Bool
    /// Each instance gets a worker of its own (see the type's summary).
    private let workerPerInstance: Bool
    /// The host's idle workers, where this bundle's wait between instances
    /// when `pooled`; shared by every bundle of the launcher.
    private let pool: WorkerPool
    /// Its instances' workers go back to the pool (a worker per instance, and a pool that keeps some).
    private let pooled: Bool
    /// Its workers' key in the pool: unique in the process, never reused by another provider.
    private let poolKey = WorkerPool.newKey()
    private let onFault: @Sendable (Diagnostic) -> Void
    /// The bundle's lines in the host's log: its workers' output and reports, at one rate.
    private let reports: BundleReports
    private let state = Mutex(State())

    /// Why the bundle is quarantined.
    private enum Quarantine {
        /// After repeated faults; lifted when these files' content changes.
        case faults([FaultLedger.FileDigest])
        /// The fault ledger cannot be read; lifted when it can.
        case ledgerDamaged(String)
    }

    private struct State {
        var connection: WorkerConnection?
        /// Every worker of the bundle's that may still run (with a worker per
        /// instance, there are several), by start: a quarantine ends them all.
        var running: [Int: WorkerConnection] = [:]
        /// The number of the next start.
        var nextStart = 0
        /// An instance was made in `connection`: with a worker per instance,
        /// the next one gets another worker.
        var connectionTaken = false
        /// A spare is starting in the background for the pool.
        var startingSpare = false
        var handlesResponses = false
        var handlesMedia = false
        var handlesElementEvents = false
        /// When recent faults happened (monotonic nanoseconds), oldest first.
        var recentFaults: [UInt64] = []
        /// No start before this instant (monotonic nanoseconds).
        var restartAt: UInt64 = 0
        /// Set while the bundle is quarantined.
        var quarantine: Quarantine?
        /// The bundle was replaced or removed: no worker of this provider's goes to the pool any more.
        var retired = false

        /// Takes what the extension handles from what `connection`'s worker said.
        mutating func handles(as connection: WorkerConnection) {
            (handlesResponses, handlesMedia, handlesElementEvents) =
                (connection.handlesResponses, connection.handlesMedia, connection.handlesElementEvents)
        }
    }

    /// Serves `bundle` to `host` from worker processes; starts the first one now,
    /// unless the ledger says the bundle is quarantined and its files have not changed.
    /// - Throws: why the first worker did not start (the library's load failure, say).
    init(bundle: ExtensionBundle, for host: HostEndpoint, settings: WorkerSettings, sandboxes: SandboxBuilder,
         pool: WorkerPool, ledger: FaultLedger?, network: Bool,
         onFault: @escaping @Sendable (Diagnostic) -> Void) throws(Diagnostic) {
        self.bundle = bundle
        self.host = host
        extensionName = bundle.manifest?.bundleIdentifier ?? bundle.name
        self.settings = settings
        self.sandboxes = sandboxes
        self.ledger = ledger
        self.network = network
        workerPerInstance = bundle.manifest.map { $0.point == .content && !$0.sharedWorker } ?? false
        self.pool = pool
        pooled = workerPerInstance && settings.pool.keepsWorkers
        self.onFault = onFault
        reports = BundleReports(bundle: extensionName)
        var entry: FaultLedger.Entry?
        switch ledger?.read() {
        case .damaged(let reason)?:
            state.withLock { $0.quarantine = .ledgerDamaged(reason) }
            onFault(Self.damagedLedger(reason, extensionName: extensionName))
            return
        case .entries(let entries)?:
            entry = entries[bundle.path]
        case nil:
            break
        }
        if let entry {
            if entry.isQuarantined {
                state.withLock { $0.quarantine = .faults(entry.quarantinedFiles) }
                return
            }
            // Faults other hosts (earlier one-shot commands) recorded within the window count too.
            let (wallNow, now) = (FaultLedger.now, MonotonicClock.now())
            let recent = entry.faults.compactMap { record -> UInt64? in
                // The ledger is a file: a planted time makes an age that saturates rather than traps.
                let age = CheckedNumbers.nanoseconds(wallNow - record.time)
                return age < CheckedNumbers.nanoseconds(settings.restarts.window) && age < now ? now - age : nil
            }
            state.withLock { $0.recentFaults = recent }
        }
        try state.withLock { (state: inout State) throws(Diagnostic) in
            let connection = try start(in: &state)
            state.connection = connection
            state.handles(as: connection)
        }
        // The first worker waits in the pool for the first interface.
        if pooled, let first = state.withLock({ state in defer { state.connection = nil }; return state.connection }) {
            pool.keep(first, number: 0, for: poolKey, destroy: nil, limits: settings.pool)
        }
    }

    /// The host let go of the extension (it was replaced, or the host is
    /// gone): its worker goes too, with everything it started.
    deinit {
        pool.removeAll(for: poolKey)
        for connection in state.withLock({ Array($0.running.values) + [$0.connection].compactMap { $0 } }) {
            connection.retire()
        }
    }

    var handlesResponses: Bool { state.withLock { $0.handlesResponses } }

    var handlesMedia: Bool { state.withLock { $0.handlesMedia } }

    var handlesElementEvents: Bool { state.withLock { $0.handlesElementEvents } }

    func makeInstance(context: InstanceContext) throws(Diagnostic) -> any ExtensionInstance {
        guard pooled else { return try connection().makeInstance(context: context, owningWorker: workerPerInstance) }
        let (connection, number) = try warmConnection()
        let instance = try connection.makeInstance(context: context)
        instance.returnsWorker { [weak self] destroy in
            // A bundle replaced meanwhile keeps no worker.
            guard let self else { return connection.retire() }
            keep(connection, number: number, destroy: destroy)
        }
        return instance
    }

    /// The bundle was replaced or removed: its idle workers end now, its
    /// busy ones when their instances do, and no spare starts; the runtime
    /// launches the new version in a provider of its own.
    func retire() -> Bool {
        state.withLock { state in
            state.retired = true
            pool.removeAll(for: poolKey)
        }
        return true
    }

    /// Puts worker `number` in the pool for the bundle's next instance
    /// (`destroy`: its last instance's, nil for a spare); one of a bundle
    /// replaced meanwhile ends instead. Under the lock, so that `retire()`
    /// finds every worker kept before it and none is kept after.
    private func keep(_ connection: WorkerConnection, number: Int, destroy: WorkerConnection.PostedCall?) {
        let kept = state.withLock { state in
            guard !state.retired else { return false }
            pool.keep(connection, number: number, for: poolKey, destroy: destroy, limits: settings.pool)
            return true
        }
        if !kept { connection.retire() }
    }

    func noteFault(_ diagnostic: Diagnostic) {
        let reports = state.withLock { note(WorkerFault(noted: diagnostic), in: &$0) }
        for report in reports { onFault(report) }
    }

    /// The running worker, started when none runs and the backoff allows.
    /// - Throws: `worker.quarantined` or `worker.restarting` while it may
    ///   not start, or why a start failed (itself a fault).
    private func connection() throws(Diagnostic) -> WorkerConnection {
        var reports: [Diagnostic] = []
        defer { for report in reports { onFault(report) } }
        return try state.withLock { (state: inout State) throws(Diagnostic) -> WorkerConnection in
            try admit(in: &state, reports: &reports)
            if let running = state.connection, running.isRunning, !(workerPerInstance && state.connectionTaken) {
                state.connectionTaken = workerPerInstance
                return running
            }
            try checkBackoff(in: state)
            do throws(Diagnostic) {
                let started = try start(in: &state)
                state.connection = started
                state.connectionTaken = workerPerInstance
                state.handles(as: started)
                return started
            } catch {
                reports += note(WorkerFault(.launch, error), in: &state)
                throw error
            }
        }
    }

    /// A worker of the pool's for one instance, or one started now when none
    /// is idle; either way, a spare starts in the background when the
    /// bundle has no idle worker left. Its start number comes along.
    /// - Throws: as `connection()` does.
    private func warmConnection() throws(Diagnostic) -> (WorkerConnection, Int) {
        var reports: [Diagnostic] = []
        defer { for report in reports { onFault(report) } }
        try state.withLock { (state: inout State) throws(Diagnostic) in
            try admit(in: &state, reports: &reports)
            try checkBackoff(in: state)
        }
        defer { startSpareIfNeeded() }
        if let warm = pool.take(for: poolKey) { return warm }
        do throws(Diagnostic) {
            return try startOutsideTheLock()
        } catch {
            reports += state.withLock { note(WorkerFault(.launch, error), in: &$0) }
            throw error
        }
    }

    /// Starts a spare worker in the background for the pool when the bundle
    /// has none idle and none is starting, and it may start (not
    /// quarantined, not waiting for a restart). At most one at a time.
    private func startSpareIfNeeded() {
        guard pool.count(for: poolKey) == 0 else { return }
        let mayStart = state.withLock { state in
            guard !state.startingSpare, !state.retired, state.quarantine == nil, MonotonicClock.now() >= state.restartAt
            else { return false }
            state.startingSpare = true
            return true
        }
        guard mayStart else { return }
        let started = Threads.start { [weak self] in
            guard let self else { return }
            defer { state.withLock { $0.startingSpare = false } }
            // A spare that does not start is no fault of an open's: the next open starts one and says why.
            guard let (spare, number) = try? startOutsideTheLock() else { return }
            keep(spare, number: number, destroy: nil)
        }
        if !started { state.withLock { $0.startingSpare = false } }
    }

    /// Starts a worker without holding the provider's lock (a start takes
    /// milliseconds, and other opens of the bundle need not wait for it);
    /// one that started as the bundle was quarantined ends at once.
    private func startOutsideTheLock() throws(Diagnostic) -> (WorkerConnection, Int) {
        let number = state.withLock { state in
            defer { state.nextStart += 1 }
            return state.nextStart
        }
        let connection = try WorkerConnection.start(
            bundle, for: host, settings: settings, sandboxes: sandboxes, network: network, reports: reports,
            onEnd: { [weak self] fault in self?.ended(number, with: fault) }, onReport: onFault)
        let quarantined = state.withLock { state in
            state.running = state.running.filter { $0.value.isRunning }
            if connection.isRunning && state.quarantine == nil { state.running[number] = connection }
            state.handles(as: connection)
            return state.quarantine != nil
        }
        if quarantined {
            connection.retire()
            throw .error(.workerQuarantined,
                         "\(extensionName) is quarantined after repeated faults until the content of its library or manifest changes; the notification shows its default content.")
        }
        return (connection, number)
    }

    /// Throws `worker.restarting` while the backoff after a fault lasts.
    private func checkBackoff(in state: State) throws(Diagnostic) {
        let now = MonotonicClock.now()
        if now < state.restartAt {
            let milliseconds = (state.restartAt - now + 999_999) / 1_000_000
            throw .error(.workerRestarting,
                         "\(extensionName) restarts in \(milliseconds) ms after a fault; the notification shows its default content.")
        }
    }

    /// Lets a worker start or serve unless the bundle is quarantined; lifts
    /// a quarantine whose reason is gone (its files changed, the ledger reads again).
    /// - Throws: `worker.quarantined` while it lasts.
    private func admit(in state: inout State, reports: inout [Diagnostic]) throws(Diagnostic) {
            switch state.quarantine {
            case .faults(let files)?:
                guard contentDigests.digests(of: files.map(\.path)) != files else {
                    throw .error(.workerQuarantined,
                                 "\(extensionName) is quarantined after repeated faults until the content of its library or manifest changes; the notification shows its default content.")
                }
                state.quarantine = nil
                state.recentFaults = []
                state.restartAt = 0
                ledger?.lift(bundle.path, identifier: extensionName)
                reports.append(.note(.workerQuarantined, "\(extensionName)'s files changed: its quarantine is lifted."))
            case .ledgerDamaged(let reason)?:
                guard case .entries(let entries)? = ledger?.read() else {
                    throw Self.damagedLedger(reason, extensionName: extensionName)
                }
                state.quarantine = nil
                if let entry = entries[bundle.path], entry.isQuarantined {
                    state.quarantine = .faults(entry.quarantinedFiles)
                    throw .error(.workerQuarantined,
                                 "\(extensionName) is quarantined after repeated faults until the content of its library or manifest changes; the notification shows its default content.")
                }
                reports.append(.note(.workerQuarantined, "The fault ledger can be read again: \(extensionName)'s quarantine is lifted."))
            case nil:
                break
            }
    }

    /// Starts a worker whose end comes back to `ended(with:)`, and keeps it
    /// among those running until then.
    private func start(in state: inout State) throws(Diagnostic) -> WorkerConnection {
        let number = state.nextStart
        state.nextStart += 1
        let connection = try WorkerConnection.start(
            bundle, for: host, settings: settings, sandboxes: sandboxes, network: network, reports: reports,
            onEnd: { [weak self] fault in self?.ended(number, with: fault) }, onReport: onFault)
        // One that ended already (its end told before it was kept) is not kept; nor those ended before.
        state.running = state.running.filter { $0.value.isRunning }
        if connection.isRunning { state.running[number] = connection }
        return connection
    }

    /// The sandbox layers of the worker running now; empty when none runs.
    var sandboxLayers: [SandboxLayer] {
        state.withLock { $0.connection?.layers ?? $0.running.values.first?.layers } ?? []
    }

    /// The diagnostic of a bundle held back by a damaged ledger.
    private static func damagedLedger(_ reason: String, extensionName: String) -> Diagnostic {
        .error(.workerQuarantined,
               "\(extensionName) stays quarantined while the fault ledger cannot be read (\(reason)); repair or remove the file to lift it. The notification shows its default content.")
    }

    /// Worker `number` ended, with `fault` when it was one.
    private func ended(_ number: Int, with fault: WorkerFault?) {
        pool.discard(number, of: poolKey)
        let reports = state.withLock { state in
            state.running[number] = nil
            return fault.map { note($0, in: &state) } ?? []
        }
        for report in reports { onFault(report) }
    }

    /// Counts `fault`: records it, sets the backoff, or quarantines the
    /// bundle (ending a worker that still runs). Returns what to report.
    private func note(_ fault: WorkerFault, in state: inout State) -> [Diagnostic] {
        let policy = settings.restarts
        let now = MonotonicClock.now()
        let window = CheckedNumbers.nanoseconds(policy.window)
        state.recentFaults.removeAll { now - $0 > window }
        state.recentFaults.append(now)
        let count = state.recentFaults.count
        var reports = [fault.diagnostic]
        var quarantined: [FaultLedger.FileDigest]?
        if state.quarantine == nil && count >= policy.quarantineAfter {
            let digests = contentDigests.digests(of: FaultLedger.files(of: bundle))
            quarantined = digests
            state.quarantine = .faults(digests)
            // Every worker of the bundle's ends now, not only the last started: with a worker per
            // opened interface, several may run.
            let quarantine = Diagnostic.error(
                .workerQuarantined,
                "\(extensionName) is quarantined after \(count) faults within \(NumberText.short(policy.window)) s (the last: \(fault.kind.rawValue)); its notifications show their default content until its library or manifest changes.")
            state.connection?.retire(because: quarantine)
            for connection in state.running.values { connection.retire(because: quarantine) }
            pool.removeAll(for: poolKey)
            reports.append(quarantine)
        } else if !fault.kind.leavesWorkerRunning {
            let wait = policy.backoff(afterFaults: count)
            state.restartAt = CheckedNumbers.instant(now, after: wait)
            reports.append(.note(.workerRestarting,
                                 "\(extensionName)'s worker restarts in \(Int(saturating: wait * 1000, .toNearestOrAwayFromZero)) ms (fault \(count) of \(policy.quarantineAfter) within \(NumberText.short(policy.window)) s)."))
        }
        ledger?.record(fault, bundle: bundle.path, identifier: extensionName, quarantineFiles: quarantined)
        return reports
    }
}
