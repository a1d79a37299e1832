import TidingsBase
import TidingsProtocol
import TidingsServer

/// `--socket PATH` of the commands that talk to a running `tidings serve`,
/// and what their connection's failures mean for the command line.
enum SocketOption {
    /// The option.
    static let option = CommandSpec.Option(
        name: "socket", value: "PATH",
        help: "The socket of the server to talk to (default $XDG_RUNTIME_DIR/tidings/tidings.sock, where tidings serve listens by default).")

    /// The client of the server `--socket` (or the default) names, connected.
    static func connect(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ServerClient {
        let given = arguments.value(option.name)
        guard let path = given ?? UnixSocket.defaultPath(in: environment) else {
            throw .usage("XDG_RUNTIME_DIR is not set, so there is no default socket: give the server's with --socket PATH.")
        }
        do throws(ServerClient.Failure) {
            return try ServerClient(path: path)
        } catch {
            guard case .noServer = error else { throw failure(error, calling: "a connection") }
            let start = "tidings serve" + (given == nil ? "" : " --socket \(path)")
            throw CommandFailure(.unavailable, [.error(.noServer, "No server listens at \(path); start one with `\(start)`.")])
        }
    }

    /// Calls `method` with `params` on the server `--socket` names, on a
    /// connection of its own; its failures as the command's.
    static func call(_ method: MethodName, _ params: JSON, _ arguments: ParsedArguments,
                     environment: [String: String]) throws(CommandFailure) -> JSON {
        let client = try connect(arguments, environment: environment)
        do throws(ServerClient.Failure) {
            return try client.call(method, params)
        } catch {
            throw failure(error, calling: method.rawValue)
        }
    }

    /// The command's failure for `failure`, met calling `method`: one line
    /// each, and an exit code by what the server said (see `ExitCode`).
    static func failure(_ failure: ServerClient.Failure, calling method: String) -> CommandFailure {
        switch failure {
        case .noServer(let path):
            return CommandFailure(.unavailable, [.error(.noServer, "No server listens at \(path); start one with `tidings serve`.")])
        case .unsafe(let problem):
            return CommandFailure(.unsafePath, [problem])
        case .broken(let message):
            return CommandFailure(.unavailable, [.error(.serverUnanswered, message)])
        case .answered(let error):
            let diagnostic = Diagnostic.error(error.cause, error.message)
            switch error.code {
            case -32601:
                return CommandFailure(.unavailable, [.error(error.cause,
                    "The server does not know \(method): it is older than this tidings; restart it (tidings serve) with this version.")])
            case -32005:
                return CommandFailure(.unavailable, [diagnostic])
            case -32010:
                return CommandFailure(.cannotCreate, [diagnostic])
            case -32099 ... -32000, -32602:
                return CommandFailure(.dataError, [diagnostic])
            default:
                return CommandFailure(.software, [diagnostic])
            }
        }
    }
}

extension Diagnostic.Code {
    /// No server listens at the socket a command talks to.
    static let noServer = Self("cli.no-server")
    /// The server closed the connection, did not answer in time, or answered something that is not JSON-RPC.
    static let serverUnanswered = Self("cli.server-unanswered")
}
