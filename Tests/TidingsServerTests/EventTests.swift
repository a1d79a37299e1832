import Testing
import ServerTestSupport
import TestSupport
import TidingsBase
import TidingsServer

/// What a second front end hears of what the first one does, over the real
/// server: each event, who hears it (the subscribers of its app, and those
/// of every app), and nothing for the subscribers of other apps.
///
/// Events a call causes are pushed before the call is answered; so once a
/// listener's own request is answered, every event meant for it by a call
/// answered before has arrived: that is how silence is asserted, without waiting.
@Suite struct EventTests {
    let fixture = ServerFixture()
    static let app = "com.example.tests"
    /// Misbehaving counts the notifications its instance received into label "count".
    static let interface = """
        {"version": 1, "root": {"type": "stack", "children": [
          {"type": "label", "id": "count"}, {"type": "label", "id": "instances"}]}}
        """

    init() throws {
        try fixture.installC("Misbehaving", identifier: "com.example.tests.misbehaving", categories: ["misbehave"],
                             interface: Self.interface)
        try fixture.installBroken(.noEntry, identifier: "com.example.broken.extension", categories: ["broken"])
        try fixture.start()
    }

    /// A request payload of category "misbehave", of thread `thread` when given.
    func payload(_ identifier: String, title: String = "T", thread: String? = nil) -> JSON {
        var content: [(String, JSON)] = [("title", .string(title)), ("body", .string("B")),
                                         ("categoryIdentifier", .string("misbehave"))]
        if let thread { content.append(("threadIdentifier", .string(thread))) }
        return .object([("identifier", .string(identifier)), ("content", .object(content))])
    }

    func deliver(_ client: RPCClient, _ payload: JSON, app: String = Self.app) throws -> JSON {
        try client.call("notifications.deliver", .object([("payload", payload), ("app", .string(app)), ("open", .bool(true))]))
    }

    /// A client subscribed to `apps` (nil: with no parameter, every app).
    func subscriber(_ apps: JSON?) throws -> RPCClient {
        let client = try fixture.client()
        _ = try client.call("events.subscribe", apps.map { .object([("apps", $0)]) })
        return client
    }

    /// The events `client` has heard by now: those pushed before its own request is answered.
    func heard(by client: RPCClient) throws -> [JSON] {
        _ = try client.call("server.describe")
        return client.events
    }

    /// The text of label "count" in a presentation.
    func count(_ presentation: JSON?) -> String? {
        presentation?["view"]?["children"]?.arrayValue?.first?["text"]?.stringValue
    }

    @Test func aSecondFrontEndHearsEachDeliveryWithWhatItNeedsToShowIt() throws {
        let second = try subscriber(.array([.string(Self.app)]))
        let elsewhere = try subscriber(.array([.string("com.example.other")]))
        let first = try fixture.client()
        let answer = try deliver(first, payload("hello", title: "Lunch?"))

        let delivered = try #require(try second.event("notification.delivered"))
        #expect(delivered["app"] == .string(Self.app))
        #expect(delivered["notification"]?["identifier"] == .string("hello"))
        #expect(delivered["notification"]?["title"] == .string("Lunch?"))
        #expect(delivered["presentation"] == answer["presentation"], "the presentation the delivering client got")
        #expect(count(delivered["presentation"]) == "1")
        #expect(try heard(by: elsewhere).isEmpty)
    }

    @Test func aDeliveryOfTheSameIdentifierReplacesTheOldOne() throws {
        let second = try subscriber(.array([.string(Self.app)]))
        let first = try fixture.client()
        _ = try deliver(first, payload("score", title: "1 – 0"))
        _ = try deliver(first, payload("score", title: "2 – 0"))

        let dismissed = try #require(try second.event("notification.dismissed"))
        #expect(dismissed["identifier"] == .string("score"))
        #expect(dismissed["reason"] == .string("replaced"))
        let titles = [try second.event("notification.delivered"), try second.event("notification.delivered")]
            .map { $0?["notification"]?["title"] }
        #expect(titles == [.string("1 – 0"), .string("2 – 0")])
        #expect(try first.listAll().map { $0["notification"]?["title"] } == [.string("2 – 0")])
    }

    /// Delivers `payload` as a banner: its interface stays closed.
    func deliverBanner(_ client: RPCClient, _ payload: JSON) throws -> JSON {
        try client.call("notifications.deliver", .object([("payload", payload), ("app", .string(Self.app))]))
    }

    @Test func aThreadMatesDeliveryChangesTheOpenInterface() throws {
        let second = try subscriber(.array([.string(Self.app)]))
        let first = try fixture.client()
        _ = try deliver(first, payload("m1", thread: "chat"))
        let banner = try deliverBanner(first, payload("m2", thread: "chat"))
        _ = try deliverBanner(first, payload("m3", thread: "chat"))
        _ = try deliverBanner(first, payload("alone", thread: "other"))
        #expect(banner["presentation"]?["expanded"] == .bool(false) && banner["presentation"]?["view"] == .null)

        // m1's interface is open: m2 and m3 reach its instance; "alone" reaches nobody.
        let changes = try heard(by: second).filter { $0["method"] == .string("presentation.changed") }
            .map { ($0["params"]?["presentation"]?["notification"]?.stringValue ?? "", count($0["params"]?["presentation"]) ?? "") }
        #expect(changes.map(\.0) == ["m1", "m1"])
        #expect(changes.map(\.1) == ["2", "3"])
        #expect(count(try first.call("notifications.presentation", .object([("identifier", .string("m1"))]))) == "3")
    }

    /// Opening the thread-mate the open interface's instance was given last
    /// moves the interface to it: the same instance serves on (it received
    /// it once), the one it leaves is heard as a banner, then the one it
    /// moved to as expanded.
    @Test func openingTheThreadMateTheOpenInterfaceShowsMovesTheInterface() throws {
        let second = try subscriber(.array([.string(Self.app)]))
        let first = try fixture.client()
        _ = try deliver(first, payload("m1", thread: "chat"))
        _ = try deliverBanner(first, payload("m2", thread: "chat"))
        let opened = try first.call("notifications.open", .object([("identifier", .string("m2"))]))
        #expect(opened["presentation"]?["expanded"] == .bool(true))
        #expect(count(opened["presentation"]) == "2")
        let changes = try heard(by: second).filter { $0["method"] == .string("presentation.changed") }
            .map { ($0["params"]?["presentation"]?["notification"]?.stringValue ?? "",
                    $0["params"]?["presentation"]?["expanded"]?.boolValue ?? false) }
        #expect(changes.map(\.0) == ["m1", "m1", "m2"])
        #expect(changes.map(\.1) == [true, false, true])
        let m1 = try first.call("notifications.presentation", .object([("identifier", .string("m1"))]))
        #expect(m1["expanded"] == .bool(false))
    }

    /// notifications.open and notifications.close, and the media button of
    /// the open interface; each change is heard as presentation.changed.
    @Test func openingAndClosingAnInterfaceIsHeard() throws {
        let first = try fixture.client()
        _ = try deliverBanner(first, payload("m1", thread: "a"))
        _ = try deliverBanner(first, payload("m2", thread: "b"))
        let second = try subscriber(.array([.string(Self.app)]))
        let opened = try first.call("notifications.open", .object([("identifier", .string("m1"))]))
        #expect(opened["presentation"]?["expanded"] == .bool(true))
        #expect(count(opened["presentation"]) == "1")
        _ = try first.call("notifications.open", .object([("identifier", .string("m2"))]))
        let closed = try first.call("notifications.close", .object([("identifier", .string("m2"))]))
        #expect(closed["expanded"] == .bool(false) && closed["dismissed"] == .bool(false))
        let changes = try heard(by: second).filter { $0["method"] == .string("presentation.changed") }
            .map { ($0["params"]?["presentation"]?["notification"]?.stringValue ?? "",
                    $0["params"]?["presentation"]?["expanded"]?.boolValue ?? false) }
        #expect(changes.map(\.0) == ["m1", "m1", "m2", "m2"])
        #expect(changes.map(\.1) == [true, false, true, false])
        // The media button is the open interface's.
        let closedButton = #expect(throws: RPCErrorReply.self) {
            try first.call("notifications.tap-media-button", .object([("identifier", .string("m2"))]))
        }
        #expect(closedButton?.code == -32000, "\(closedButton.map(\.description) ?? "no error")")
        #expect(closedButton?.data?["diagnostics"]?.arrayValue?.first?["code"] == .string("media.no-button"))
        _ = try first.call("notifications.open", .object([("identifier", .string("m2"))]))
        let tapped = try first.call("notifications.tap-media-button", .object([("identifier", .string("m2"))]))
        #expect(tapped["mediaButton"]?["playing"] == .bool(true))
        // With what the extension logged and did wrong in media_play.
        #expect(tapped["log"]?.arrayValue != nil && tapped["diagnostics"]?.arrayValue != nil)
        let unknown = #expect(throws: RPCErrorReply.self) {
            try first.call("notifications.open", .object([("identifier", .string("gone"))]))
        }
        #expect(unknown?.code == -32001, "\(unknown.map(\.description) ?? "no error")")
    }

    @Test func aFailureIsHeardByItsAppsSubscribersOnly() throws {
        let broken = try subscriber(.array([.string("com.example.broken")]))
        let tests = try subscriber(.array([.string(Self.app)]))
        let everyone = try subscriber(nil)
        let first = try fixture.client()
        let answer = try deliver(first, payload("b1").replacingCategory("broken"), app: "com.example.broken")
        #expect(answer["presentation"]?["extension"] == .null, "shown with its default content")

        let failed = try #require(try broken.event("extension.failed"))
        #expect(failed["app"] == .string("com.example.broken"))
        #expect(failed["diagnostic"]?["code"] == .string(BrokenLibrary.noEntry.expectedCode))
        #expect(try everyone.event("extension.failed")?["app"] == .string("com.example.broken"))
        #expect(try heard(by: tests).isEmpty, "another app's failure")
    }

    @Test func aSubscriptionToAllAppsHearsEveryEventOfEveryApp() throws {
        let all = try subscriber(.string("all"))
        let first = try fixture.client()
        _ = try deliver(first, payload("t1"))
        _ = try deliver(first, payload("b1").replacingCategory("broken"), app: "com.example.broken")
        _ = try first.call("notifications.respond", .object([("identifier", .string("b1")), ("action", .string("default"))]))

        let heard = try heard(by: all)
        func of(_ method: String) -> [JSON] { heard.filter { $0["method"] == .string(method) }.compactMap { $0["params"] } }
        #expect(Set(of("notification.delivered").compactMap { $0["app"]?.stringValue }) == [Self.app, "com.example.broken"])
        #expect(of("extension.failed").first?["app"] == .string("com.example.broken"))
        #expect(of("response.forwarded").first?["app"] == .string("com.example.broken"), "forwarded responses too")
        #expect(of("notification.dismissed").first?["identifier"] == .string("b1"))
    }
}

extension JSON {
    /// The request payload with category `category`.
    fileprivate func replacingCategory(_ category: String) -> JSON {
        guard let members = objectMembers, let content = self["content"]?.objectMembers else { return self }
        let changed = content.map { $0.0 == "categoryIdentifier" ? ($0.0, JSON.string(category)) : $0 }
        return .object(members.map { $0.0 == "content" ? ($0.0, .object(changed)) : $0 })
    }
}
