import Testing
import ServerTestSupport
import TestSupport
import TidingsBase
import TidingsServer

/// A device's rules over the real server: a background wake with an alert
/// is shown and reaches the app's inbox; a foreground action's response is
/// marked to open the app; an unreadable APNs field is ignored with a
/// warning; an empty notification is refused with Apple's code.
@Suite struct DeviceRulesServerTests {
    let fixture = ServerFixture()
    static let app = "com.example.chat"

    init() throws {
        try fixture.start()
    }

    func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    func deliver(_ client: RPCClient, _ payload: String, identifier: String = "n") throws -> JSON {
        try client.call("notifications.deliver", json(#"{"app": "\#(Self.app)", "identifier": "\#(identifier)", "payload": \#(payload)}"#))
    }

    @Test func aBackgroundWakeWithAnAlertIsShownAndReachesTheInbox() throws {
        let client = try fixture.client()
        _ = try client.call("events.subscribe")
        let answer = try deliver(client, #"{"aps": {"alert": "New messages", "content-available": 1, "badge": 2}, "sync": "inbox"}"#)
        #expect(answer["display"] == .string("presented"))
        #expect(answer["notification"]?["body"] == .string("New messages") && answer["presentation"] != nil)
        #expect(answer["badge"] == .integer(2))
        let entry = try #require(answer["inbox"])
        #expect(entry["kind"] == .string("background"))
        #expect(entry["notification"]?["identifier"] == .string("n"))
        #expect(entry["notification"]?["userInfo"]?["sync"] == .string("inbox"))
        // Shown, badged and kept for the app, each told to subscribers before the answer.
        let methods = client.events.compactMap { $0["method"]?.stringValue }
        #expect(Set(methods).isSuperset(of: ["notification.delivered", "notification.background", "app.badge-changed"]),
                "\(methods)")
        #expect(try client.event("notification.background")?["notification"]?["body"] == .string("New messages"))
        #expect(try client.call("notifications.list")["notifications"]?.arrayValue?.count == 1)
        let listed = try client.call("inbox.list", .object([("app", .string(Self.app))]))["entries"]?.arrayValue
        #expect(listed?.map { $0["kind"] } == [.string("background")])
    }

    @Test func aBackgroundWakeWithOnlyABadgeSetsItAndReachesTheInbox() throws {
        let client = try fixture.client()
        let answer = try deliver(client, #"{"aps": {"badge": 4, "content-available": 1}}"#)
        #expect(answer["display"] == .string("badge") && answer["badge"] == .integer(4))
        #expect(answer["inbox"]?["kind"] == .string("background"))
        #expect(try client.call("notifications.list")["notifications"] == .array([]))
    }

    @Test func withoutContentAvailableNothingReachesTheInbox() throws {
        let client = try fixture.client()
        let answer = try deliver(client, #"{"aps": {"alert": "Hi"}}"#)
        #expect(answer["display"] == .string("presented") && answer["inbox"] == nil)
        #expect(try client.call("inbox.list", .object([("app", .string(Self.app))]))["entries"] == .array([]))
    }

    @Test func aForegroundActionsResponseIsMarkedToOpenTheApp() throws {
        let client = try fixture.client()
        _ = try client.call("categories.register", json(#"""
            {"app": "\#(Self.app)", "categories": [{"identifier": "chat", "actions": [
              {"identifier": "open", "title": "Open", "options": ["foreground"]},
              {"identifier": "mute", "title": "Mute"}]}]}
            """#))
        _ = try client.call("events.subscribe")
        for (identifier, action, opens) in [("a", "open", true), ("b", "mute", false), ("c", "default", true)] {
            _ = try deliver(client, #"{"aps": {"alert": "Hi", "category": "chat"}}"#, identifier: identifier)
            let outcome = try client.call("notifications.respond", .object([
                ("identifier", .string(identifier)), ("action", .string(action)),
            ]))
            #expect(outcome["forwarded"]?.arrayValue?.first?["opensApp"] == .bool(opens), "\(action): \(outcome)")
            let event = try #require(try client.event("response.forwarded"))
            #expect(event["opensApp"] == .bool(opens), "\(action)")
        }
        let entries = try client.call("inbox.list", .object([("app", .string(Self.app))]))["entries"]?.arrayValue ?? []
        #expect(entries.map { $0["opensApp"] } == [.bool(true), .bool(false), .bool(true)])
    }

    @Test func anUnreadableFieldIsIgnoredWithAWarningAndTheRestShown() throws {
        let client = try fixture.client()
        let answer = try deliver(client, #"{"aps": {"alert": "Hi", "badge": "3", "relevance-score": 7}}"#)
        #expect(answer["display"] == .string("presented") && answer["badge"] == nil)
        let ignored = (answer["diagnostics"]?.arrayValue ?? []).filter { $0["code"] == .string("payload.field-ignored") }
        #expect(ignored.map { $0["severity"] } == [.string("warning"), .string("warning")])
        #expect(ignored.compactMap { $0["path"]?.stringValue } == ["/aps/badge", "/aps/relevance-score"], "\(ignored)")
    }

    @Test(arguments: [#"{"aps": {}}"#, #"{"aps": {"category": "chat"}}"#, #"{"identifier": "r", "content": {"categoryIdentifier": "chat"}}"#])
    func anEmptyNotificationIsRefusedWithApplesCode(payload: String) throws {
        let client = try fixture.client()
        let error = #expect(throws: RPCErrorReply.self) { _ = try deliver(client, payload) }
        #expect(error?.code == -32000)
        #expect(error?.data?["appleCode"] == .integer(1401))
        #expect(error?.data?["diagnostics"]?.arrayValue?.first?["code"] == .string("notification.no-content"))
        #expect(error?.message.contains("1401") == true)
    }

    @Test func aRequestAddedWithEmptyContentIsRefusedWithApplesCode() throws {
        let client = try fixture.client()
        let error = #expect(throws: RPCErrorReply.self) {
            _ = try client.call("requests.add", json(#"""
                {"app": "\#(Self.app)", "request": {"identifier": "r", "content": {"categoryIdentifier": "chat"},
                                                      "trigger": {"timeInterval": 60, "repeats": false}}}
                """#))
        }
        #expect(error?.code == -32000)
        #expect(error?.data?["appleCode"] == .integer(1401))
        #expect(try client.call("requests.pending")["requests"] == .array([]))
    }
}
