import Foundation
import ServerTestSupport
import TestSupport
import TidingsApp
import TidingsBase
import Testing

/// The center says hello as its app, and the host then holds it to it: it
/// removes none of another app's notifications, even by identifier.
@Suite(.serialized, .onOwnThreads) struct AppIdentityTests {
    @Test func theCenterSaysHelloAsItsAppAndTouchesOnlyItsOwn() async throws {
        let host = try HostFixture()
        try host.deliver(#"{"aps": {"alert": {"title": "Take your pill"}}}"#, app: "org.example.pills", identifier: "dose-1")
        let center = host.center("org.example.app")
        try await center.removeDeliveredNotifications(withIdentifiers: ["dose-1"])
        let others = try host.frontEnd.call("notifications.list", try host.json(#"{"app": "org.example.pills"}"#))
        #expect(others["notifications"]?.arrayValue?.count == 1, "the other app's notification is still delivered")
        #expect(try await center.deliveredNotifications().isEmpty)
        let log = try String(contentsOfFile: host.directory.file("server.log"), encoding: .utf8)
        #expect(log.contains("Hello: app org.example.app, client TidingsApp"), "\(log)")
    }
}
