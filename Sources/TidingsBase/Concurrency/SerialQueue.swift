import Synchronization

/// Runs jobs one after another, in the order given, on a thread of its own
/// that exists only while there is work (started by the first job, ended
/// when the queue runs dry).
package final class SerialQueue: Sendable {
    /// A job.
    package typealias Job = @Sendable () -> Void

    /// The jobs waiting, and whether a thread is running them.
    private let state = Mutex<(jobs: [Job], running: Bool)>(([], false))

    /// An empty queue.
    package init() {}

    /// Queues `job`; it runs after every job queued before it, never on the caller's thread.
    package func async(_ job: @escaping Job) {
        let start = state.withLock { state in
            state.jobs.append(job)
            if state.running { return false }
            state.running = true
            return true
        }
        if start && !Threads.start({ self.drain() }) {
            // No thread to be had now: the jobs wait for the next one queued.
            state.withLock { $0.running = false }
        }
    }

    /// Runs jobs until none is left.
    private func drain() {
        while true {
            let jobs = state.withLock { state -> [Job] in
                if state.jobs.isEmpty { state.running = false }
                defer { state.jobs = [] }
                return state.jobs
            }
            if jobs.isEmpty { return }
            for job in jobs { job() }
        }
    }
}
