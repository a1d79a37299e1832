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
