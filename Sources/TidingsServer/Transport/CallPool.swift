import Glibc
import TidingsBase

/// The threads that answer a server's calls: `limit` of them, started as
/// work comes and kept, whatever the number of connections and of calls
/// waiting for their turn or for a completion answered later. Work beyond
/// them waits in a queue, in the order given. An idle thread sleeps until
/// work comes: no wake-up while nothing does.
///
/// A call that blocks its thread (an extension that takes its time) must
/// not starve the others: when work has waited `slowCall` nanoseconds with
/// every thread busy, an overseer starts one more, up to `overflowLimit`;
/// those extra threads end as soon as the queue is empty. The overseer
/// sleeps, without a deadline, whenever a thread is free.
final class CallPool: @unchecked Sendable {
    /// Work for a thread of the pool.
    typealias Work = @Sendable () -> Void

    /// The threads the pool keeps.
    let limit: Int
    /// The most threads it runs, extra ones for blocked calls included.
    let overflowLimit: Int
    /// How long work may wait with every thread busy before an extra one starts, in nanoseconds.
    let slowCall: UInt64
    // Heap-allocated so that the pthread objects never move; they guard the fields below.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// The overseer's, on the monotonic clock.
    private let overseerCondition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [Work] = []
    /// Where the next work to take is in `queue`.
    private var head = 0
    private var threads = 0
    /// Threads waiting for work, and how many of them were already woken for work queued.
    private var idle = 0
    private var woken = 0
    /// When work was last taken from the queue, or queued into an empty one.
    private var progress: UInt64 = 0
    private var overseerStarted = false
    private var stopping = false

    /// The default size: two threads per core and four more.
    static var defaultLimit: Int { 2 * max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) + 4 }

    /// A pool of `limit` threads (at least one), growing to `overflowLimit`
    /// while work waits `slowCall` nanoseconds behind blocked calls.
    init(limit: Int, overflowLimit: Int, slowCall: UInt64) {
        self.limit = max(1, limit)
        self.overflowLimit = max(self.limit, overflowLimit)
        self.slowCall = slowCall
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(overseerCondition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_cond_destroy(overseerCondition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        overseerCondition.deallocate()
        mutex.deallocate()
    }

    /// Runs `work` on a thread of the pool, at once when one is free.
    func run(_ work: @escaping Work) {
        pthread_mutex_lock(mutex)
        if head == queue.count { progress = MonotonicClock.now() }
        queue.append(work)
        // A thread already woken for earlier work is not free for this one.
        let wakes = idle > woken
        let start = !wakes && threads < limit
        let startsOverseer = !wakes && !start && !overseerStarted
        if wakes {
            woken += 1
            pthread_cond_signal(condition)
        } else if !start {
            pthread_cond_signal(overseerCondition)
        }
        if start { threads += 1 }
        if startsOverseer { overseerStarted = true }
        pthread_mutex_unlock(mutex)
        if start { startThread() }
        if startsOverseer && !Threads.start({ [self] in oversee() }) {
            pthread_mutex_lock(mutex)
            overseerStarted = false
            pthread_mutex_unlock(mutex)
        }
    }

    /// Lets the threads end once the queue is empty (work given later still
    /// runs, on a thread started for it).
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(condition)
        pthread_cond_signal(overseerCondition)
        pthread_mutex_unlock(mutex)
    }

    /// Starts a thread counted in already; when none can be had, the work waits for a thread of the pool.
    private func startThread() {
        if !Threads.start({ [self] in serve() }) {
            pthread_mutex_lock(mutex)
            threads -= 1
            pthread_mutex_unlock(mutex)
        }
    }

    /// Takes work until the pool stops (an extra thread: until the queue is empty).
    private func serve() {
        pthread_mutex_lock(mutex)
        while true {
            if head < queue.count {
                let work = queue[head]
                head += 1
                progress = MonotonicClock.now()
                if head == queue.count || head >= 1024 {
                    queue.removeSubrange(0..<head)
                    head = 0
                }
                pthread_mutex_unlock(mutex)
                work()
                pthread_mutex_lock(mutex)
            } else if stopping || threads > limit {
                threads -= 1
                pthread_mutex_unlock(mutex)
                return
            } else {
                idle += 1
                pthread_cond_wait(condition, mutex)
                idle -= 1
                woken = max(0, woken - 1)
            }
        }
    }

    /// Starts an extra thread whenever work has waited `slowCall` with every
    /// thread busy; sleeps without a deadline otherwise.
    private func oversee() {
        pthread_mutex_lock(mutex)
        while !stopping {
            let saturated = head < queue.count && idle <= woken
            guard saturated else {
                pthread_cond_wait(overseerCondition, mutex)
                continue
            }
            let now = MonotonicClock.now()
            let due = progress + slowCall
            if now < due {
                var time = timespec(tv_sec: Int(due / 1_000_000_000), tv_nsec: Int(due % 1_000_000_000))
                _ = pthread_cond_timedwait(overseerCondition, mutex, &time)
            } else if threads < overflowLimit {
                threads += 1
                progress = now
                pthread_mutex_unlock(mutex)
                startThread()
                pthread_mutex_lock(mutex)
            } else {
                // Every thread there may be is busy: wait for one to take work.
                pthread_cond_wait(overseerCondition, mutex)
            }
        }
        overseerStarted = false
        pthread_mutex_unlock(mutex)
    }
}
