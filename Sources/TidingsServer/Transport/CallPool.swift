import Glibc
import TidingsBase

/// The threads that answer a server's calls: at most `limit`, started as
/// work comes and kept; whatever the number of connections and of calls
/// waiting, no more. Work beyond them waits in a queue, in the order given.
/// An idle thread sleeps until work comes: no wake-up while nothing does.
final class CallPool: @unchecked Sendable {
    /// Work for a thread of the pool.
    typealias Work = @Sendable () -> Void

    /// The most threads the pool starts.
    let limit: Int
    // Heap-allocated so that the pthread objects never move; they guard the fields below.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [Work] = []
    /// Where the next work to take is in `queue`.
    private var head = 0
    private var threads = 0
    /// Threads waiting for work, and how many of them were already woken for work queued.
    private var idle = 0
    private var woken = 0
    private var stopping = false

    /// The default size: two threads per core and four more, so that a few
    /// slow calls leave the others threads to run on.
    static var defaultLimit: Int { 2 * max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) + 4 }

    /// A pool of at most `limit` threads (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `work` on a thread of the pool, at once when one is free.
    func run(_ work: @escaping Work) {
        pthread_mutex_lock(mutex)
        queue.append(work)
        // A thread already woken for earlier work is not free for this one.
        let wakes = idle > woken
        let start = !wakes && threads < limit
        if wakes {
            woken += 1
            pthread_cond_signal(condition)
        }
        if start { threads += 1 }
        pthread_mutex_unlock(mutex)
        if start && !Threads.start({ [self] in serve() }) {
            // No thread to be had now: the work waits for a thread of the pool.
            pthread_mutex_lock(mutex)
            threads -= 1
            pthread_mutex_unlock(mutex)
        }
    }

    /// Lets the threads end once the queue is empty (work given later still
    /// runs, on a thread started for it).
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Takes work until the pool stops.
    private func serve() {
        pthread_mutex_lock(mutex)
        while true {
            if head < queue.count {
                let work = queue[head]
                head += 1
                if head == queue.count || head >= 1024 {
                    queue.removeSubrange(0..<head)
                    head = 0
                }
                pthread_mutex_unlock(mutex)
                work()
                pthread_mutex_lock(mutex)
            } else if stopping {
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
}
