// tidings: the command line of the Tidings notification extension host.
import Glibc
import TidingsBase
import TidingsIsolation
import TidingsRuntime

/// The `tidings` command: finds the subcommand and maps failures to exit codes.
enum Tidings {
    /// The commands, in the order `--help` lists them.
    static var commands: [any Command.Type] { [ListCommand.self, DeliverCommand.self, PreviewCommand.self, ServeCommand.self, DesktopCommand.self, ShowCommand.self, ScheduleCommand.self, AppsCommand.self, PushCommand.self, NewCommand.self, ValidateCommand.self, InstallCommand.self, UninstallCommand.self, ManifestCommand.self,
                                            ManualCommand.self, CompletionsCommand.self] }

    /// One line per command: its name, padded to the longest, and its summary.
    static var commandTable: String {
        let width = commands.map { $0.spec.name.count }.max()! + 2
        return commands.map { "  \($0.spec.name.rightPadded(to: width))\($0.spec.summary)" }.joined(separator: "\n")
    }

    static var overview: String {
        """
        tidings: a Linux host for iOS-style notification extensions.

        Usage: tidings COMMAND [OPTIONS]

        Commands:
        \(commandTable)

        Run tidings COMMAND --help for a command's options; tidings --version prints the version.
        """
    }

    /// Runs the command line and returns the exit status.
    static func run(_ arguments: [String], environment: [String: String]) -> ExitCode {
        let terminal = Terminal(descriptor: 2, environment: environment)
        guard let name = arguments.first else {
            printError(overview)
            return .usage
        }
        switch name {
        case "--help", "-h", "help":
            let topic = arguments.dropFirst().first.flatMap { topic in commands.first { $0.spec.name == topic } }
            print(topic?.spec.help ?? overview + "\n", terminator: "")
            return .success
        case "--version":
            print("tidings \(HostFunctions.version)")
            return .success
        default:
            break
        }
        guard let command = commands.first(where: { $0.spec.name == name }) else {
            let hint = Suggestion.closest(to: name, among: commands.map { $0.spec.name }).map { " Did you mean \($0)?" } ?? ""
            printError("tidings: " + terminal.line(for: .error(.usage, "There is no command \"\(name)\" (see tidings --help).\(hint)")))
            return .usage
        }
        do throws(CommandFailure) {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.flag("help") {
                print(command.spec.help, terminator: "")
                return .success
            }
            if command.startsWorkers { try harden() }
            return try command.run(parsed, environment: environment)
        } catch {
            for diagnostic in error.diagnostics { printError("tidings \(name): " + terminal.line(for: diagnostic)) }
            // A program that asked for JSON reads its standard output, not the messages on standard error.
            if arguments.contains("--json") {
                print(JSON.object([("ok", .bool(false)), ("exitCode", .integer(Int64(error.exitCode.rawValue))),
                                   ("diagnostics", .array(error.diagnostics.map(\.json)))]).serialized(pretty: true))
            }
            return error.exitCode
        }
    }

    /// Makes this process non-dumpable before a command that starts workers
    /// runs: a change to the whole process, made here, at its start, not by
    /// the first worker's start.
    static func harden() throws(CommandFailure) {
        do throws(SystemError) {
            try HostHardening.apply()
        } catch {
            throw CommandFailure(.software, [.error(.workerLaunchFailed,
                                                    "This process cannot be made non-dumpable (prctl PR_SET_DUMPABLE): \(error); no worker may start beside it.")])
        }
    }

    /// The process environment as a dictionary.
    static func environment() -> [String: String] {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return environment
    }
}

// `tidings worker` is how a host re-executes this binary to run one extension
// in a process of its own (see WorkerProcess); it is no command for people,
// so --help does not list it.
if CommandLine.arguments.dropFirst().first == "worker" && CommandLine.arguments.count == 2 {
    exit(WorkerProcess.run())
}
exit(Tidings.run(Array(CommandLine.arguments.dropFirst()), environment: Tidings.environment()).rawValue)
