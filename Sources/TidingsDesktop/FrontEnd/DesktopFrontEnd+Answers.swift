import TidingsBase
import TidingsProtocol

/// What the user does on the desktop, sent to the server: `notifications.respond`,
/// `notifications.open`, `authorization.decide`. None is lost while the server
/// is away: each waits (at most `answersKept`) and is sent once the front end is
/// synchronised with the server again; one sent on a connection that ended
/// before its answer came is sent again.
extension DesktopFrontEnd {
    /// A call made for the user, and what to do with its answer.
    struct Answer {
        /// The method and its params.
        var method: MethodName
        var params: JSON
        /// Called with the server's answer.
        var then: (Result<JSON, RPCErrorReply>) -> Void
    }

    /// The most answers kept while the server is away; the oldest beyond are lost (and logged).
    static let answersKept = 100

    /// Sends `method` with `params` for the user now, or once the server is back.
    func answer(_ method: MethodName, _ params: JSON, then: @escaping (Result<JSON, RPCErrorReply>) -> Void) {
        let answer = Answer(method: method, params: params, then: then)
        guard let server, synchronised else {
            log.record("queued", [("method", .string(method.rawValue)), ("params", params)],
                       "the server is away: \(method) is sent once it is back")
            return keep([answer])
        }
        send(answer, on: server)
    }

    /// Sends the answers kept while the server was away (once synchronised again).
    func sendKeptAnswers() {
        guard let server, synchronised else { return }
        let kept = answersWaiting
        answersWaiting = []
        for answer in kept { send(answer, on: server) }
    }

    /// The server went away: the answers it did not answer are kept, to be sent again.
    func keepUnansweredAnswers() {
        let unanswered = answersInFlight.sorted { $0.key < $1.key }.map(\.value)
        answersInFlight = [:]
        answersWaiting = unanswered + answersWaiting
        keep([])
    }

    private func send(_ answer: Answer, on server: PolledRPCConnection) {
        nextAnswer += 1
        let key = nextAnswer
        answersInFlight[key] = answer
        server.call(answer.method, answer.params) { [unowned self] result in
            answersInFlight[key] = nil
            answer.then(result)
        }
    }

    /// Appends `answers` to those waiting, losing the oldest beyond `answersKept`.
    private func keep(_ answers: [Answer]) {
        answersWaiting += answers
        guard answersWaiting.count > Self.answersKept else { return }
        let lost = answersWaiting.prefix(answersWaiting.count - Self.answersKept)
        answersWaiting.removeFirst(lost.count)
        for answer in lost {
            log.record("lost", [("method", .string(answer.method.rawValue)), ("params", answer.params)],
                       "too many answers wait for the server: \(answer.method) is lost")
        }
    }
}
