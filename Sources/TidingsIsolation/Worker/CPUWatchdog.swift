import Glibc
import TidingsBase
import TidingsSystemShims

/// The worker's CPU-time budget, for the whole process: a timer on the
/// process's CPU clock (every thread's time counts) that is reset at every
/// call's start, so that neither a call nor what follows it until the next
/// may use more than the budget. When it expires, a watchdog thread
/// of its own — which alone waits for the signal, blocked there, so that
/// neither ignoring it nor blocking it elsewhere disarms it — reports the
/// fault to the host and ends the process.
///
/// The timer's kernel id is kept from the extension by the seccomp filter
/// (timer_settime and timer_delete refused for it).
package final class CPUWatchdog: Sendable {
    /// The timer's kernel id.
    package let timer: Int32
    /// The budget in nanoseconds of CPU time.
    private let budget: UInt64

    /// Starts the watchdog thread and its timer, armed.
    /// - Parameters:
    ///   - seconds: the budget.
    ///   - report: the bytes sent to `descriptor` (one datagram) before the process ends.
    package init(seconds: Double, report: [UInt8], to descriptor: Int32) throws(SystemError) {
        guard seconds.isFinite, seconds > 0 else { throw SystemError(code: EINVAL) }
        budget = UInt64(seconds * 1e9)
        let started = Latch()
        let thread = ThreadIdentity()
        guard Threads.start({
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGXCPU)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            thread.set(tidings_gettid())
            started.open()
            while true {
                var information = siginfo_t()
                guard SystemCall.retrying({ sigwaitinfo(&signals, &information) }) == SIGXCPU else { continue }
                _ = report.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                _ = kill(getpid(), SIGKILL)
            }
        }) else { throw SystemError(code: EAGAIN) }
        _ = started.wait(until: UInt64.max)
        let made = tidings_cpu_timer_create(SIGXCPU, thread.value)
        guard made >= 0 else { throw SystemError(code: -made) }
        timer = made
        rearm()
    }

    /// Starts the budget afresh from now: at a call's start.
    package func rearm() {
        _ = tidings_cpu_timer_arm(timer, budget)
    }
}

/// The watchdog thread's kernel id, handed from it to the thread that starts it.
private final class ThreadIdentity: @unchecked Sendable {
    private var identity: pid_t = 0

    /// Set once by the watchdog thread, before the latch opens; read after it.
    func set(_ value: pid_t) {
        identity = value
    }

    var value: pid_t { identity }
}
