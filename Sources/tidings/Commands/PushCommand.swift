import TidingsBase
import TidingsProtocol

/// `tidings push register|list|unregister|status`: an app's registration for
/// remote notifications (UnifiedPush, Web Push) on a running `tidings serve`,
/// and which distributor the desktop front end registers with.
enum PushCommand: Command {
    /// The actions, in the order `--help` gives them.
    private static let actions = ["register", "list", "unregister", "status"]

    static let spec = CommandSpec(
        name: "push",
        summary: "Register an app for remote notifications (UnifiedPush and Web Push) on a running server (tidings serve), list or unregister registrations, or say which distributor receives them.",
        usage: "register --app APP | list [--app APP] | unregister --app APP | status; any with [--json] [--socket PATH]",
        options: [
            .init(name: "app", value: "APP",
                  help: "The app whose registration it is. Needed by register and unregister; with list, that app's only."),
            .init(name: "json", value: nil, help: "Print the server's answer as JSON."),
            SocketOption.option,
        ],
        firstArguments: actions,
        discussion: [
            "register makes the app's registration, as the app's registerForRemoteNotifications() does (the same one every time: its token, and the key pair and secret pushes are encrypted for, kept across restarts), and prints its device token: the endpoint URL its server posts pushes to, the public key (p256dh) and the auth secret, and the subscription as Web Push libraries take it ({\"endpoint\", \"keys\": {\"p256dh\", \"auth\"}}). Until a distributor gives the endpoint the status is pending, and tidings push list shows it once it has come.",
            "list prints each registration: its app, status and endpoint. unregister deletes the app's registration and its keys at once (pushes for it are refused from then on) and has the front end tell the distributor. status says which UnifiedPush distributor tidings desktop registers with, that none is on the session bus (install one: KUnifiedPush, ntfy's UnifiedPush distributor, NextPush; Debian packages none), or that no tidings desktop runs: it is the connector that receives pushes for the server.",
            "Statuses: registered (the endpoint is known), pending (the front end is registering it), noDistributor (no distributor on the bus), noFrontEnd (no tidings desktop has reported).",
            "Exit status: 0 done (unregistering an app that is not registered is no error; a registration without a distributor is made, and says so); 64 the command line is wrong; 65 the server refused the call; 75 no server listens at the socket (start one with tidings serve), or it is busy or too old; 77 the socket is not the user's own.",
        ],
        examples: [
            "tidings push status",
            "tidings push register --app com.example.chat",
            "tidings push register --app com.example.chat --json",
            "tidings push list",
            "tidings push unregister --app com.example.chat",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard arguments.positionals.count == 1, let action = arguments.positionals.first, actions.contains(action) else {
            throw .usage("tidings push takes one action: register, list, unregister or status (see tidings push --help).")
        }
        let app = arguments.value("app")
        if let app, app.isEmpty { throw .usage("--app needs the app's identifier.") }
        let json = arguments.flag("json")
        let text = PushText(terminal: Terminal(descriptor: 1, environment: environment))
        let answer: JSON
        switch action {
        case "register", "unregister":
            guard let app else { throw .usage("tidings push \(action) needs --app APP: a registration is an app's.") }
            let method: MethodName = action == "register" ? .pushRegister : .pushUnregister
            answer = try SocketOption.call(method, .object([("app", .string(app))]), arguments, environment: environment)
            if !json { print(action == "register" ? text.registered(answer, app: app) : text.unregistered(answer, app: app), terminator: "") }
        case "list":
            answer = try SocketOption.call(.pushList, .object(app.map { [("app", .string($0))] } ?? []), arguments, environment: environment)
            if !json { print(text.list(answer, app: app), terminator: "") }
        default:
            guard app == nil else { throw .usage("tidings push status takes no --app: the distributor is the desktop's, for every app.") }
            answer = try SocketOption.call(.pushList, .object([]), arguments, environment: environment)
            if !json { print(text.status(answer), terminator: "") }
        }
        if json { print(answer.serialized(pretty: true)) }
        return .success
    }
}
