import TidingsBase

/// The command line's exit codes, from sysexits(3) where one fits.
enum ExitCode: Int32, CaseIterable {
    /// Done as asked.
    case success = 0
    /// The command line was wrong: an unknown option, a missing argument.
    case usage = 64
    /// An input was invalid: a payload, a category file, a manifest, or a
    /// response the notification does not accept.
    case dataError = 65
    /// An input file does not exist or cannot be read.
    case noInput = 66
    /// An extension failed (to load, to make an instance, to answer in time):
    /// the notification was shown with its default content, or the response
    /// went to the app.
    case extensionFailed = 69
    /// Something failed that should not have: a bug in Tidings.
    case software = 70
    /// The desktop cannot be reached: no session bus, or no libsystemd
    /// (`tidings desktop`).
    case noDesktop = 71
    /// No headless browser was found for a screenshot, or it failed.
    case browserFailed = 72
    /// An output file or directory cannot be created.
    case cannotCreate = 73
    /// No server answers at the socket a command talks to (start one with
    /// `tidings serve`), or it is too busy or too old for the call: try again.
    case unavailable = 75
    /// The server speaks an older protocol than the command needs: restart it with this version.
    case protocolTooOld = 76
    /// A file or directory of Tidings' own (state, cache, fault ledger,
    /// socket, attachment store, configuration) is not what it must be: a
    /// link, a FIFO or another kind, another user's, or writable by others.
    case unsafePath = 77
    /// No window can be shown: no GTK 4 (libgtk-4.so.1) or no display it can
    /// open (`tidings show`); `tidings desktop` falls back to text then.
    case noWindow = 78

    /// One line for `--help`.
    var meaning: String {
        switch self {
        case .success: "success"
        case .usage: "the command line is wrong"
        case .dataError: "an input is invalid (payload, categories, manifest, response)"
        case .noInput: "an input file is missing or unreadable"
        case .extensionFailed: "an extension failed; the default content was shown or the response went to the app"
        case .software: "an internal error"
        case .noDesktop: "no session bus or no libsystemd to reach the desktop with"
        case .browserFailed: "no headless browser was found for the screenshot, or it failed"
        case .cannotCreate: "an output cannot be written"
        case .unavailable: "no server answers at the socket (start one with tidings serve), or it cannot take the call now"
        case .protocolTooOld: "the server speaks an older protocol than the command needs (restart it with this tidings)"
        case .unsafePath: "a file or directory of Tidings' own is a link, of the wrong kind, another user's, or writable by others"
        case .noWindow: "no window can be shown: no GTK 4 (libgtk-4.so.1) or no display"
        }
    }
}

/// Why a command stopped: the exit code and what to tell the user.
struct CommandFailure: Error {
    var exitCode: ExitCode
    var diagnostics: [Diagnostic]

    init(_ exitCode: ExitCode, _ diagnostics: [Diagnostic]) {
        self.exitCode = exitCode
        self.diagnostics = diagnostics
    }

    /// A usage error with one sentence.
    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(.usage, [.error(.usage, message)])
    }

    /// The failure for a diagnostic from reading an input file.
    static func input(_ diagnostic: Diagnostic) -> CommandFailure {
        let code: ExitCode = diagnostic.code == .fileNotFound || diagnostic.code == .fileUnreadable ? .noInput : .dataError
        return CommandFailure(code, [diagnostic])
    }

    /// The failure for a diagnostic about a file or directory of Tidings'
    /// own: `unsafePath` when it refuses the path (see
    /// `Diagnostic.Code.refusesPath`), else `otherwise`.
    static func ownFile(_ diagnostic: Diagnostic, otherwise: ExitCode) -> CommandFailure {
        CommandFailure(diagnostic.code.refusesPath ? .unsafePath : otherwise, [diagnostic])
    }
}

extension Diagnostic.Code {
    /// The command line is wrong.
    static let usage = Self("cli.usage")
}
