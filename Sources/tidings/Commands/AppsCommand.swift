import TidingsBase
import TidingsProtocol
import TidingsServer

/// `tidings apps allow|deny|reset APP`: the user's answer about an app's
/// notifications, given on the command line instead of a front end's prompt.
enum AppsCommand: Command {
    /// The actions, as `authorization.decide` names its decisions.
    private static let actions = AppAuthorizations.Decision.allCases.map(\.rawValue)

    static let spec = CommandSpec(
        name: "apps",
        summary: "Allow, deny or reset an app's notifications on a running server (tidings serve), as the user answers its authorization prompt.",
        usage: "allow|deny|reset APP [--json] [--socket PATH]",
        options: [
            .init(name: "json", value: nil, help: "Print the server's answer as JSON."),
            SocketOption.option,
        ],
        arguments: .text,
        firstArguments: actions,
        discussion: [
            "allow: the app is authorized, with the options it asked for (alert, sound and badge when it never asked); deny: its notifications are no longer presented and its badge not shown, while its background notifications still reach it; reset: not determined, so that its next authorization request asks again. A request of the app waiting for the user is answered at once.",
            "The decision is kept across the server's restarts. An app that never asked is delivered as tidings serve --unasked-apps says (deliver by default).",
            "Exit status: 0 done; 64 the command line is wrong; 73 the server could not record it (its state is degraded); 75 no server listens at the socket (start one with tidings serve), or it is busy or too old; 77 the socket is not the user's own.",
        ],
        examples: [
            "tidings apps allow com.example.reminders",
            "tidings apps deny com.example.reminders",
            "tidings apps reset com.example.reminders --json",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard arguments.positionals.count == 2, let action = arguments.positionals.first,
              actions.contains(action), let app = arguments.positionals.last, !app.isEmpty
        else {
            throw .usage("tidings apps takes an action, allow, deny or reset, and the app's identifier (see tidings apps --help).")
        }
        let client = try SocketOption.connect(arguments, environment: environment)
        let answer: JSON
        do throws(ServerClient.Failure) {
            answer = try client.call(.authorizationDecide, .object([("app", .string(app)), ("decision", .string(action))]))
        } catch {
            throw SocketOption.failure(error, calling: MethodName.authorizationDecide.rawValue)
        }
        if arguments.flag("json") {
            print(answer.serialized(pretty: true))
        } else {
            let status = answer["status"]?.stringValue ?? "unknown"
            print("\(app): \(status)" + (action == "deny" ? " (its notifications are not presented; background ones still reach it)" : ""))
        }
        return .success
    }
}
