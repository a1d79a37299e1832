import TidingsBase
import TidingsRuntime

/// The `--deadline` and `--service-deadline` options of the commands that
/// run extensions, and the host settings they give.
enum DeadlineOption {
    /// The longest deadline taken, in seconds: a day.
    static let longest = 86_400.0

    static let options = [
        CommandSpec.Option(
            name: "deadline", value: "SECONDS",
            help: "How long a content extension has to complete a response (default \(NumberText.short(NotificationHost.Configuration.defaultResponseDeadline)), at most \(NumberText.short(longest))); past it the host applies dismissAndForwardAction."),
        CommandSpec.Option(name: "service-deadline", value: "SECONDS",
                           help: "How long a service extension has to hand back content (default 30, at most \(NumberText.short(longest)))."),
    ]

    static let discussion = """
        Completion: Apple sets no deadline on a content extension's completion handler; Tidings waits --deadline \
        seconds, then applies dismissAndForwardAction (the notification closes, the app gets the action). A \
        completion that comes later is reported (response.completion-late; the server's extension.late-completion \
        event) and is no fault, nor is a completion that never comes. Only misuse of a completion counts as a \
        fault toward the quarantine (calling it twice, an undefined option, the wrong function, naming another \
        instance; once per response), besides a worker's crash, hang or broken limit.
        """

    /// `configuration` with the deadlines the options give.
    /// - Throws: a usage failure for a value that is not a number of seconds greater than 0 and at most a day.
    static func apply(_ arguments: ParsedArguments, to configuration: inout NotificationHost.Configuration)
        throws(CommandFailure)
    {
        configuration.responseDeadline = try seconds("deadline", arguments) ?? configuration.responseDeadline
        configuration.serviceDeadline = try seconds("service-deadline", arguments) ?? configuration.serviceDeadline
    }

    /// `--name` in seconds, if given.
    private static func seconds(_ name: String, _ arguments: ParsedArguments) throws(CommandFailure) -> Double? {
        guard let seconds = try arguments.positiveNumber(name) else { return nil }
        guard seconds <= longest else {
            throw .usage("--\(name) must be at most \(NumberText.short(longest)) seconds (a day); it is \(NumberText.short(seconds)).")
        }
        return seconds
    }
}
