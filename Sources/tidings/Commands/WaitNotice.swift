import Glibc
import TidingsBase
import TidingsRuntime

/// Says on standard error what a command waits for from an extension, so
/// that no wait is silent: which extension, which call, how long until the
/// host stops waiting, and the option that changes it. With `--verbose` it
/// says so as each wait begins; otherwise, on a terminal, once a wait has
/// lasted a second; otherwise (a program reading the output) not at all.
struct WaitNotice: Sendable {
    static let option = CommandSpec.Option(
        name: "verbose", value: nil,
        help: "Say on standard error what is waited for from an extension as each wait begins (without it, on a terminal, once a wait lasts a second).")

    static let discussion = """
        Waits: whenever an extension keeps the command waiting (its didReceive, a service extension's content \
        handler, a response's didReceive and then its completion, an element event, a media tap), standard error says which extension, which call, how long until the \
        deadline and the option that changes it — after a second on a terminal, at once with --verbose.
        """

    /// How long a wait lasts before a terminal is told of it, in nanoseconds.
    static let patience: UInt64 = 1_000_000_000

    /// `--verbose`: every wait is told as it begins.
    let verbose: Bool
    /// Standard error is a terminal: a wait is told once it lasts `patience`.
    let terminal: Bool
    /// The options that change each deadline, by the command's names.
    var options: [ExtensionWait.Deadline: String] = [.response: "--deadline", .service: "--service-deadline"]

    /// The notice `arguments` ask for.
    init(_ arguments: ParsedArguments, environment: [String: String]) {
        verbose = arguments.flag("verbose")
        terminal = isatty(2) == 1 && environment["TERM"] != "dumb"
    }

    /// The observer to give the host; nil when nobody is to be told.
    var observer: ExtensionWaitObserver? {
        guard verbose || terminal else { return nil }
        return { wait in begin(wait) }
    }

    /// The line that says what `wait` waits for, `elapsed` nanoseconds into it.
    func line(for wait: ExtensionWait, elapsed: UInt64) -> String {
        var line = "Waiting for \(wait.extensionIdentifier): \(wait.call)"
        if let seconds = wait.seconds {
            let left = max(0, seconds - Double(elapsed) / 1e9)
            line += ", \(NumberText.short(left.rounded(.up))) s until the deadline"
            if let deadline = wait.deadline, let option = options[deadline] { line += " (\(option) SECONDS changes it)" }
        }
        return line + "…"
    }

    /// Tells of `wait` now (verbose) or once it lasts `patience`; returns what ends it.
    private func begin(_ wait: ExtensionWait) -> @Sendable () -> Void {
        if verbose {
            printError(line(for: wait, elapsed: 0))
            return {}
        }
        let start = MonotonicClock.now()
        let ended = Latch()
        let notice = self
        // A thread per wait, only on a terminal: a person is waiting, and a wait costs far more than a thread.
        Threads.start {
            guard !ended.wait(until: start + Self.patience) else { return }
            printError(notice.line(for: wait, elapsed: MonotonicClock.now() - start))
        }
        return { ended.open() }
    }
}
