import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// The worker's CPU-time budget, for the whole process: a timer on the
/// process's CPU clock (every thread's time counts) that expires after
/// every `budget` of CPU time the process used. A watchdog thread of its own
/// — which alone waits for the timer's signal, blocked there, so that
/// neither ignoring the signal nor blocking it elsewhere disarms it — looks
/// at each expiry whether a call started since the one before: if none did,
/// the process spent a whole budget within one call (or between two), and
/// the watchdog reports the fault to the host and ends the process. A call
/// or what follows it until the next may so use between one and two
/// budgets.
///
/// The timer is armed once and never changed: the seccomp filter refuses
/// `timer_settime` and `timer_delete` for it, to the extension as to the
/// worker. Forks are refused too, so no CPU time escapes the process clock.
package final class CPUWatchdog: Sendable {
    /// The timer's kernel id.
    package let timer: Int32

    /// Starts the watchdog thread and its timer.
    /// - Parameters:
    ///   - seconds: the budget.
    ///   - report: the bytes sent to `descriptor` (one datagram) before the process ends.
    package init(seconds: Double, report: [UInt8], to descriptor: Int32) throws(SystemError) {
        guard seconds.isFinite, seconds > 0 else { throw SystemError(code: EINVAL) }
        let budget = CheckedNumbers.nanoseconds(seconds)
        let started = Latch()
        let thread = ThreadIdentity()
        let calls = Calls()
        guard Threads.start({
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGXCPU)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            thread.set(tidings_gettid())
            started.open()
            var seen: UInt64 = 0
            while true {
                var information = siginfo_t()
                guard SystemCall.retrying({ sigwaitinfo(&signals, &information) }) == SIGXCPU else { continue }
                let now = calls.count
                if now != seen {
                    seen = now
                    continue
                }
                _ = report.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                _ = kill(getpid(), SIGKILL)
            }
        }) else { throw SystemError(code: EAGAIN) }
        _ = started.wait(until: UInt64.max)
        let made = tidings_cpu_timer_create(SIGXCPU, thread.value)
        guard made >= 0 else { throw SystemError(code: -made) }
        let armed = tidings_cpu_timer_arm(made, budget, budget)
        guard armed == 0 else { throw SystemError(code: -armed) }
        timer = made
        self.counter = calls
    }

    /// The call counter the watchdog thread reads.
    private let counter: Calls

    /// A call starts: the budget's window moves on.
    package func noteCall() {
        counter.increment()
    }
}

/// The number of calls started, shared by the worker's threads and its watchdog.
private final class Calls: Sendable {
    private let value = Atomic<UInt64>(0)

    var count: UInt64 { value.load(ordering: .relaxed) }

    func increment() {
        value.add(1, ordering: .relaxed)
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
