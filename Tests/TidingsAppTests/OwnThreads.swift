import Glibc
import Synchronization
import Testing
import TidingsBase

/// A task executor of a few threads of its own, on which the app library's
/// tests (and the tasks their centers start) run.
///
/// Swift Testing starts every test of the run at once on the global
/// concurrent executor, two threads on this machine: a job the library
/// enqueues there (its connection's loop, a `requestAuthorization` under
/// way) waits behind a thousand other tests, longer than a front end waits
/// for the prompt. Here, the library's jobs wait only for one another, as
/// they do in an app's own process.
final class OwnThreads: TaskExecutor, @unchecked Sendable {
    /// The executor the tests share.
    static let shared = OwnThreads(count: 4)

    /// The jobs enqueued and not yet taken, oldest first.
    private let jobs = Mutex<[UnownedJob]>([])
    /// Counts the jobs enqueued and not yet taken; the threads wait on it.
    private let ready: UnsafeMutablePointer<sem_t>

    /// An executor of `count` threads, which live as long as the test process.
    private init(count: Int) {
        ready = .allocate(capacity: 1)
        sem_init(ready, 0, 0)
        for _ in 0..<count {
            guard Threads.start({ self.serve() }) else { fatalError("The tests' executor could not start a thread.") }
        }
    }

    /// Runs `job` on one of the threads.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        sem_post(ready)
    }

    /// Runs the jobs enqueued, one at a time, for ever.
    private func serve() {
        while true {
            guard sem_wait(ready) == 0 else { continue }
            let job = jobs.withLock { $0.removeFirst() }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs a suite's tests, and every task they start, on `OwnThreads`.
struct OnOwnThreads: SuiteTrait, TestTrait, TestScoping {
    /// Applies to each test of the suite.
    var isRecursive: Bool { true }

    /// Runs `function` with `OwnThreads` as its task executor preference.
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(OwnThreads.shared) { try await function() }
    }
}

extension Trait where Self == OnOwnThreads {
    /// Runs the tests, and the tasks they start, on threads of their own (`OwnThreads`).
    static var onOwnThreads: Self { OnOwnThreads() }
}
