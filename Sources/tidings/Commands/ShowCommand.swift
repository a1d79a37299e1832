import Glibc
import TidingsBase
import TidingsDesktop
import TidingsWindow

/// `tidings show`: a notification's expanded interface in a window of its
/// own, drawn with GTK 4 from the running server's presentation, live.
enum ShowCommand: Command {
    static let spec = CommandSpec(
        name: "show",
        summary: "Open a delivered notification's expanded interface in a window (GTK 4): its extension's view, live, with the default content and the category's actions.",
        usage: "IDENTIFIER [--app ID] [--socket PATH] [--width POINTS] [--appearance light|dark] [--reply ACTION] [--json]",
        options: [
            SocketOption.option,
            .init(name: "app", value: "ID",
                  help: "The app the notification is of; may be left out when exactly one app has a notification of that identifier delivered (the server refuses the window, exit 65, when several do)."),
            .init(name: "width", value: "POINTS",
                  help: "The window's width in logical pixels (default 360; GTK scales it for HiDPI). The view is width × the extension's ratio high while it loads, then the height it prefers."),
            .init(name: "appearance", value: "light|dark", help: "Force the light or dark style (default: GTK's own setting)."),
            .init(name: "reply", value: "ACTION",
                  help: "Open with the field of the text-input action ACTION showing and focused (what tidings desktop does for such an action on a notification server without inline replies)."),
            .init(name: "json", value: nil,
                  help: "Log one JSON object per line on standard output, each with an \"event\" field, for programs."),
        ],
        discussion: [
            "It is a front end of its own over the server's protocol: it opens the interface (notifications.open), draws the presentation natively — the header, the default content unless the extension hides it, the extension's view (stacks, labels with their style and colour, images from attachments, buttons, text fields; hidden elements left out), the media play/pause button at its frame, then the category's actions in order, destructive ones marked; a text-input action opens a field with its button title and placeholder and sends the text as the response. The view's buttons and fields work only when the extension enables user interaction (as on iOS): a button sends notifications.interact (tap), a field on Enter notifications.interact (submit), the media button notifications.tap-media-button.",
            "It follows the server's events: a change of the presentation is drawn in the next frame; the window closes when the notification is dismissed. Closing the window (its close button or Esc) closes the interface (notifications.close); the notification stays delivered. Tab moves between the controls and Enter activates one; every control has an accessible name. Until the extension has filled its view the window says \"Loading…\"; when the extension fails or misses its deadline, the window and the log say so and what became of the response.",
            "GTK 4 (libgtk-4.so.1) is opened at run time; the cairo renderer is used unless GSK_RENDERER says otherwise. Without GTK or a display it says so in one line and exits 78 (tidings desktop then shows the notification as text).",
            "JSON log events (--json): shown (after the first frame: identifier, width and height of the window as allocated, viewHeight, loading, status, and controls: each control's name, kind — action, button, textField, mediaButton, textInput, send — and frame [x, y, width, height] in the window's coordinates), redrawn (after each change drawn, the same fields), sent (each call a control made: method and its params), answered (the server's answer: method, receiver, option, userText, dismissed), refused, incomplete (the extension did not complete: code, message, response), closed (by person or server, and reason).",
            "Exit status: 0 the window was closed; 64 the command line is wrong; 65 the server has no such notification; 75 no server answers at the socket, or it went away; 77 the socket is not the user's own; 78 no GTK 4 or no display.",
        ],
        examples: [
            "tidings show invite-offsite-2026",
            "tidings show invite-offsite-2026 --width 420 --appearance dark",
            "tidings show invite-offsite-2026 --socket ./run/tidings.sock --json",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard arguments.positionals.count == 1, let identifier = arguments.positionals.first, !identifier.isEmpty else {
            throw .usage("tidings show takes one notification identifier (see tidings show --help).")
        }
        guard let socket = arguments.value("socket") ?? UnixSocket.defaultPath(in: environment) else {
            throw .usage("XDG_RUNTIME_DIR is not set, so there is no default socket: give the server's with --socket PATH.")
        }
        var options = WindowOptions(identifier: identifier, socketPath: socket)
        options.app = arguments.value("app")
        if let width = try arguments.positiveNumber("width") {
            guard width <= 4_096 else { throw .usage("--width must be at most 4096 logical pixels; it is \(NumberText.short(width)).") }
            options.width = Int(width.rounded())
        }
        if let appearance = arguments.value("appearance") {
            guard let chosen = WindowOptions.Appearance(rawValue: appearance) else {
                throw .usage("--appearance is light or dark, not \"\(appearance)\".")
            }
            options.appearance = chosen
        }
        options.reply = arguments.value("reply")
        // A log reader that went away (the front end that started it) leaves the window open: its writes fail, quietly.
        signal(SIGPIPE, SIG_IGN)
        let log = FrontEndLog(json: arguments.flag("json"), verbose: false, name: "tidings show")
        let toolkit: Toolkit
        do throws(Diagnostic) {
            toolkit = try Toolkit()
        } catch {
            throw CommandFailure(.noWindow, [error])
        }
        let window: ExpandedWindow
        do throws(Diagnostic) {
            window = try ExpandedWindow(options: options, toolkit: toolkit, log: log)
        } catch {
            guard error.code.refusesPath else {
                throw CommandFailure(.unavailable, [.error(.noServer, "No server listens at \(socket); start one with `tidings serve`.")])
            }
            throw CommandFailure(.unsafePath, [error])
        }
        do throws(WindowFailure) {
            try window.run()
        } catch {
            throw CommandFailure(error.noWindow ? .noWindow : error.diagnostic.code == .windowRefused ? .dataError : .unavailable,
                                 [error.diagnostic])
        }
        return .success
    }
}
