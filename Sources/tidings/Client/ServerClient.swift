import TidingsBase
import TidingsProtocol
import TidingsServer

/// A JSON-RPC 2.0 client of a running `tidings serve`, over its Unix
/// socket: TidingsProtocol's blocking client, its failures said as the
/// command line says them. A call sends one request and waits for its
/// answer, keeping the events a subscribed connection is pushed meanwhile.
/// Used by one thread; it owns its socket.
final class ServerClient {
    /// Why a call got no result.
    enum Failure: Error {
        /// No server answers at the socket: none listens, or the socket or its directory is missing.
        case noServer(path: String)
        /// The socket or its directory is not the user's own, or another user's server listens there.
        case unsafe(Diagnostic)
        /// The server answered with an error object.
        case answered(RPCError)
        /// The connection broke, or the answer was not JSON-RPC.
        case broken(String)
    }

    /// The socket's path, for messages.
    let path: String
    private let client: BlockingRPCClient

    /// The longest a call waits for its answer, in seconds.
    static let answerTimeout = 30.0

    /// Connects to the server listening at `path` (see `UnixSocket.connect(to:)`:
    /// the socket must be the user's own, and so must the server).
    init(path: String) throws(Failure) {
        self.path = path
        do throws(Diagnostic) {
            client = try BlockingRPCClient(path: path)
        } catch {
            if error.code.refusesPath { throw .unsafe(error) }
            throw .noServer(path: path)
        }
        // The command line acts for the person: a front end. Its answer is not waited for
        // (every later call is ordered after it); a server older than hello answers -32601.
        _ = try? client.request(.serverHello, ClientHello.frontEnd(client: "tidings command line"))
    }

    /// Calls `method` with `params` and returns its result; thrown: the
    /// server's error (or its refusal of the line or the connection), or why no answer came.
    func call(_ method: MethodName, _ params: JSON = .object([])) throws(Failure) -> JSON {
        let answer: JSON
        do throws(RPCClientFailure) {
            let id = try client.request(method, params)
            answer = try client.answer(to: id, orRefusal: true, until: MonotonicClock.deadline(after: Self.answerTimeout))
        } catch {
            switch error {
            case .timedOut: throw .broken("The server at \(path) did not answer within \(NumberText.short(Self.answerTimeout)) s.")
            case .broken(let reason): throw .broken("The server at \(path) gave no answer: \(reason)")
            }
        }
        if let error = answer["error"] {
            let reply = RPCErrorReply(errorObject: error)
            throw .answered(RPCError(Int(clamping: reply.code), reply.message, data: reply.data))
        }
        return answer["result"] ?? .null
    }
}

extension RPCError {
    /// The most precise name of what went wrong, for a client's message:
    /// the code of the first error among `data.diagnostics`, else
    /// `data.cause`, else `rpc.CODE`.
    var cause: Diagnostic.Code {
        let diagnostics = data?["diagnostics"]?.arrayValue ?? []
        let first = diagnostics.first { $0["severity"]?.stringValue == "error" } ?? diagnostics.first
        if let code = first?["code"]?.stringValue ?? data?["cause"]?.stringValue { return Diagnostic.Code(code) }
        return Diagnostic.Code("rpc.\(code)")
    }
}
