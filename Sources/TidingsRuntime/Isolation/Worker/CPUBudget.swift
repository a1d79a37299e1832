import Glibc
import TidingsBase

/// A CPU-time budget for the calling thread: arm it before a call into the
/// extension, disarm it after. When the thread uses more CPU time than
/// `seconds` while armed, the process gets `SIGXCPU`, whose default action
/// ends it: the host sees "killed by SIGXCPU" and reports a CPU-time fault.
///
/// Time the thread spends blocked (sleeping, waiting for a lock, stopped)
/// does not count; only CPU time does. The kernel checks thread CPU timers
/// at its scheduler tick, so the signal comes up to a tick (1–10 ms) late.
///
/// It measures the thread that made it, and only that thread: create it on
/// the worker's executor thread. It is not `Sendable`.
///
/// Cost, measured on x86_64 Linux 6.18 (2 vCPUs, a virtual machine), debug
/// and release builds alike: arm plus disarm, one `timer_settime` each,
/// take about 0.5 µs together (0.25 µs a call); see
/// `WorkerSandboxTests.armingAndDisarmingIsCheap`.
package final class CPUBudget {
    /// The POSIX timer on the thread's CPU clock. Optional because glibc
    /// hands out the kernel's timer id as the pointer, and the process's
    /// first timer is id 0: a null `timer_t` that is a valid timer.
    private let timer: timer_t?
    /// The budget as `timer_settime` takes it: one shot, no interval.
    private let budget: itimerspec

    /// A budget of `seconds` of CPU time for the calling thread, disarmed.
    ///
    /// It also sets `SIGXCPU` to its default action and unblocks it on this
    /// thread: an ignored `SIGXCPU`, which survives `execve`, would make the
    /// budget toothless.
    /// The corresponding C function is `timer_create` (on `CLOCK_THREAD_CPUTIME_ID`).
    /// - Throws: `EINVAL` when `seconds` is not a positive, finite number of at
    ///   most `Int32.max`; the C library's error when no timer can be made.
    package init(seconds: Double) throws(SystemError) {
        guard seconds.isFinite, seconds > 0, seconds <= Double(Int32.max) else { throw SystemError(code: EINVAL) }
        let whole = seconds.rounded(.down)
        var value = timespec(tv_sec: Int(whole), tv_nsec: Int(((seconds - whole) * 1e9).rounded(.down)))
        if value.tv_sec == 0 && value.tv_nsec == 0 { value.tv_nsec = 1 }  // zero would disarm
        budget = itimerspec(it_interval: timespec(), it_value: value)

        var action = sigaction()
        action.__sigaction_handler.sa_handler = nil  // SIG_DFL
        sigemptyset(&action.sa_mask)
        guard sigaction(SIGXCPU, &action, nil) == 0 else { throw SystemError.current() }
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGXCPU)
        let unblocked = pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        guard unblocked == 0 else { throw SystemError(code: unblocked) }

        var event = sigevent()
        event.sigev_signo = SIGXCPU
        if let thread = Self.currentThreadID() {
            // The signal goes to this thread, the one that overran.
            event.sigev_notify = 4  // SIGEV_THREAD_ID, <bits/sigevent-consts.h>
            event._sigev_un._tid = thread
        } else {
            event.sigev_notify = Int32(SIGEV_SIGNAL)
        }
        var made: timer_t?
        guard timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &made) == 0 else {
            throw SystemError.current()
        }
        timer = made
    }

    deinit {
        timer_delete(timer)
    }

    /// Starts counting the budget afresh from now. One `timer_settime`; it
    /// cannot fail for a timer made by `init`.
    package func arm() {
        withUnsafePointer(to: budget) { _ = timer_settime(timer, 0, $0, nil) }
    }

    /// Stops counting. One `timer_settime`; it cannot fail for a timer made by `init`.
    package func disarm() {
        withUnsafePointer(to: itimerspec()) { _ = timer_settime(timer, 0, $0, nil) }
    }

    /// The CPU time left before the signal, in seconds; 0 when disarmed.
    /// The corresponding C function is `timer_gettime`.
    package var remaining: Double {
        var current = itimerspec()
        guard timer_gettime(timer, &current) == 0 else { return 0 }
        return Double(current.it_value.tv_sec) + Double(current.it_value.tv_nsec) / 1e9
    }

    /// The kernel's id of the calling thread, or nil when the C library has
    /// no `gettid` (before glibc 2.30).
    /// The corresponding C function is `gettid`.
    private static func currentThreadID() -> pid_t? {
        typealias GetThreadID = @convention(c) () -> pid_t
        return CLibrary.function("gettid", as: GetThreadID.self).map { $0() }
    }
}

@available(*, unavailable, message: "a CPU budget measures the thread that made it")
extension CPUBudget: Sendable {}
