import Glibc
import TidingsBase

/// SIGTERM, SIGINT and SIGHUP, taken from their default action (which ends
/// the process at once, answers in flight and socket file left behind) so
/// that `tidings serve` stops gracefully: blocked in every thread, and
/// waited for by a thread of its own.
struct StopSignals: Sendable {
    /// The signals waited for.
    private let set: sigset_t

    /// Blocks the stop signals in the calling thread, and so in every thread
    /// it starts afterwards: call it before any thread starts. SIGTERM and
    /// SIGINT are waited for even when whoever started the process ignored
    /// or blocked them (a request to stop must stop a server); SIGHUP only
    /// when it is not ignored (`nohup` keeps its meaning).
    static func block() -> StopSignals {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        var hangUp = sigaction()
        let ignored = sigaction(SIGHUP, nil, &hangUp) == 0
            && hangUp.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) } == unsafeBitCast(SIG_IGN, to: Int.self)
        if !ignored { sigaddset(&set, SIGHUP) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        return StopSignals(set: set)
    }

    /// "SIGTERM", "SIGINT" or "SIGHUP".
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    /// Starts a thread that waits for the first stop signal and then calls
    /// `stop` with its number.
    /// The corresponding C function is `sigwait`.
    func wait(then stop: @escaping @Sendable (Int32) -> Void) {
        Threads.start { [set] in
            var signals = set
            var received: Int32 = 0
            guard sigwait(&signals, &received) == 0 else { return }
            stop(received)
        }
    }
}
