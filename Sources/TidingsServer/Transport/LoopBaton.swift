import Glibc
import TidingsBase
import TidingsSystemShims

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
/// The overseer costs a call nothing but a clock read: a call that begins
/// while the one-shot alarm (a timerfd) is disarmed arms it `slowCall`
/// ahead, and nothing disarms it when the call returns. When it rings, the
/// overseer looks at the call under way, if any: one that has run
/// `slowCall` loses the loop, a younger one has the alarm set again for the
/// rest of its time, and with none the alarm stays disarmed until the next
/// call. So while calls keep coming the overseer wakes at most once a
/// `slowCall` (2 ms: 500 times a second, against the two timer system calls
/// a call that armed and disarmed it each time made — 7 % of the server's
/// time for a delivery), and an idle server makes no wake-up at all.
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
    /// The overseer's alarm: armed while an inline call runs, due when it has run `slowCall`.
    private let alarm: FileDescriptor
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
    /// Whether the alarm is set.
    private var armed = false
    /// Threads that gave up the loop while in a call and have not returned from it.
    private var blocked = 0
    private var stopping = false

    /// A baton for a loop that `runLoop` runs; calls blocked `slowCall`
    /// nanoseconds hand the loop over, up to `blockedLimit` at a time.
    /// - Throws: why the alarm's timerfd could not be made.
    init(slowCall: UInt64, blockedLimit: Int, pool: CallPool,
         runLoop: @escaping @Sendable (UInt64) -> Void) throws(SystemError) {
        self.slowCall = slowCall
        self.blockedLimit = blockedLimit
        self.pool = pool
        self.runLoop = runLoop
        alarm = try FileDescriptor(adoptingResult: tidings_timerfd())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(handover, nil)
    }

    deinit {
        pthread_cond_destroy(handover)
        pthread_mutex_destroy(mutex)
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
            arm(after: 1)
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
            if !armed { arm(after: slowCall) }
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

    /// Hands the loop over whenever an inline call has run `slowCall`;
    /// asleep on the alarm otherwise.
    private func oversee() {
        pthread_mutex_lock(mutex)
        while !stopping {
            pthread_mutex_unlock(mutex)
            var entry = pollfd(fd: alarm.rawValue, events: Int16(POLLIN), revents: 0)
            _ = SystemCall.retrying { poll(&entry, 1, -1) }
            var expirations: UInt64 = 0
            _ = SystemCall.retrying { read(alarm.rawValue, &expirations, 8) }
            pthread_mutex_lock(mutex)
            armed = false
            guard running != 0, !stopping else { continue }
            let now = MonotonicClock.now()
            if now < runningSince + slowCall {
                arm(after: runningSince + slowCall - now)
            } else if blocked < blockedLimit {
                handOver(from: running)
            } else {
                // Every thread that may block is blocked: look again a `slowCall` later.
                arm(after: slowCall)
            }
        }
        pthread_mutex_unlock(mutex)
    }

    /// Sets the alarm `nanoseconds` (at least 1) ahead. With the mutex held.
    private func arm(after nanoseconds: UInt64) {
        armed = tidings_timerfd_arm(alarm.rawValue, max(1, nanoseconds)) == 0
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
            return arm(after: slowCall)
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

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
