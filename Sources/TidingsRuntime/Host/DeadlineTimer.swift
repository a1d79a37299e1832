import Synchronization
import TidingsBase

/// One thread keeping all of a host's completion deadlines: a heap of them,
/// served by a thread that sleeps until the earliest (no periodic tick), runs
/// what is due, and ends when none is left, so that an idle host has no
/// timer thread at all and a thousand waits cost one.
///
/// Instants are of the host's `DeadlineClock`; a clock that jumps forward
/// (a test's) wakes the thread to look again. What is due runs on the
/// timer's thread, outside its lock: it must be quick (hand the work on).
package final class DeadlineTimer: Sendable {
    /// A job due at an instant.
    package typealias Job = @Sendable () -> Void

    private struct State {
        var heap = DeadlineHeap<Job>()
        var nextNumber: UInt64 = 1
        /// A thread serves the heap.
        var running = false
        /// The gate the thread sleeps at, while it sleeps: opened to wake it.
        var sleeping: Latch?
    }

    private let clock: DeadlineClock
    private let state = Mutex(State())

    /// A timer of instants of `clock`.
    package init(clock: DeadlineClock) {
        self.clock = clock
        clock.jumps?.listen { [weak self] in self?.wake() }
    }

    /// Runs `job` once `clock` reads `instant` (on the timer's thread),
    /// unless cancelled before; returns the number to cancel it by.
    package func schedule(at instant: UInt64, _ job: @escaping Job) -> UInt64 {
        let (number, start, wake): (UInt64, Bool, Latch?) = state.withLock { state in
            let number = state.nextNumber
            state.nextNumber += 1
            let earlier = state.heap.earliest.map { instant < $0 } ?? true
            state.heap.insert(job, at: instant, number: number)
            if !state.running {
                state.running = true
                return (number, true, nil)
            }
            return (number, false, earlier ? state.sleeping : nil)
        }
        wake?.open()
        if start && !Threads.start({ self.serve() }) {
            // No thread to be had now: the next schedule tries again.
            state.withLock { $0.running = false }
        }
        return number
    }

    /// Cancels the job `number`, if it has not run; the thread ends at once
    /// when nothing is left to wait for.
    package func cancel(_ number: UInt64) {
        let wake: Latch? = state.withLock { state in
            guard state.heap.remove(number) != nil, state.heap.isEmpty else { return nil }
            return state.sleeping
        }
        wake?.open()
    }

    /// Wakes the thread to look at the clock again.
    private func wake() {
        state.withLock { $0.sleeping }?.open()
    }

    /// The thread: runs what is due, sleeps until the next, ends when none is left.
    private func serve() {
        while true {
            var due: [Job] = []
            let sleep: (latch: Latch, until: UInt64)? = state.withLock { state in
                let now = clock.now()
                while let job = state.heap.popDue(at: now) { due.append(job) }
                guard due.isEmpty else { return nil }
                guard let earliest = state.heap.earliest else {
                    state.running = false
                    return nil
                }
                let latch = Latch()
                state.sleeping = latch
                return (latch, earliest)
            }
            if let sleep {
                _ = sleep.latch.wait(until: clock.systemInstant(at: sleep.until))
                state.withLock { $0.sleeping = nil }
                continue
            }
            if due.isEmpty { return }
            for job in due { job() }
        }
    }
}
