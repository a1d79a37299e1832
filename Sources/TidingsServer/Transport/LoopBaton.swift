import Glibc
import TidingsBase

/// Who runs an event loop, when the loop answers calls itself.
///
/// The loop's thread answers one of the calls it admits between two waits
/// for events inline, and gives the others to the `CallPool`, where they
/// run beside it: a client waiting for each answer before it sends the next
/// request meets no hand-off to another thread, and requests sent together
/// still run in parallel. A call that blocks its thread must not stall
/// every other client, so an overseer watches: when an inline call has run
/// `slowCall` nanoseconds, a new thread takes the loop over (the baton), and
/// the blocked thread ends once its call returns. At most `blockedLimit`
/// threads may be so blocked; beyond them, the loop waits for its call.
///
/// The overseer costs no signal per call: it sleeps until the running
/// call's deadline, and looks again a `slowCall` later while calls keep
/// coming. Once a whole `slowCall` passed without any, it sleeps without a
/// deadline, and only the next call wakes it: an idle server makes no
/// wake-up.
final class LoopBaton: @unchecked Sendable {
    /// A call answered on the loop's thread, or given to the pool.
    typealias Call = @Sendable () -> Void

    private let slowCall: UInt64
    private let blockedLimit: Int
    private let pool: CallPool
    /// Runs the loop as the thread numbered by its argument, until it ends or is taken over.
    private let runLoop: @Sendable (UInt64) -> Void
    // Heap-allocated so that the pthread objects never move; they guard the fields below.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// The overseer's, on the monotonic clock.
    private let overseerCondition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// A thread started to take the loop over waits on it to learn whether it does.
    private let handover = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// The number of the thread running the loop.
    private var owner: UInt64 = 0
    private var lastThread: UInt64 = 0
    /// The threads started to take over, up to this number, know whether they do.
    private var decided: UInt64 = 0
    /// The number of the call under way on the loop's thread (0: none), and when it began.
    private var running: UInt64 = 0
    private var runningSince: UInt64 = 0
    /// Calls begun on the loop so far.
    private var begun: UInt64 = 0
    /// Threads that gave up the loop while in a call and have not returned from it.
    private var blocked = 0
    /// The overseer sleeps without a deadline: the next call wakes it.
    private var overseerAsleep = false
    private var stopping = false

    /// A baton for a loop that `runLoop` runs; calls blocked `slowCall`
    /// nanoseconds hand the loop over, up to `blockedLimit` at a time.
    init(slowCall: UInt64, blockedLimit: Int, pool: CallPool, runLoop: @escaping @Sendable (UInt64) -> Void) {
        self.slowCall = slowCall
        self.blockedLimit = blockedLimit
        self.pool = pool
        self.runLoop = runLoop
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(handover, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(overseerCondition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(overseerCondition)
        pthread_cond_destroy(handover)
        pthread_mutex_destroy(mutex)
        overseerCondition.deallocate()
        handover.deallocate()
        mutex.deallocate()
    }

    /// Starts the loop's first thread and the overseer; false when a thread cannot be had.
    func start() -> Bool {
        guard Threads.start({ [self] in runLoop(0) }) else { return false }
        if !Threads.start({ [self] in oversee() }) {
            // Without an overseer, a blocked call stalls the loop: calls then all go to the pool.
            locked { stopping = true }
        }
        return true
    }

    /// Ends the overseer; the loop ends on its own.
    func stop() {
        locked {
            stopping = true
            pthread_cond_signal(overseerCondition)
        }
    }

    /// Runs the first of `calls` on the loop's thread, numbered `thread`,
    /// the others on the pool; false when the loop was taken over meanwhile:
    /// the thread then leaves it at once.
    func runInline(_ calls: [Call], on thread: UInt64) -> Bool {
        guard let first = calls.first else { return true }
        for call in calls.dropFirst() { pool.run(call) }
        let direct = locked { () -> Bool in
            guard !stopping else { return false }
            begun += 1
            running = begun
            runningSince = MonotonicClock.now()
            if overseerAsleep {
                overseerAsleep = false
                pthread_cond_signal(overseerCondition)
            }
            return true
        }
        guard direct else {
            pool.run(first)
            return true
        }
        first()
        return locked { () -> Bool in
            guard owner == thread else {
                blocked -= 1
                return false
            }
            running = 0
            return true
        }
    }

    /// Hands the loop over whenever an inline call has run `slowCall`.
    private func oversee() {
        pthread_mutex_lock(mutex)
        var seen: UInt64 = 0
        while !stopping {
            let now = MonotonicClock.now()
            if running != 0 && now >= runningSince + slowCall && blocked < blockedLimit {
                handOver(from: running)
            } else if running != 0 && now < runningSince + slowCall {
                wait(until: runningSince + slowCall)
            } else if begun != seen {
                // Calls come: look again a `slowCall` later.
                seen = begun
                wait(until: now + slowCall)
            } else {
                overseerAsleep = true
                pthread_cond_wait(overseerCondition, mutex)
            }
        }
        pthread_mutex_unlock(mutex)
    }

    /// Starts a thread to take the loop over from the thread blocked in call
    /// number `call`; it does, unless the call returned meanwhile. With the mutex held.
    private func handOver(from call: UInt64) {
        lastThread += 1
        let thread = lastThread
        pthread_mutex_unlock(mutex)
        let started = Threads.start { [self] in takeOver(as: thread) }
        pthread_mutex_lock(mutex)
        guard started else {
            // No thread to be had: look again a `slowCall` later.
            return wait(until: MonotonicClock.now() + slowCall)
        }
        if running == call {
            owner = thread
            running = 0
            blocked += 1
        }
        decided = thread
        pthread_cond_broadcast(handover)
    }

    /// Runs the loop as thread number `thread` if it was given the loop; ends otherwise.
    private func takeOver(as thread: UInt64) {
        let given = locked { () -> Bool in
            while decided < thread { pthread_cond_wait(handover, mutex) }
            return owner == thread
        }
        if given { runLoop(thread) }
    }

    /// Waits on the overseer's condition until `deadline` (monotonic nanoseconds), with the mutex held.
    private func wait(until deadline: UInt64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        _ = pthread_cond_timedwait(overseerCondition, mutex, &time)
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
