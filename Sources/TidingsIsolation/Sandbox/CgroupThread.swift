import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// A thread of the host's that lives in its workers' cgroup v1 hierarchies
/// (its own thread ID written to their `tasks`), on which workers are
/// started: a process begins in the cgroups of the thread that made it, so
/// none has to be moved in. Moving a process into a cgroup v1 hierarchy
/// costs the kernel a grace period of RCU (7 to 22 ms on the machine the
/// benchmarks guide measures); the host pays it once, not at every start. The host's
/// memory is charged by its main thread, which stays where it was.
final class CgroupThread: Sendable {
    /// A job and where its end is told.
    private struct Job: Sendable {
        let body: @Sendable () -> Void
        let done: Latch
    }

    private let jobs = Mutex<[Job]>([])
    /// Read by the thread, which sleeps until something is written to `wakeWrite`.
    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor

    /// Starts the thread and moves it into the cgroups whose `tasks` files are given.
    /// - Throws: why it could not be moved (the thread then ends).
    init(joining tasksFiles: [String]) throws(SystemError) {
        var ends: [Int32] = [-1, -1]
        let made = tidings_pipe2(&ends, O_CLOEXEC)
        guard made == 0 else { throw SystemError(code: -made) }
        wakeRead = FileDescriptor(adopting: ends[0])
        wakeWrite = FileDescriptor(adopting: ends[1])
        let joined = Latch()
        let failure = Mutex<SystemError?>(nil)
        guard Threads.start({ [self] in
            for file in tasksFiles {
                let tid = "\(tidings_gettid())"
                let descriptor = open(file, O_WRONLY | O_CLOEXEC)
                let written = descriptor >= 0
                    ? SystemCall.retrying { Glibc.write(descriptor, tid, tid.utf8.count) } : -1
                if descriptor >= 0 { close(descriptor) }
                if written != tid.utf8.count {
                    failure.withLock { $0 = SystemError.current() }
                    joined.open()
                    return
                }
            }
            joined.open()
            var byte: UInt8 = 0
            while SystemCall.retrying({ Glibc.read(self.wakeRead.rawValue, &byte, 1) }) == 1 {
                let taken = self.jobs.withLock { jobs -> [Job] in
                    defer { jobs = [] }
                    return jobs
                }
                for job in taken {
                    job.body()
                    job.done.open()
                }
            }
        }) else {
            throw SystemError(code: EAGAIN)
        }
        _ = joined.wait(until: UInt64.max)
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Runs `body` on the thread and returns what it returned.
    func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
        let result = Mutex<Result?>(nil)
        let done = Latch()
        jobs.withLock { $0.append(Job(body: { result.withLock { $0 = body() } }, done: done)) }
        var byte: UInt8 = 1
        _ = SystemCall.retrying { Glibc.write(wakeWrite.rawValue, &byte, 1) }
        _ = done.wait(until: UInt64.max)
        return result.withLock { $0! }
    }
}
