import Synchronization
import TidingsBase

/// How a client answered a request the server sent it.
package enum ClientReply: Sendable {
    /// Its `result`.
    case result(JSON)
    /// The `error` it answered.
    case error(RPCError)
    /// No answer came before the deadline.
    case timedOut
    /// The connection ended (or could take nothing more) before it answered.
    case gone
}

/// A client the server can ask: JSON-RPC allows requests both ways on one
/// connection, and the server sends its own (`app.willPresent`) under ids
/// of its own, `"s1"`, `"s2"`, … on each connection.
package protocol RequestReceiver: EventReceiver {
    /// Sends the request `method` with `params` and calls `answer` once:
    /// with the client's answer, or `timedOut` `seconds` after, or `gone`
    /// as soon as the connection ends; never on the calling thread's stack
    /// when it answers later, and holding no thread while it waits.
    func ask(_ method: String, _ params: JSON, within seconds: Double,
             answer: @escaping @Sendable (ClientReply) -> Void)
}

/// What became of the requests the server sent its clients, for
/// `server.describe`: sent, answered, unanswered (the deadline passed or the
/// connection ended), and answers to an id no request waits under (ignored).
package final class ServerRequestTally: Sendable {
    private let counts = Mutex<(sent: Int, answered: Int, unanswered: Int, unknown: Int)>((0, 0, 0, 0))

    /// Nothing counted yet.
    package init() {}

    /// A request was sent.
    func sent() { counts.withLock { $0.sent += 1 } }
    /// A request was answered by its client.
    func answered() { counts.withLock { $0.answered += 1 } }
    /// `count` requests went unanswered: their deadline passed, or their connection ended.
    func unanswered(_ count: Int = 1) { counts.withLock { $0.unanswered += count } }
    /// A client answered an id no request waits under.
    func unknownResponse() { counts.withLock { $0.unknown += 1 } }

    /// The counts as `server.describe` lists them.
    package var json: JSON {
        let counts = self.counts.withLock { $0 }
        return .object([
            ("sent", .integer(Int64(counts.sent))), ("answered", .integer(Int64(counts.answered))),
            ("unanswered", .integer(Int64(counts.unanswered))), ("unknownResponses", .integer(Int64(counts.unknown))),
        ])
    }
}

/// The requests one connection sent its client and awaits the answers of,
/// by id: numbered `"s1"`, `"s2"`, … in the order sent; each answered once
/// (by the client, its deadline, or the connection's end).
final class ServerRequests: Sendable {
    /// Told the client's answer.
    typealias Answer = @Sendable (ClientReply) -> Void

    private let state = Mutex<(next: Int, waiting: [String: Answer], ended: Bool)>((1, [:], false))

    /// A new request's id, `answer` kept under it; nil once the connection ended.
    func open(_ answer: @escaping Answer) -> String? {
        state.withLock { state -> String? in
            guard !state.ended else { return nil }
            let id = "s\(state.next)"
            state.next += 1
            state.waiting[id] = answer
            return id
        }
    }

    /// The answer waiting under `id`, taken: nil when none does (never
    /// sent, answered already, or past its deadline).
    func take(_ id: RPCID) -> Answer? {
        guard case .string(let key) = id else { return nil }
        return state.withLock { $0.waiting.removeValue(forKey: key) }
    }

    /// No more is sent: the answers still waiting, taken.
    func end() -> [Answer] {
        state.withLock { state in
            state.ended = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
    }
}
