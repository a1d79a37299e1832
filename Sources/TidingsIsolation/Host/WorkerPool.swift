import Glibc
import Synchronization
import TidingsBase
import TidingsRuntime

/// The host's warm workers: content-extension workers kept idle, each for
/// the bundle it loaded, so that opening an interface costs no cold start.
///
/// As on iOS, where one process per extension lives on across
/// notifications while the system lets it, a worker whose interface closed
/// and whose `destroy` returned normally serves its bundle's next instance
/// (never another bundle's, and one instance at a time); its globals live
/// on, its instances' state does not (the worker drops the instance and
/// its context at `destroy`; the host's side, `WorkerConnection.clearInstance`,
/// ends its pending completions and attachment copies). A worker that faulted,
/// was killed, timed out, or whose bundle was quarantined or replaced is
/// never kept: it has ended, or its provider takes it out (`removeAll`);
/// nor is one that used half the CPU time a worker may use in its life.
///
/// One pool serves every bundle of a launcher (and its copies); it keeps
/// at most `WorkerPoolSettings.bundleLimit` idle workers per bundle and
/// `hostLimit` in all, and ends each one `idleTime` after it went idle.
/// A worker over a limit (the longest idle first) is surplus: it ends
/// `surplusGrace` later unless an open takes it first. Under steady use
/// closes and opens come in turns, and a close that pushed a worker out at
/// once was soon followed by an open that found none and started one cold
/// (with eight clients of `tidings serve`, a few a second, each costing
/// milliseconds): the limits bound the idle workers beyond a moment's need. One
/// timer (`DeadlineTimer`) ends surplus and expired workers: its thread
/// sleeps until the next instant while any is due, and none runs otherwise:
/// an idle host makes no wake-ups.
final class WorkerPool: Sendable {
    /// One idle worker.
    private struct Idle {
        let connection: WorkerConnection
        /// The provider (bundle) whose worker it is, and its start number there.
        let owner: UInt64
        let number: Int
        /// When it ends (monotonic nanoseconds), unless taken first.
        let expiry: UInt64
        /// Its last instance's `destroy`, not yet known to have returned; nil for a spare never used.
        let destroy: WorkerConnection.PostedCall?
        /// Over a limit: it ends at this instant (monotonic nanoseconds) unless taken first; nil while within them.
        var surplusUntil: UInt64?
    }

    private struct State {
        /// The idle workers, longest idle first (their idle time is one, so also by expiry).
        var idle: [Idle] = []
        /// The timer holds a job that ends the expired workers (one at a time, at the earliest expiry).
        var expiryScheduled = false
    }

    private let state = Mutex(State())
    /// How long a surplus worker stays (nanoseconds).
    static let surplusGrace: UInt64 = 100_000_000
    /// Ends surplus workers and expired ones at their instants.
    private let timer = DeadlineTimer(clock: .monotonic)
    /// The last key handed out.
    private static let lastKey = Atomic<UInt64>(0)

    init() {}

    /// A key for a new bundle's workers (a provider's), never handed out before in this process.
    static func newKey() -> UInt64 {
        lastKey.add(1, ordering: .relaxed).newValue
    }

    /// Keeps worker `number` of `owner`, `connection`, idle under `limits`:
    /// the longest idle of the bundle or the host over them becomes surplus
    /// (it ends `surplusGrace` later unless taken); `destroy` is its last
    /// instance's destruction, checked before it serves again. A pool that
    /// keeps nothing ends it at once.
    func keep(_ connection: WorkerConnection, number: Int, for owner: UInt64,
              destroy: WorkerConnection.PostedCall?, limits: WorkerPoolSettings) {
        guard limits.keepsWorkers, connection.isRunning, !Self.spentHalfItsCPUTime(connection) else {
            return connection.retire()
        }
        let now = MonotonicClock.now()
        let expiry = CheckedNumbers.instant(now, after: limits.idleTime)
        let (surplus, schedulesExpiry): (Bool, Bool) = state.withLock { state in
            state.idle.append(Idle(connection: connection, owner: owner, number: number,
                                   expiry: expiry, destroy: destroy))
            let end = now + Self.surplusGrace
            var surplus = false
            while state.idle.count(where: { $0.owner == owner && $0.surplusUntil == nil }) > limits.bundleLimit,
                  let oldest = state.idle.firstIndex(where: { $0.owner == owner && $0.surplusUntil == nil }) {
                state.idle[oldest].surplusUntil = end
                surplus = true
            }
            while state.idle.count(where: { $0.surplusUntil == nil }) > limits.hostLimit,
                  let oldest = state.idle.firstIndex(where: { $0.surplusUntil == nil }) {
                state.idle[oldest].surplusUntil = end
                surplus = true
            }
            defer { state.expiryScheduled = true }
            return (surplus, !state.expiryScheduled)
        }
        if surplus { _ = timer.schedule(at: now + Self.surplusGrace) { [weak self] in self?.endSurplus() } }
        if schedulesExpiry { scheduleExpiry(at: expiry) }
    }

    /// Has the timer end the expired workers at `instant`.
    private func scheduleExpiry(at instant: UInt64) {
        _ = timer.schedule(at: instant) { [weak self] in self?.endExpired() }
    }

    /// Ends the surplus workers whose grace is over.
    private func endSurplus() {
        let now = MonotonicClock.now()
        let ended: [WorkerConnection] = state.withLock { state in
            defer { state.idle.removeAll { $0.surplusUntil.map { $0 <= now } ?? false } }
            return state.idle.filter { $0.surplusUntil.map { $0 <= now } ?? false }.map(\.connection)
        }
        for worker in ended { worker.retire() }
    }

    /// The worker of `owner` idle the longest that may serve again (a
    /// surplus one only when no other is idle), taken out of the pool, with
    /// its start number; nil when none may. The
    /// longest idle, because the one that went idle last has most likely
    /// not answered its `destroy` yet: under steady use a bundle's idle
    /// workers take turns, and no open waits for a destruction. A worker
    /// whose `destroy` has not answered is waited for (it is killed as hung
    /// past its call timeout); one whose `destroy` failed ends.
    func take(for owner: UInt64) -> (connection: WorkerConnection, number: Int)? {
        while let entry = state.withLock({ state -> Idle? in
            // A surplus worker only when none within the limits is idle: those are the ones to keep.
            guard let oldest = state.idle.firstIndex(where: { $0.owner == owner && $0.surplusUntil == nil })
                    ?? state.idle.firstIndex(where: { $0.owner == owner }) else { return nil }
            return state.idle.remove(at: oldest)
        }) {
            guard entry.connection.isRunning else { continue }
            if let destroy = entry.destroy {
                do throws(Diagnostic) {
                    try entry.connection.answer(to: destroy)
                } catch {
                    entry.connection.retire()
                    continue
                }
            }
            return (entry.connection, entry.number)
        }
        return nil
    }

    /// How many workers of `owner` are idle.
    func count(for owner: UInt64) -> Int {
        state.withLock { $0.idle.count(where: { $0.owner == owner }) }
    }

    /// Forgets worker `number` of `owner`, which ended.
    func discard(_ number: Int, of owner: UInt64) {
        state.withLock { $0.idle.removeAll { $0.owner == owner && $0.number == number } }
    }

    /// Ends every idle worker of `owner` (its bundle was quarantined or replaced).
    func removeAll(for owner: UInt64) {
        let removed: [WorkerConnection] = state.withLock { state in
            defer { state.idle.removeAll { $0.owner == owner } }
            return state.idle.filter { $0.owner == owner }.map(\.connection)
        }
        for worker in removed { worker.retire() }
    }

    /// What the idle workers hold now, read from `/proc`.
    var status: WorkerPoolStatus {
        let connections = state.withLock { $0.idle.map(\.connection) }
        var status = WorkerPoolStatus(idle: connections.count)
        for connection in connections {
            // The sandbox's init and the worker: what ending the worker gives back.
            let pids = [connection.sandbox.process.pid] + [connection.sandbox.process.workerPid].compactMap { $0 }
            for pid in pids {
                guard let process = ProcessStatus(of: "\(pid)") else { continue }
                status.residentBytes += process.bytes("VmRSS") ?? 0
                status.anonymousBytes += process.bytes("RssAnon") ?? 0
            }
        }
        return status
    }

    /// True when the worker has used half the CPU time it may use in its
    /// life (`RLIMIT_CPU`): kept on, it would end in a fault some call
    /// later; it ends now instead, and a new one serves. `/proc` is read
    /// only once the worker may have got there: its CPU time grows at most
    /// as fast as the clock on every core (reading it at every return cost
    /// more than the rest of the return).
    private static func spentHalfItsCPUTime(_ connection: WorkerConnection) -> Bool {
        let total = connection.settings.cpuTimeTotal
        guard total > 0 else { return false }
        let now = MonotonicClock.now()
        if let seen = connection.cpuTimeSeen.withLock({ $0 }),
           seen.used + Double(now - seen.at) / 1e9 * cores < total / 2 {
            return false
        }
        // The worker's pid is read from /proc too: only when its CPU time is.
        guard let worker = connection.sandbox.process.workerPid, let used = ProcessStatus.cpuSeconds(of: "\(worker)") else { return false }
        connection.cpuTimeSeen.withLock { $0 = (now, used) }
        return used >= total / 2
    }

    /// The cores online, read once (glibc reads `/sys` for it at every call).
    private static let cores = Double(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Ends the idle workers whose time is up, and schedules the next expiry while any is idle.
    private func endExpired() {
        let now = MonotonicClock.now()
        let (expired, next): ([WorkerConnection], UInt64?) = state.withLock { state in
            let count = state.idle.prefix { $0.expiry <= now }.count
            let expired = state.idle.prefix(count).map(\.connection)
            state.idle.removeFirst(count)
            let next = state.idle.first?.expiry
            state.expiryScheduled = next != nil
            return (expired, next)
        }
        for worker in expired { worker.retire() }
        if let next { scheduleExpiry(at: next) }
    }
}

/// The idle workers of a host and the memory they hold, for `server.describe`.
package struct WorkerPoolStatus: Sendable, Equatable {
    /// How many workers are idle.
    package var idle: Int
    /// Their resident memory (`VmRSS`, the sandbox's init's included), in
    /// bytes; pages shared between them (the `tidings` binary, the Swift
    /// runtime) are counted once per worker.
    package var residentBytes: UInt64 = 0
    /// Their private anonymous memory (`RssAnon`), in bytes: what ending them gives back.
    package var anonymousBytes: UInt64 = 0
}
