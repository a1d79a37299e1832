import Synchronization
import TidingsBase
import TidingsRuntime

/// Writes the server's changes to its record store in the order they are
/// made, and keeps what the state's health depends on: whether the last
/// write or fold failed, and the batch of records waiting to be folded into
/// a snapshot.
///
/// A change is written or refused: when its record cannot be written,
/// `write` throws and the caller does not make the change, so that the
/// state in memory is always the state on disk.
final class StateWriter: Sendable {
    /// A sealed part of the journal, for the keeper to fold into a snapshot.
    struct Batch: Sendable {
        /// The generation of the snapshot to write: it holds every record of
        /// the segments before that generation's.
        let generation: UInt64
        /// The records written since the last batch, in order.
        let records: [StateRecord]
    }

    /// What the writer's lock guards.
    private struct Progress {
        /// Records written since the last batch was sealed.
        var unfolded: [StateRecord] = []
        /// The notifications those records deliver.
        var unfoldedDeliveries = 0
        /// The notifications those records remove.
        var unfoldedRemovals = 0
        /// The batch sealed and not yet folded.
        var batch: Batch?
        /// Why the last write failed; nil once one succeeds.
        var writeFailure: Diagnostic?
        /// Why the last fold failed; nil once one succeeds.
        var foldFailure: Diagnostic?
        /// When the state became degraded.
        var since: Double?
        /// True when records were written since the last flush.
        var unflushed = false
        /// True when a flush failed: the next batch is sealed at once, so
        /// that a snapshot holds what the kernel may have lost.
        var refoldNeeded = false
        /// The bytes of the records the last snapshot written holds (the one loaded, until one is).
        var snapshotBytes = 0
        /// The notifications kept as of the last batch folded (of the state loaded, until one is).
        var keptAtFold = 0

        /// True when the records since the last batch removed at least half
        /// of the notifications there were (those kept as of the last fold,
        /// and those delivered since) and at least `shrinkingRemovals`.
        var shrank: Bool {
            unfoldedRemovals >= StateWriter.shrinkingRemovals && 2 * unfoldedRemovals >= keptAtFold + unfoldedDeliveries
        }

        /// True while changes are refused or the journal cannot be folded.
        var isDegraded: Bool { writeFailure != nil || foldFailure != nil }

        /// The health this progress makes.
        var health: StateHealth {
            var health = StateHealth()
            health.cause = writeFailure ?? foldFailure
            health.since = since
            return health
        }
    }

    /// Where the records go.
    let store: RecordStore
    /// The least segment size past which a batch is sealed for folding, in
    /// bytes: a segment is sealed once it outgrows both this and the last
    /// snapshot (`sealIfDue`).
    private let foldThreshold: Int
    private let progress = Mutex(Progress())
    /// Opened when a batch is sealed or the keeper is to stop; replaced once waited on.
    private let bell = Mutex(Latch())
    /// Told each change of health.
    private let observers = Mutex<[@Sendable (StateHealth) -> Void]>([])
    /// Tells observers in order, never under a lock.
    private let announcements = SerialQueue()

    /// A writer to `store`, loaded, whose snapshot's records take
    /// `snapshotBytes` and whose state keeps `kept` notifications, sealing a
    /// batch once a segment grows past `foldThreshold` bytes and past the last snapshot's records.
    init(store: RecordStore, foldThreshold: Int, snapshotBytes: Int, kept: Int) {
        self.store = store
        self.foldThreshold = foldThreshold
        progress.withLock { progress in
            progress.snapshotBytes = snapshotBytes
            progress.keptAtFold = kept
        }
    }

    /// Whether changes are being written.
    var health: StateHealth {
        progress.withLock { $0.health }
    }

    /// Has `observer` told of each change of health from now on: degraded, or ok again.
    func observe(_ observer: @escaping @Sendable (StateHealth) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    // MARK: Writing

    /// Writes `record`; throws, and writes nothing, when it cannot be written.
    func write(_ record: StateRecord) throws(Diagnostic) {
        try write([record])
    }

    /// Writes `records`, in order, with one `write` (`RecordStore.append(group:)`);
    /// throws, and writes none, when they cannot be written.
    func write(_ records: [StateRecord]) throws(Diagnostic) {
        try changing { (progress: inout Progress) throws(Diagnostic) in
            do throws(Diagnostic) {
                try store.append(group: records.map(\.bytes))
            } catch {
                progress.writeFailure = error
                throw error
            }
            var removed = false
            for record in records {
                progress.unfolded.append(record)
                switch record.subject {
                case .delivered: progress.unfoldedDeliveries += 1
                case .removed(let keys):
                    progress.unfoldedRemovals += keys.count
                    removed = true
                case .categories, .registration, .inboxed, .taken, .badge, .scheduled, .unscheduled, .fired, .authorization, .sequence: break
                }
            }
            // The first record since a flush wakes the keeper, which sleeps while nothing waits to be flushed.
            if !progress.unflushed { ring() }
            progress.unflushed = true
            progress.writeFailure = nil
            sealIfDue(&progress)
            // Once the state shrank enough to fold early, the keeper seals it (`sealIfShrunk`);
            // not before: a wake-up per removal cost a server keeping 100,000 a tenth of each cycle.
            if removed, progress.batch == nil, progress.shrank { ring() }
        }
    }

    /// While a write failure degrades the state, tries an empty record (a
    /// probe, which loading skips): what the keeper does every second, so
    /// that the state recovers by itself once the disk has room again.
    func probe() {
        changing { (progress: inout Progress) in
            guard progress.writeFailure != nil else { return }
            do throws(Diagnostic) {
                try store.append([])
            } catch {
                progress.writeFailure = error
                return
            }
            progress.writeFailure = nil
            progress.unflushed = true
        }
    }

    /// True while something waits for the keeper's next round: records
    /// not yet flushed, or a degraded state to try again.
    var needsTending: Bool {
        progress.withLock { $0.unflushed || $0.isDegraded }
    }

    /// Flushes what was written since the last flush to disk. When that
    /// fails, the state is degraded and the next write seals a batch at
    /// once, so that a snapshot holds again what the kernel may have lost.
    func flush() {
        let needed = progress.withLock { progress in
            defer { progress.unflushed = false }
            return progress.unflushed
        }
        guard needed else { return }
        do throws(Diagnostic) {
            try store.synchronize()
        } catch {
            // The next write seals a batch: the keeper touches no disk under this lock.
            changing { (progress: inout Progress) in
                progress.writeFailure = error
                progress.refoldNeeded = true
            }
        }
    }

    // MARK: Folding

    /// Seals the records written since the last batch into a new one, and
    /// rings the keeper, when the segment has grown past the threshold and
    /// past the last snapshot (or a flush failed) and no batch is being
    /// folded. A fold rewrites the whole state, so a segment as large as the
    /// state before each keeps the fold's cost per record written constant,
    /// however many notifications are kept (a fixed threshold made every
    /// change of a state of 100,000 cost a share of a 50 MB rewrite); the
    /// journal read back at a start stays under twice the state.
    private func sealIfDue(_ progress: inout Progress) {
        guard progress.batch == nil,
              progress.refoldNeeded || store.journalSize > max(foldThreshold, progress.snapshotBytes) else { return }
        do throws(Diagnostic) {
            seal(&progress, generation: try store.startSegment())
        } catch {
            progress.foldFailure = error
        }
    }

    /// The fewest removals since the last batch that `sealIfShrunk()` seals for.
    static let shrinkingRemovals = 1_000

    /// Seals a batch before the segment reaches the threshold when the
    /// records since the last one removed at least half of the
    /// notifications there were (those kept as of the last fold, and those
    /// delivered since) and at least `shrinkingRemovals`, so that a state
    /// that shrank is folded and what the removed notifications held is let
    /// go of, rather than kept until the journal grows again. What the
    /// keeper does each time it wakes (a write of removals rings it); only
    /// with the segment made ahead, so that nothing touches the disk under
    /// the lock the calls take.
    func sealIfShrunk() {
        changing { (progress: inout Progress) in
            guard progress.batch == nil, progress.shrank else { return }
            do throws(Diagnostic) {
                guard let generation = try store.startPreparedSegment() else { return }
                seal(&progress, generation: generation)
            } catch {
                progress.foldFailure = error
            }
        }
    }

    /// Makes the records written since the last batch the batch of
    /// `generation`, just started, and rings the keeper.
    private func seal(_ progress: inout Progress, generation: UInt64) {
        progress.batch = Batch(generation: generation, records: progress.unfolded)
        progress.unfolded = []
        progress.unfoldedDeliveries = 0
        progress.unfoldedRemovals = 0
        progress.refoldNeeded = false
        ring()
    }

    /// The batch sealed and not yet folded, if any.
    var pendingBatch: Batch? {
        progress.withLock { $0.batch }
    }

    /// The keeper finished with the pending batch (or, after a failure,
    /// with trying its snapshot again), of a state keeping `kept`
    /// notifications: `written` is the bytes of the snapshot's records, or
    /// why it could not be written. The next batch is sealed by the next
    /// write, never here: the keeper must not hold the lock the calls wait
    /// for while it touches the disk.
    func foldFinished(_ written: Result<Int, Diagnostic>, kept: Int) {
        changing { (progress: inout Progress) in
            progress.batch = nil
            progress.keptAtFold = kept
            switch written {
            case .success(let bytes):
                progress.snapshotBytes = bytes
                progress.foldFailure = nil
            case .failure(let failure):
                progress.foldFailure = failure
            }
        }
    }

    /// Waits until a batch is sealed, `ring()` is called, or the monotonic
    /// clock reaches `deadline`.
    func waitForWork(until deadline: UInt64) {
        let latch = bell.withLock { $0 }
        _ = latch.wait(until: deadline)
        bell.withLock { if $0 === latch { $0 = Latch() } }
    }

    /// Wakes the keeper waiting in `waitForWork(until:)`.
    func ring() {
        bell.withLock { $0 }.open()
    }

    // MARK: Health

    /// Runs `body` on the progress, then tells observers when the state
    /// became degraded or ok again.
    private func changing<Result: Sendable, Failure: Error>(
        _ body: (inout Progress) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try progress.withLock { (progress: inout Progress) throws(Failure) -> Result in
            let wasDegraded = progress.isDegraded
            defer {
                if progress.isDegraded != wasDegraded {
                    progress.since = progress.isDegraded ? Payload.currentTime() : nil
                    announce(progress.health)
                    // A degraded state is tried again every second: the keeper, perhaps asleep, is woken to.
                    if progress.isDegraded { ring() }
                }
            }
            return try body(&progress)
        }
    }

    /// Tells every observer of `health`, in the order changes happen.
    private func announce(_ health: StateHealth) {
        let observers = observers.withLock { $0 }
        announcements.async {
            for observer in observers { observer(health) }
        }
    }
}
