import Glibc
import TidingsBase
import TidingsDesktop

/// `tidings desktop`: the Linux desktop front end, a client of `tidings serve`
/// that shows its notifications on the session's notification server.
enum DesktopCommand: Command {
    static let spec = CommandSpec(
        name: "desktop",
        summary: "Show a running server's notifications (tidings serve) on the desktop's notification server (org.freedesktop.Notifications: GNOME, KDE, dunst, mako…) and answer it with what the user does there.",
        usage: "[--socket PATH] [--bus ADDRESS] [--notifications-name NAME] [--state FILE] [--call-deadline SECONDS] [--geoclue-bus ADDRESS|off] [--geoclue-name NAME] [--push-bus ADDRESS|off] [--push-distributor NAME] [--no-wait] [--json] [--verbose]",
        options: [
            SocketOption.option,
            .init(name: "bus", value: "ADDRESS",
                  help: "The D-Bus address of the session bus (default $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus)."),
            .init(name: "notifications-name", value: "NAME",
                  help: "The bus name of the notification server (default org.freedesktop.Notifications)."),
            .init(name: "state", value: "FILE",
                  help: "Where to keep the last event handled and what is on screen, so that a restart doubles nothing (default desktop.json beside the socket)."),
            .init(name: "call-deadline", value: "SECONDS",
                  help: "How long a call on the notification server may go unanswered before the front end says so (timedOut) and goes on without it; the call still waits for its answer, so nothing is lost or doubled (default 5). Also the longest each call made while connecting waits."),
            .init(name: "geoclue-bus", value: "ADDRESS",
                  help: "The D-Bus address of the bus GeoClue2 is on, whose positions feed region requests while one is pending (default $DBUS_SYSTEM_BUS_ADDRESS, else the system bus's socket); off: the device's position is not followed."),
            .init(name: "geoclue-name", value: "NAME",
                  help: "GeoClue's bus name there (default org.freedesktop.GeoClue2)."),
            .init(name: "push-bus", value: "ADDRESS",
                  help: "The D-Bus address of the bus the UnifiedPush distributor is on, where the front end is Tidings' connector (org.tidings.Push) for remote notifications (default the session bus, --bus); off: no remote notifications arrive."),
            .init(name: "push-distributor", value: "NAME",
                  help: "The UnifiedPush distributor to register with when it is on the bus (org.unifiedpush.Distributor.NAME, or NAME alone); default the one registered with before, else the first by name."),
            .init(name: "no-wait", value: nil, help: "Fail (exit 75) when no server listens at the start, instead of waiting for one."),
            .init(name: "json", value: nil,
                  help: "Also log one JSON object per line on standard output, each with an \"event\" field, for programs."),
            .init(name: "verbose", value: nil, help: "Also log for people what is more than a line per notification and per answer (replacements, closes, the action chosen, responses handed to apps), and every event heard and skipped; --json has every event either way."),
        ],
        discussion: [
            "It runs until SIGTERM or SIGINT. Each notification the server presents is shown with its app's name and icon, its title and body, its category's actions and the default action; a change of its presentation replaces it; one the server dismisses or removes is closed. Choosing an action answers it (notifications.respond); the action that opens the content extension's interface (Show More) starts its window, tidings show IDENTIFIER, a process of its own (one per notification; its log lines relayed as window events), or, where no window can be shown (no GTK 4 or no display: tidings show exits 78), opens it with notifications.open and replaces the notification with the extension's view as text; closing it on the desktop dismisses it (action dismiss), and one that expires stays delivered. Responses the server forwards to an app are handed to it with org.freedesktop.Application.ActivateAction and taken from its inbox; an app without a bus name keeps them in its inbox.",
            "It reconnects when the server or the bus goes away (retrying from 0.1 s to every 2 s, at once when the socket reappears) and resumes after the last event it handled; when the server cannot resume, it lists every notification again and closes, shows or replaces what differs. It keeps what it shows in --state, so that a restarted front end replaces rather than doubles.",
            "JSON log events (--json): waiting, desktop, connected, reconnected, disconnected, synchronised, shown, closed, invoked, responded, refused, opened, prompted, decided, activated, kept, lost, degraded, lagging, state, location, located, push, timedOut, answered, app (what apps.list said of an app: app, name, settings), window (a window's life: started, failed, unavailable, ended with its status or signal, or one of its own log lines as line). Each line is {\"event\": NAME, …}; shown has identifier, app, desktopID, replaced, takenOver (shown again from this front end, which a previous one showed), summary and actions (each key's meaning: respond:ID, reply:ID, open, allow, deny); closed has identifier, desktopID, by (tidings or desktop) and reason; responded has identifier, action, receiver, option, dismissed and completed (false: the extension never completed the response); location says whether GeoClue is asked (wanted, regions, apps) and how it goes (geoclue: started, stopped or failed); located has latitude, longitude, accuracy and the requests it fired; push has step (ready, listed, distributor with name and interface, registered, registration-failed with reason, endpoint, message with bytes and id, delivered, duplicate, server-refused with reason, unregistered, unregistering, unregister, confirmed, requested, gone, restarted, refused, failed, lost) and the token.",
            "Exit status: 0 stopped by a signal; 64 the command line is wrong; 71 no session bus or no libsystemd (sd-bus); 75 no server listens (with --no-wait), or another tidings desktop runs on the session bus (one owns org.tidings.Desktop); 76 the server's protocol is older than version 2; 77 the socket is not the user's own.",
        ],
        examples: [
            "tidings desktop",
            "tidings desktop --socket ./run/tidings.sock --json",
            "tidings desktop --no-wait --verbose",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard arguments.positionals.isEmpty else { throw .usage("tidings desktop takes no arguments (see tidings desktop --help).") }
        guard let socket = arguments.value("socket") ?? UnixSocket.defaultPath(in: environment) else {
            throw .usage("XDG_RUNTIME_DIR is not set, so there is no default socket: give the server's with --socket PATH.")
        }
        let library: SDBusLibrary
        let address: String
        do throws(BusError) {
            library = try SDBusLibrary()
            if let given = arguments.value("bus") {
                address = given
            } else {
                address = try BusConnection.sessionAddress { environment[$0] }
            }
        } catch {
            throw CommandFailure(.noDesktop, [error.diagnostic])
        }
        var options = FrontEndOptions(socketPath: socket, busAddress: address)
        if let name = arguments.value("notifications-name") { options.notificationsName = name }
        options.statePath = arguments.value("state") ?? Path.join(Path.directory(of: socket), "desktop.json")
        options.waitForServer = !arguments.flag("no-wait")
        options.json = arguments.flag("json")
        options.verbose = arguments.flag("verbose")
        if let deadline = try arguments.positiveNumber("call-deadline") { options.callDeadline = deadline }
        let geoclue = arguments.value("geoclue-bus") ?? FrontEndOptions.systemBusAddress { environment[$0] }
        options.geoclueAddress = geoclue == "off" ? nil : geoclue
        if let name = arguments.value("geoclue-name") { options.geoclueName = name }
        let push = arguments.value("push-bus") ?? address
        options.pushAddress = push == "off" ? nil : push
        options.pushDistributor = arguments.value("push-distributor")
        let stop: StopPipe
        do throws(SystemError) {
            stop = try StopPipe()
        } catch {
            throw CommandFailure(.software, [.error(.desktopSystem, "Cannot make the stop pipe: \(error).")])
        }
        StopSignals.block().wait { _ in stop.stop() }
        do throws(FrontEndError) {
            let frontEnd = try DesktopFrontEnd(options: options, library: library,
                                               log: FrontEndLog(json: options.json, verbose: options.verbose), stop: stop)
            try frontEnd.run()
        } catch {
            throw CommandFailure(exitCode(for: error.kind), [error.diagnostic])
        }
        return .success
    }

    /// The exit code of a front end that stopped for `kind`.
    private static func exitCode(for kind: FrontEndError.Kind) -> ExitCode {
        switch kind {
        case .noServer, .alreadyRunning: .unavailable
        case .unsafeSocket: .unsafePath
        case .protocolTooOld: .protocolTooOld
        case .noSessionBus, .noLibrary: .noDesktop
        case .system: .software
        }
    }
}
