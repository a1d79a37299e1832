import Glibc
import Synchronization
import TidingsBase
import TidingsRuntime

/// Where the answer to one call to a worker arrives: the reader thread fills
/// it, the calling thread waits for it.
///
/// With spinning turned on (`ChannelReaders.spinTime`), the caller first
/// spins for a moment (most calls come back within tens of microseconds, and
/// waking a sleeping thread costs about as much on a virtual machine); then,
/// or at once by default, it sleeps on a latch.
final class CallSlot: Sendable {

    private struct State {
        var answer: Result<Void, Diagnostic>?
        var latch: Latch?
    }

    private let state = Mutex(State())
    /// Set once `state.answer` is; read by the spinning waiter without the lock.
    private let answered = Atomic<Bool>(false)

    init() {}

    /// Gives the call's answer; only the first counts.
    func fulfil(_ answer: Result<Void, Diagnostic>) {
        let latch: Latch? = state.withLock { state in
            guard state.answer == nil else { return nil }
            state.answer = answer
            return state.latch
        }
        answered.store(true, ordering: .releasing)
        latch?.open()
    }

    /// The answer, if it came; never waits.
    var answer: Result<Void, Diagnostic>? {
        guard answered.load(ordering: .acquiring) else { return nil }
        return state.withLock { $0.answer }
    }

    /// Waits for the answer until `deadline` (monotonic nanoseconds); nil when none came.
    func wait(until deadline: UInt64) -> Result<Void, Diagnostic>? {
        if ChannelReaders.spinTime > 0 {
            let spinEnd = min(deadline, MonotonicClock.now() + ChannelReaders.spinTime)
            while !answered.load(ordering: .acquiring) && MonotonicClock.now() < spinEnd {
                sched_yield()
            }
        }
        let latch: Latch? = state.withLock { state in
            guard state.answer == nil else { return nil }
            if state.latch == nil { state.latch = Latch() }
            return state.latch
        }
        if let latch { _ = latch.wait(until: deadline) }
        return state.withLock { $0.answer }
    }
}
