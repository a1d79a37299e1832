import TidingsBase
import TidingsRuntime

/// The `--deadline` and `--service-deadline` options of the commands that
/// run extensions, and the host settings they give.
enum DeadlineOption {
    /// The longest deadline taken, in seconds: a day.
    static let longest = 86_400.0

    /// How long `tidings deliver` and `preview`, run by a person waiting at a
    /// terminal for one notification, wait for a response's completion: long
    /// enough for a server's answer, short enough that a forgotten completion
    /// fails in seconds with the diagnostic `tidings validate` gives
    /// (`response.completion-timeout`), not after the two minutes a host that
    /// serves a desktop (`tidings serve`) allows.
    static let oneShotResponseDeadline = 10.0

    /// The options of `tidings serve`.
    static let options = options(responseDefault: NotificationHost.Configuration.defaultResponseDeadline)
    /// The options of `tidings deliver` and `preview`.
    static let oneShotOptions = options(responseDefault: oneShotResponseDeadline)

    private static func options(responseDefault: Double) -> [CommandSpec.Option] {
        [
            CommandSpec.Option(
                name: "deadline", value: "SECONDS",
                help: "How long a content extension has to complete a response (default \(NumberText.short(responseDefault)), at most \(NumberText.short(longest))); past it the host applies dismissAndForwardAction."),
            CommandSpec.Option(name: "service-deadline", value: "SECONDS",
                               help: "How long a service extension has to hand back content (default 30, at most \(NumberText.short(longest)))."),
        ]
    }

    static let discussion = """
        Completion: Apple sets no deadline on a content extension's completion handler; Tidings waits --deadline \
        seconds (tidings serve 120 by default; deliver and preview \(NumberText.short(oneShotResponseDeadline)), so that a \
        forgotten completion fails in seconds, as tidings validate reports it), then applies dismissAndForwardAction (the \
        notification closes, the app gets the action). A \
        completion that comes later is reported (response.completion-late; the server's extension.late-completion \
        event) and is no fault, nor is a completion that never comes. Only misuse of a completion counts as a \
        fault toward the quarantine (calling it twice, an undefined option, the wrong function, naming another \
        instance; once per response), besides a worker's crash, hang or broken limit.
        """

    /// `configuration` with the deadlines the options give; a one-shot
    /// command (deliver, preview) waits `oneShotResponseDeadline` for a
    /// completion unless `--deadline` says otherwise.
    /// - Throws: a usage failure for a value that is not a number of seconds greater than 0 and at most a day.
    static func apply(_ arguments: ParsedArguments, to configuration: inout NotificationHost.Configuration,
                      oneShot: Bool = false) throws(CommandFailure)
    {
        if oneShot { configuration.responseDeadline = oneShotResponseDeadline }
        configuration.responseDeadline = try seconds("deadline", arguments) ?? configuration.responseDeadline
        configuration.serviceDeadline = try seconds("service-deadline", arguments) ?? configuration.serviceDeadline
    }

    /// `--name` in seconds, if given: more than 0, at most `longest` (a day).
    static func seconds(_ name: String, _ arguments: ParsedArguments) throws(CommandFailure) -> Double? {
        guard let seconds = try arguments.positiveNumber(name) else { return nil }
        guard seconds <= longest else {
            throw .usage("--\(name) must be at most \(NumberText.short(longest)) seconds (a day); it is \(NumberText.short(seconds)).")
        }
        return seconds
    }
}
