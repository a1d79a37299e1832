import Synchronization
import TidingsBase

/// The thread that keeps the server's state on disk in shape, off the
/// request path: it folds each sealed batch of the journal into a snapshot
/// (the state as of the batch's end, kept here, written while new records
/// go to the next segment; and early, once removals halved the state, so
/// that what they held is given back), makes the next segment ahead of
/// time, flushes the journal to disk every second while records wait to be
/// flushed, and while writes fail tries again every second, so that the
/// state recovers by itself once the disk has room. With nothing to do it
/// sleeps until a write wakes it.
final class StateKeeper: Sendable {
    /// How often the journal is flushed and a failing disk tried again, in seconds.
    static let interval = 1.0
    /// How long after a failed fold its snapshot is tried again, in seconds.
    static let retryInterval = 5.0

    private let writer: StateWriter
    /// The state as of the end of the last batch folded: each record's bytes.
    private let model: Mutex<FoldedState<[UInt8]>>
    /// What the folds did.
    private let folds = Mutex(FoldReport())
    private let stopping = Atomic<Bool>(false)
    /// Opened when the thread has ended.
    private let finished = Latch()

    /// A keeper for `writer`, whose store holds `model`. Call `start()`.
    init(writer: StateWriter, model: FoldedState<[UInt8]>) {
        self.writer = writer
        self.model = Mutex(model)
    }

    /// Starts the thread; throws when the system has none to give.
    func start() throws(Diagnostic) {
        guard Threads.start({ self.run() }) else {
            throw .error(.stateKeeperUnavailable, "No thread could be started to fold and flush the state's journal.")
        }
    }

    /// Folds what is sealed, flushes the journal, and ends the thread; returns when it has ended.
    func stop() {
        stopping.store(true, ordering: .releasing)
        writer.ring()
        _ = finished.wait(until: MonotonicClock.deadline(after: 3_600))
    }

    /// What the folds did.
    var report: FoldReport {
        folds.withLock { $0 }
    }

    /// The thread's loop.
    private func run() {
        var nextTick = MonotonicClock.deadline(after: Self.interval)
        var retry: (generation: UInt64, at: UInt64)?
        while true {
            // The next segment made ahead, so that sealing one on the request
            // path touches no disk; when it cannot be, sealing makes it itself.
            try? writer.store.prepareSegment()
            // Early, onto that segment, once removals halved the state (the writer rings when they may have).
            writer.sealIfShrunk()
            // Asleep until work comes while nothing waits to be flushed, probed or retried: an idle server makes no wake-ups.
            writer.waitForWork(until: writer.needsTending || retry != nil ? nextTick : .max)
            let stop = stopping.load(ordering: .acquiring)
            var folded = false
            if let batch = writer.pendingBatch {
                let started = MonotonicClock.now()
                folds.withLock { $0.running = true }
                let (records, kept) = model.withLock { model in
                    for record in batch.records { model.apply(record.subject, record.bytes) }
                    return (model.records, model.deliveredCount)
                }
                retry = write(generation: batch.generation, records, kept: kept, started: started)
                folded = true
            } else if let owed = retry, stop || MonotonicClock.now() >= owed.at {
                let (records, kept) = model.withLock { ($0.records, $0.deliveredCount) }
                retry = write(generation: owed.generation, records, kept: kept, started: MonotonicClock.now())
            }
            // What a fold let go of goes back to the system: the sealed batch (a segment's records,
            // megabytes), the records a removal replaced, the snapshot's list. Here, once the batch
            // is let go of, as nothing may be freed after the trim.
            if folded { MemoryReturn.trim() }
            if stop || MonotonicClock.now() >= nextTick {
                writer.probe()
                writer.flush()
                nextTick = MonotonicClock.deadline(after: Self.interval)
            }
            if stop {
                finished.open()
                return
            }
        }
    }

    /// Writes `records`, which keep `kept` notifications, as the snapshot of
    /// `generation` (a fold begun at `started`) and tells the writer how it
    /// went; returns when to try again, when it failed.
    private func write(generation: UInt64, _ records: [[UInt8]], kept: Int,
                       started: UInt64) -> (generation: UInt64, at: UInt64)? {
        do throws(Diagnostic) {
            try writer.store.writeSnapshot(generation: generation, records: records)
        } catch {
            folds.withLock { folds in
                folds.failure = error
                folds.running = false
            }
            writer.foldFinished(.failure(error), kept: kept)
            return (generation, MonotonicClock.deadline(after: Self.retryInterval))
        }
        let duration = Double(MonotonicClock.now() - started) / 1e9
        folds.withLock { folds in
            folds.count += 1
            folds.generation = generation
            folds.records = records.count
            folds.lastDuration = duration
            folds.longestDuration = max(folds.longestDuration, duration)
            folds.failure = nil
            folds.running = false
        }
        writer.foldFinished(.success(records.reduce(0) { $0 + $1.count }), kept: kept)
        return nil
    }
}

extension Diagnostic.Code {
    /// No thread could be started to keep the server's state on disk.
    package static let stateKeeperUnavailable = Self("state.keeper-unavailable")
}
