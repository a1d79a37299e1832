import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// Authorization through a real `tidings serve`: `--unasked-apps deny`
/// denies an app that never asked until the user allows it, and the
/// decision survives a `kill -9`.
@Suite struct AuthorizationServeTests {
    let fixture = ServerFixture()
    static let app = "com.example.reminders"

    func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    @Test func unaskedAppsAreDeniedWhenTheServerIsToldAndAllowingSurvivesAKill() throws {
        let alert = try json(#"{"app": "\#(Self.app)", "payload": {"aps": {"alert": {"title": "Stand up"}, "badge": 2}}}"#)
        let first = try fixture.startProcess(.inProcess, options: ["--unasked-apps", "deny"])
        let client = try fixture.client()
        #expect(try client.call("notifications.deliver", alert)["display"] == .string("denied"), "\(fixture.serveLog)")
        #expect(try client.call("authorization.decide", json(#"{"app": "\#(Self.app)", "decision": "allow"}"#))["status"]
            == .string("authorized"))
        #expect(try client.call("notifications.deliver", alert)["display"] == .string("presented"))
        first.stop(with: SIGKILL)

        let second = try fixture.startProcess(.inProcess, options: ["--unasked-apps", "deny"])
        defer { second.stop() }
        let again = try fixture.client()
        let answer = try again.call("authorization.request", json(#"{"app": "\#(Self.app)", "options": ["alert"]}"#))
        #expect(answer["granted"] == .bool(true) && answer["status"] == .string("authorized"))
        #expect(try again.call("notifications.deliver", alert)["display"] == .string("presented"))
    }

    /// A request waiting for the user ends with its connection (an app that
    /// quit holds nothing open), and an app has at most
    /// `AppAuthorizations.waitingLimit` requests waiting at once.
    @Test func waitingRequestsEndWithTheirConnectionAndAreBounded() throws {
        let server = try fixture.startProcess(.inProcess)
        defer { server.stop() }
        let waiting = try json(#"{"app": "\#(Self.app)", "options": ["alert"], "timeout": 86400}"#)
        let brief = try json(#"{"app": "\#(Self.app)", "options": ["alert"], "timeout": 0.01}"#)
        /// What a request that would wait briefly is answered: nil when refused for too many waiting.
        func tryBrief(_ client: RPCClient) throws -> JSON? {
            do {
                return try client.call("authorization.request", brief)
            } catch let refusal as RPCErrorReply where refusal.code == -32602 {
                #expect(refusal.message.contains("requests waiting"), "\(refusal.message)")
                return nil
            }
        }
        var leaving: RPCClient? = try fixture.client()
        for _ in 0..<64 { leaving?.request("authorization.request", waiting) }
        let other = try fixture.client()
        // Once the 64 wait, one more is refused.
        #expect(try eventually { try tryBrief(other) == nil }, "\(fixture.serveLog)")
        // The connection they came on closes: they end, and a request waits again (and times out).
        leaving = nil
        var answered: JSON?
        #expect(try eventually {
            answered = try tryBrief(other)
            return answered != nil
        }, "\(fixture.serveLog)")
        #expect(answered?["timedOut"] == .bool(true) && answered?["status"] == .string("notDetermined"))
        _ = leaving
    }

    /// A request waiting for the user ends with its connection: an app that
    /// quit while its prompt was up holds nothing open, and the next request
    /// of the app is the first waiting again (the prompt is asked anew).
    @Test func aWaitingRequestEndsWithItsConnection() throws {
        let server = try fixture.startProcess(.inProcess)
        defer { server.stop() }
        let watcher = try fixture.client()
        _ = try watcher.call("events.subscribe", json(#"{"apps": ["\#(Self.app)"], "replay": false}"#))
        var leaving: RPCClient? = try fixture.client()
        leaving?.request("authorization.request", try json(#"{"app": "\#(Self.app)", "options": ["alert"], "timeout": 86400}"#))
        #expect(try watcher.event("authorization.requested") != nil, "\(fixture.serveLog)")
        leaving = nil
        let brief = try json(#"{"app": "\#(Self.app)", "options": ["alert"], "timeout": 0.01}"#)
        #expect(try eventually {
            _ = try watcher.call("authorization.request", brief)
            return try watcher.event("authorization.requested", timeout: 0) != nil
        }, "\(fixture.serveLog)")
        _ = leaving
    }
}
