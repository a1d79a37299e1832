import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// What an event loop watches: told on the loop's thread what its descriptor is ready for.
protocol LoopSource: AnyObject {
    /// Handles `events` on the loop's thread.
    func handle(_ events: Epoll.Events)
}

/// One thread waiting on an epoll set: it runs what the descriptors
/// registered with it report, the tasks other threads post, the timers set
/// on it, and the calls handed to `answerInline`. It sleeps until one of them
/// is due: an idle loop makes no wake-up at all.
///
/// What is registered, the timers and the scratch buffer belong to the
/// loop's thread; other threads only `post`. The loop's thread may change:
/// when an inline call blocks, another thread takes the loop over
/// (`LoopBaton`), and the first never touches the loop again.
final class EventLoop: @unchecked Sendable {
    /// A task run on the loop's thread.
    typealias Task = @Sendable () -> Void

    private let epoll: Epoll
    /// An eventfd that wakes the loop when a task is posted.
    private let wake: FileDescriptor
    /// Tasks posted and not yet run; whether the loop may be asleep; whether it ended.
    private let inbox = Mutex<(tasks: [Task], sleeping: Bool, ended: Bool)>(([], false, false))
    /// How long the loop polls before it sleeps, in nanoseconds, when events
    /// have lately come sooner than that (0: it never polls).
    private let spin: UInt64

    // The loop thread's own.
    private var sources: [UInt64: any LoopSource] = [:]
    /// Sources of files epoll cannot watch (regular files): always ready.
    private var alwaysReady: [UInt64: any LoopSource] = [:]
    private var nextToken: UInt64 = 1
    private var timers: [(deadline: UInt64, task: () -> Void)] = []
    /// Calls to answer on the loop's thread before it waits again.
    private var inlineCalls: [LoopBaton.Call] = []
    /// Who runs the loop; set once, in `init`.
    private var baton: LoopBaton!
    /// How long the loop last waited for an event, in nanoseconds.
    private var lastWait: UInt64 = .max
    /// Where what is read lands before it is handed on.
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)

    /// The token of the wake-up eventfd.
    private static let wakeToken: UInt64 = 0

    /// Starts a loop on a thread of its own, polling up to `spin` nanoseconds
    /// before it sleeps; an inline call that runs `slowCall` nanoseconds hands
    /// the loop to a new thread, up to `blockedLimit` at a time, and the calls
    /// that were to follow it to `pool`.
    /// - Throws: why the epoll instance, the eventfd, the baton's timerfd or the thread could not be had.
    init(spin: UInt64, slowCall: UInt64, blockedLimit: Int, pool: CallPool) throws(SystemError) {
        epoll = try Epoll()
        wake = try FileDescriptor(adoptingResult: tidings_eventfd())
        self.spin = spin
        try epoll.add(wake.rawValue, for: .readable, token: Self.wakeToken)
        baton = try LoopBaton(slowCall: slowCall, blockedLimit: blockedLimit, pool: pool) { [weak self] thread in
            self?.run(as: thread)
        }
        guard baton.start() else { throw SystemError(code: EAGAIN) }
    }

    deinit {
        scratch.deallocate()
    }

    /// Runs `task` on the loop's thread, soon; dropped once the loop ended.
    func post(_ task: @escaping Task) {
        let wakes = inbox.withLock { inbox -> Bool in
            guard !inbox.ended else { return false }
            inbox.tasks.append(task)
            defer { inbox.sleeping = false }
            return inbox.sleeping
        }
        if wakes {
            var one: UInt64 = 1
            _ = write(wake.rawValue, &one, 8)
        }
    }

    /// Ends the loop once the tasks posted so far have run; later ones are dropped.
    func end() {
        post { [self] in
            inbox.withLock { $0.ended = true }
            baton.stop()
        }
    }

    // MARK: On the loop's thread

    /// Watches `file` for `events`, telling `source`; its token. A file
    /// epoll cannot watch (a regular file) is taken as always ready.
    func register(_ file: Int32, for events: Epoll.Events, _ source: any LoopSource) throws(SystemError) -> UInt64 {
        let token = nextToken
        nextToken += 1
        do throws(SystemError) {
            try epoll.add(file, for: events, token: token)
            sources[token] = source
        } catch where error.code == EPERM {
            alwaysReady[token] = source
        }
        return token
    }

    /// Watches `file`, registered as `token`, for `events` from now on.
    func change(_ file: Int32, token: UInt64, to events: Epoll.Events) {
        if sources[token] != nil { epoll.change(file, to: events, token: token) }
    }

    /// Stops watching `file`, registered as `token`.
    func unregister(_ file: Int32, token: UInt64) {
        if sources.removeValue(forKey: token) != nil { epoll.remove(file) }
        alwaysReady[token] = nil
    }

    /// Answers `call` before the loop next waits for events: on the loop's
    /// thread if it is the first since the last wait, else on the pool.
    func answerInline(_ call: @escaping LoopBaton.Call) {
        inlineCalls.append(call)
    }

    /// Runs `task` on the loop's thread at `deadline` (monotonic nanoseconds).
    func schedule(at deadline: UInt64, _ task: @escaping () -> Void) {
        timers.append((deadline, task))
    }

    /// Runs the loop as thread number `thread` until it ends or another thread takes it over.
    private func run(as thread: UInt64) {
        let ready = UnsafeMutableBufferPointer<tidings_epoll_ready>.allocate(capacity: Epoll.batch)
        defer { ready.deallocate() }
        while true {
            let tasks = inbox.withLock { inbox in
                defer { inbox.tasks = [] }
                return inbox.tasks
            }
            for task in tasks { task() }
            let calls = inlineCalls
            inlineCalls = []
            guard baton.runInline(calls, on: thread) else { return }
            if inbox.withLock({ $0.ended }) { return }
            runDueTimers()
            let count = waitForEvents(into: ready)
            for index in 0..<count {
                let token = ready[index].token
                if token == Self.wakeToken {
                    var drained: UInt64 = 0
                    _ = read(wake.rawValue, &drained, 8)
                } else {
                    sources[token]?.handle(Epoll.Events(rawValue: ready[index].events))
                }
            }
            for source in Array(alwaysReady.values) { source.handle(.readable) }
        }
    }

    /// Waits for the next event, task or timer: polls first when events
    /// lately came within the spin window, then sleeps, telling posters to
    /// wake it.
    private func waitForEvents(into ready: UnsafeMutableBufferPointer<tidings_epoll_ready>) -> Int {
        if !alwaysReady.isEmpty { return epoll.wait(into: ready, timeout: 0) }
        // The clock is read only for the spin window's sake.
        let began = spin > 0 ? MonotonicClock.now() : 0
        if spin > 0 && lastWait <= spin {
            let until = began + spin
            repeat {
                let count = epoll.wait(into: ready, timeout: 0)
                if count > 0 || inbox.withLock({ !$0.tasks.isEmpty }) {
                    lastWait = MonotonicClock.now() - began
                    return count
                }
                sched_yield()
            } while MonotonicClock.now() < until
        }
        let asleep = inbox.withLock { inbox in
            inbox.sleeping = inbox.tasks.isEmpty
            return inbox.sleeping
        }
        let count = epoll.wait(into: ready, timeout: asleep ? timeout() : 0)
        inbox.withLock { $0.sleeping = false }
        if spin > 0 { lastWait = MonotonicClock.now() - began }
        return count
    }

    /// Milliseconds until the next timer, rounded up; -1 when none is set.
    private func timeout() -> Int32 {
        guard let next = timers.map(\.deadline).min() else { return -1 }
        let now = MonotonicClock.now()
        guard next > now else { return 0 }
        return Int32(min((next - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    private func runDueTimers() {
        guard !timers.isEmpty else { return }
        let now = MonotonicClock.now()
        let due = timers.filter { $0.deadline <= now }
        timers.removeAll { $0.deadline <= now }
        for timer in due { timer.task() }
    }
}
