import Synchronization
import TidingsBase

/// A service extension's `did_receive_request`s in one worker, queued and
/// bounded: each runs on a thread other than the main one, so that
/// `service_extension_time_will_expire` can come while it still runs (the
/// ABI's thread rule), at most `threadLimit` at once; more wait their turn in
/// the order they came, at most `queueLimit` of them, and one beyond is
/// refused at once. A thread that finished a request runs the next one
/// waiting, and ends when none is.
///
/// Each thread's stack is sized to the worker's memory limit
/// (`stackSize(memoryLimit:)`): `RLIMIT_DATA` counts stacks, and at the
/// system's 8 MiB each the seventh thread of a 64 MiB worker could not start.
final class ServiceRequests: Sendable {
    /// One request handed in: its call, its instance, and what runs it.
    struct Request: Sendable {
        let call: UInt64
        let instance: UInt64
        let run: @Sendable () -> Void
    }

    /// The most requests that run at once in one worker.
    static let threadLimit = 16
    /// The most requests that wait for a thread in one worker.
    static let queueLimit = 64
    /// The largest stack a request's thread gets: 512 KiB, what iOS gives a secondary thread.
    static let largestStack = 512 << 10
    /// The smallest.
    static let smallestStack = 128 << 10

    private struct State {
        /// Threads running requests.
        var running = 0
        /// Requests waiting for one, oldest first.
        var waiting: [Request] = []
    }

    private let state = Mutex(State())
    /// Each thread's stack, in bytes.
    let stackSize: Int

    /// Requests of a worker whose extension may allocate `memoryLimit` bytes (0: no limit).
    init(memoryLimit: UInt64) {
        stackSize = Self.stackSize(memoryLimit: memoryLimit)
    }

    /// The stack of a request's thread in a worker whose extension may
    /// allocate `memoryLimit` bytes (0: no limit): `largestStack`, or less,
    /// in steps of 64 KiB, so that `threadLimit` of them take at most a
    /// quarter of the limit; never below `smallestStack`.
    static func stackSize(memoryLimit: UInt64) -> Int {
        guard memoryLimit > 0 else { return largestStack }
        let step = 64 << 10
        let share = Int(clamping: memoryLimit / 4 / UInt64(threadLimit)) / step * step
        return max(smallestStack, min(largestStack, share))
    }

    /// Runs `request` on a thread now, or once one is free; nil when it runs
    /// or waits, else why it will not run (the threads and the queue are
    /// full, or no thread could be started while none runs), for its caller
    /// to answer at once.
    func submit(_ request: Request) -> Diagnostic? {
        enum Place { case thread, queue, none }
        let place: Place = state.withLock { state in
            if state.running < Self.threadLimit {
                state.running += 1
                return .thread
            }
            guard state.waiting.count < Self.queueLimit else { return .none }
            state.waiting.append(request)
            return .queue
        }
        switch place {
        case .queue: return nil
        case .none:
            return .error(.workerBusy,
                          "The worker runs \(Self.threadLimit) service requests at once and has \(Self.queueLimit) more waiting: this one was not started.")
        case .thread:
            if Threads.start(stackSize: stackSize, { [self] in work(from: request) }) { return nil }
            // No thread: a running one takes it in turn; with none running, nothing would.
            let waits = state.withLock { state in
                state.running -= 1
                guard state.running > 0, state.waiting.count < Self.queueLimit else { return false }
                state.waiting.append(request)
                return true
            }
            return waits ? nil : .error(.workerLaunchFailed,
                                        "The worker could not start a thread (of \(stackSize >> 10) KiB of stack) for did_receive_request.")
        }
    }

    /// Takes out the request of instance `instance` that still waits for a
    /// thread (its time is up before it started); nil when it has none waiting.
    func withdraw(instance: UInt64) -> Request? {
        state.withLock { state in
            guard let index = state.waiting.firstIndex(where: { $0.instance == instance }) else { return nil }
            return state.waiting.remove(at: index)
        }
    }

    /// Runs `first`, then each request waiting, on this thread.
    private func work(from first: Request) {
        var next: Request? = first
        while let request = next {
            request.run()
            next = state.withLock { state in
                guard !state.waiting.isEmpty else {
                    state.running -= 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
        }
    }
}

extension Diagnostic.Code {
    /// A worker runs as many service requests as it may and has as many waiting: one more is not started.
    package static let workerBusy = Self("worker.busy")
}
