import Glibc

/// A one-shot gate: threads wait until someone opens it or a deadline passes.
///
/// Built on a POSIX mutex and a condition variable on the monotonic clock.
/// The latch owns both and frees them when it goes away.
package final class Latch: @unchecked Sendable {
    // Heap-allocated so that the pthread objects never move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var isOpen = false

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Opens the gate and wakes every waiter. Opening twice does nothing more.
    package func open() {
        pthread_mutex_lock(mutex)
        isOpen = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Waits until the gate is open or the monotonic clock reaches `deadline`
    /// (nanoseconds, see `MonotonicClock`). True when the gate opened.
    package func wait(until deadline: UInt64) -> Bool {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !isOpen {
            if pthread_cond_timedwait(condition, mutex, &time) == ETIMEDOUT { break }
        }
        return isOpen
    }
}
