import Foundation
import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// The app's inbox and what is displayed, end to end through `tidings serve`
/// with real built extensions (the Swift EventInvite sample and the C Later
/// fixture), in both isolation modes: a forwarded response is the whole
/// response, kept across `kill -9` until the app's front end takes it and
/// replayed to a subscriber that comes later; the inbox is bounded; a
/// background notification goes to the inbox and is never shown; a
/// badge-only one sets the app's badge, kept across a restart.
@Suite struct InboxTests {
    let fixture = ServerFixture()

    init() throws {
        try fixture.installSample("EventInvite")
        try fixture.installC("Later", identifier: "com.example.news.later", categories: ["story"],
                             interface: ServerTests.laterInterface)
    }

    func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    /// Registers the sample's categories and the news app's "story" with its "read" action.
    func register(_ client: RPCClient) throws {
        _ = try client.call("categories.register", try FieldsTests.categories())
        _ = try client.call("categories.register", json(#"{"app": "com.example.news", "categories": [{"identifier": "story", "actions": [{"identifier": "read", "title": "Read"}]}]}"#))
    }

    /// An invitation with every field a response must carry: thread, target content, userInfo.
    func invite(_ identifier: String) throws -> JSON {
        try json(#"{"app": "com.example.events", "identifier": "\#(identifier)", "payload": {"aps": {"alert": {"title": "Team offsite", "body": "You are invited."}, "category": "event-invite", "thread-id": "offsite", "target-content-id": "event-42"}, "title": "Team offsite", "date": "Thursday", "location": "Pier 3", "message": "Dinner after"}}"#)
    }

    /// A story of the news app, with userInfo.
    func story(_ identifier: String) throws -> JSON {
        try json(#"{"identifier": "\#(identifier)", "app": "com.example.news", "payload": {"aps": {"alert": {"title": "News", "body": "A story"}, "category": "story", "thread-id": "front-page"}, "story-id": 42}}"#)
    }

    /// Checks that `entry` (an event's parameters or a listed entry) is the
    /// whole response of the user commenting on `invite-1`.
    func expectWholeInviteResponse(_ entry: JSON?, _ context: String) {
        let notification = entry?["notification"] ?? .null
        #expect(entry?["kind"] == .string("response") && entry?["app"] == .string("com.example.events"), "\(context)")
        #expect(entry?["actionIdentifier"] == .string("comment") && entry?["userText"] == .string("Count me in"), "\(context)")
        #expect(notification["identifier"] == .string("invite-1") && notification["date"]?.stringValue != nil, "\(context)")
        #expect(notification["title"] == .string("Team offsite") && notification["body"] == .string("You are invited."),
                "\(context)")
        #expect(notification["categoryIdentifier"] == .string("event-invite")
            && notification["threadIdentifier"] == .string("offsite")
            && notification["targetContentIdentifier"] == .string("event-42"), "\(context)")
        #expect(notification["userInfo"]?["location"] == .string("Pier 3")
            && notification["userInfo"]?["message"] == .string("Dinner after"), "\(context)")
    }

    @Test(arguments: IsolationMode.allCases)
    func aForwardedResponseIsWholeAndReachesASubscriberAfterAKill(_ isolation: IsolationMode) throws {
        let first = try fixture.startProcess(isolation)
        let client = try fixture.client()
        try register(client)
        _ = try client.call("notifications.deliver", invite("invite-1"))
        _ = try client.call("notifications.deliver", story("story-1"))
        // Nobody is subscribed: the Swift extension forwards the comment, the C one its "read".
        let outcome = try client.call("notifications.respond", .object([
            ("identifier", .string("invite-1")), ("action", .string("comment")), ("text", .string("Count me in")),
        ]))
        #expect(outcome["option"] == .string("dismissAndForwardAction"))
        expectWholeInviteResponse(outcome["forwarded"]?.arrayValue?.first.map { entry in
            .object((entry.objectMembers ?? []) + [("kind", .string("response"))])
        }, "the answer")
        let read = try client.call("notifications.respond", .object([("identifier", .string("story-1")), ("action", .string("read"))]))
        #expect(read["forwarded"]?.arrayValue?.first?["notification"]?["userInfo"]?["story-id"] == .integer(42))
        first.stop(with: SIGKILL)

        let second = try fixture.startProcess(isolation)
        defer { second.stop() }
        let events = try fixture.client()
        let subscribed = try events.call("events.subscribe", .object([("apps", .array([.string("com.example.events")]))]))
        #expect(subscribed["replayed"] == .integer(1), "only the followed app's entry is replayed")
        let replayed = try #require(try events.event("response.forwarded"))
        expectWholeInviteResponse(replayed, "replayed after the kill")
        #expect(replayed["replayed"] == .bool(true))

        let news = try fixture.client()
        _ = try news.call("events.subscribe", .object([("apps", .array([.string("com.example.news")]))]))
        let story = try #require(try news.event("response.forwarded"))
        #expect(story["actionIdentifier"] == .string("read") && story["notification"]?["threadIdentifier"] == .string("front-page"))

        // The front end takes the invite's response: it is gone, for good.
        let listed = try events.call("inbox.list", .object([("app", .string("com.example.events"))]))
        let entries = listed["entries"]?.arrayValue ?? []
        #expect(entries.count == 1 && listed["next"] == .null)
        expectWholeInviteResponse(entries.first, "listed")
        let id = try #require(entries.first?["id"])
        let taken = try events.call("inbox.take", .object([("app", .string("com.example.events")), ("ids", .array([id]))]))
        #expect(taken["taken"] == .array([id]))
        #expect(try events.event("inbox.taken")?["ids"] == .array([id]))
        second.stop(with: SIGKILL)

        let third = try fixture.startProcess(isolation)
        defer { third.stop() }
        let again = try fixture.client()
        let remaining = try again.call("inbox.list")["entries"]?.arrayValue ?? []
        #expect(remaining.map { $0["app"] } == [.string("com.example.news")], "the take survived the kill, the other app's entry too")
    }

    @Test func theInboxKeepsTheNewestAndSaysWhatItDropped() throws {
        let server = try fixture.startProcess(.inProcess, options: ["--inbox-limit", "2"])
        defer { server.stop() }
        let client = try fixture.client()
        _ = try client.call("events.subscribe", .object([("apps", .array([.string("com.example.events")]))]))
        var kept: [JSON] = []
        for number in 1...3 {
            let answer = try client.call("notifications.deliver", json(#"{"app": "com.example.events", "payload": {"aps": {"content-available": 1}, "sync": \#(number)}}"#))
            kept.append(try #require(answer["inbox"]?["id"]))
        }
        let dropped = try #require(try client.event("inbox.dropped"))
        #expect(dropped["ids"] == .array([kept[0]]))
        #expect(dropped["diagnostic"]?["code"] == .string("inbox.dropped"))
        let listed = try client.call("inbox.list", .object([("app", .string("com.example.events")), ("limit", .integer(1))]))
        #expect(listed["entries"]?.arrayValue?.map { $0["id"] } == [kept[1]] && listed["next"] == kept[1])
        let rest = try client.call("inbox.list", .object([("app", .string("com.example.events")), ("after", kept[1])]))
        #expect(rest["entries"]?.arrayValue?.map { $0["notification"]?["userInfo"]?["sync"] } == [.integer(3)])
        #expect(try client.call("server.describe")["limits"]?["inboxEntries"] == .integer(2))
        // Up to an id takes every entry up to it; what is not there is not taken twice.
        let taken = try client.call("inbox.take", .object([("app", .string("com.example.events")), ("upTo", kept[2])]))
        #expect(taken["taken"] == .array([kept[1], kept[2]]))
        #expect(try client.call("inbox.take", .object([("app", .string("com.example.events")), ("upTo", kept[2])]))["taken"] == .array([]))
        #expect(throws: RPCErrorReply.self) {
            _ = try client.call("inbox.take", .object([("app", .string("com.example.events"))]))
        }
        server.stop()
        #expect(fixture.serveLog.contains("inbox.dropped"), "the drop is logged: \(fixture.serveLog)")
    }

    @Test(arguments: IsolationMode.allCases)
    func aBackgroundNotificationGoesToTheInboxAndIsNeverShown(_ isolation: IsolationMode) throws {
        let server = try fixture.startProcess(isolation)
        defer { server.stop() }
        let client = try fixture.client()
        try register(client)
        _ = try client.call("events.subscribe")
        let answer = try client.call("notifications.deliver", json(#"{"app": "com.example.events", "identifier": "sync", "payload": {"aps": {"content-available": 1, "category": "event-invite", "thread-id": "offsite"}, "sync": "calendar"}}"#))
        #expect(answer["display"] == .string("background") && answer["presentation"] == nil)
        #expect(answer["inbox"]?["notification"]?["userInfo"]?["sync"] == .string("calendar"))
        // The events of the call came before its answer: an inbox entry, no delivery, no extension.
        let methods = client.events.compactMap { $0["method"]?.stringValue }
        #expect(methods == ["notification.background"], "\(methods)")
        #expect(try client.event("notification.background")?["kind"] == .string("background"))
        #expect(try client.call("notifications.list")["notifications"] == .array([]))
        #expect(throws: RPCErrorReply.self) {
            _ = try client.call("notifications.respond", .object([("identifier", .string("sync")), ("action", .string("default"))]))
        }
        let listed = try client.call("inbox.list", .object([("app", .string("com.example.events"))]))["entries"]?.arrayValue
        #expect(listed?.map { $0["kind"] } == [.string("background")])
    }

    @Test(arguments: IsolationMode.allCases)
    func aBadgeOnlyNotificationSetsTheBadgeAndSurvivesAKill(_ isolation: IsolationMode) throws {
        let first = try fixture.startProcess(isolation)
        let client = try fixture.client()
        try register(client)
        _ = try client.call("events.subscribe", .object([("apps", .array([.string("com.example.events")]))]))
        let badged = try client.call("notifications.deliver", json(#"{"app": "com.example.events", "payload": {"aps": {"badge": 5, "category": "event-invite"}}}"#))
        #expect(badged["display"] == .string("badge") && badged["badge"] == .integer(5) && badged["presentation"] == nil)
        #expect(client.events.compactMap { $0["method"]?.stringValue } == ["app.badge-changed"])
        let changed = try client.event("app.badge-changed")
        #expect(changed?["app"] == .string("com.example.events") && changed?["badge"] == .integer(5) && changed?["seq"] != nil)
        #expect(try client.call("notifications.list")["notifications"] == .array([]))

        // With an alert, it is shown (through its extension) and sets the badge too.
        let shown = try client.call("notifications.deliver", invite("with-badge").replacing(badge: 7))
        #expect(shown["display"] == .string("presented") && shown["badge"] == .integer(7))
        #expect(shown["presentation"]?["extension"] == .string("com.example.events.invite"))
        #expect(try client.event("app.badge-changed")?["badge"] == .integer(7))
        #expect(try client.event("notification.delivered") != nil)
        first.stop(with: SIGKILL)

        let second = try fixture.startProcess(isolation)
        defer { second.stop() }
        let again = try fixture.client()
        let apps = try again.call("apps.list", .object([("app", .string("com.example.events"))]))["apps"]?.arrayValue
        #expect(apps?.first?["badge"] == .integer(7))
        // 0 removes it.
        _ = try again.call("notifications.deliver", json(#"{"app": "com.example.events", "payload": {"aps": {"badge": 0}}}"#))
        #expect(try again.call("apps.list")["apps"] == .array([]), "an app neither registered nor badged is not listed")
    }
}

extension JSON {
    /// A delivery's parameters with `aps.badge` set to `badge`.
    fileprivate func replacing(badge: Int64) -> JSON {
        let payload = self["payload"] ?? .null
        let aps = JSON.object((payload["aps"]?.objectMembers ?? []) + [("badge", .integer(badge))])
        let members = (payload.objectMembers ?? []).map { $0.0 == "aps" ? ("aps", aps) : $0 }
        return .object((objectMembers ?? []).map { $0.0 == "payload" ? ("payload", .object(members)) : $0 })
    }
}
