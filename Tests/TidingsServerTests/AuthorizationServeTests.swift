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
}
