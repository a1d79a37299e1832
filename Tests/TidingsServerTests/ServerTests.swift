import Foundation
import Testing
import ServerTestSupport
import TestSupport
import TidingsBase
import TidingsServer

/// The server over a real Unix socket with real extensions: the methods end
/// to end, events and who hears them, every class of bad input (after which
/// the connection and the server keep working), and clients that are slow
/// or stop reading.
@Suite struct ServerTests {
    let fixture = ServerFixture()
    static let laterInterface = #"{"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "status"}]}}"#
    static let misbehavingInterface = """
        {"version": 1, "root": {"type": "stack", "children": [
          {"type": "label", "id": "count"}, {"type": "label", "id": "instances"}]}}
        """

    func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    /// A request payload of category `category` with identifier `identifier`.
    func payload(_ identifier: String, category: String, userInfo: String = "{}") throws -> JSON {
        try json(#"{"identifier": "\#(identifier)", "content": {"title": "T", "body": "B", "categoryIdentifier": "\#(category)", "userInfo": \#(userInfo)}}"#)
    }

    func deliver(_ client: RPCClient, _ payload: JSON, app: String) throws -> JSON {
        try client.call("notifications.deliver", .object([("payload", payload), ("app", .string(app)), ("open", .bool(true))]))
    }

    func errorCode(_ body: () throws -> JSON) -> Int64? {
        do {
            _ = try body()
            return nil
        } catch let error as RPCErrorReply {
            return error.code
        } catch {
            return nil
        }
    }

    // MARK: The methods

    @Test func describeListsMethodsEventsAndLimits() throws {
        var limits = Server.Limits()
        limits.messageSize = 8192
        limits.callsPerConnection = 8
        try fixture.start(limits: limits, responseDeadline: 3)
        let described = try fixture.client().call("server.describe")
        let methods = described["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(methods.contains("notifications.deliver"))
        #expect(methods.contains("events.subscribe"))
        #expect(described["abiVersion"] == .integer(3))
        #expect(described["events"]?.arrayValue?.compactMap { $0["method"]?.stringValue } == [
            "notification.delivered", "presentation.changed", "notification.dismissed", "response.forwarded",
            "notification.background", "inbox.taken", "inbox.dropped", "app.badge-changed", "authorization.requested",
            "authorization.changed", "extension.failed", "extension.late-completion", "request.scheduled", "request.fired", "request.removed", "state.degraded",
            "state.recovered", "state.repaired", "push.registration-requested", "push.unregistering", "push.new-endpoint",
            "push.unregistered", "push.registration-failed", "push.rate-limited", "events.lagging",
        ])
        #expect(methods.contains("inbox.list") && methods.contains("inbox.take"))
        // A server that keeps nothing says so.
        #expect(described["state"] == .object([("status", .string("ok")), ("kept", .bool(false))]))
        let given = try #require(described["limits"])
        #expect(given["messageSize"] == .integer(8192))
        #expect(given["payloadSize"] == .integer(4096))
        #expect(given["responseDeadline"] == .double(3))
        #expect(given["serviceDeadline"] == .double(30))
        #expect(given["callsPerConnection"] == .integer(8))
        #expect(given["unreadOutput"] == .integer(Int64(limits.outputBuffer)))
        #expect(given["keptNotifications"] == .integer(10_000))
        #expect(given["listPage"]?["maximum"] == .integer(1_000))
    }

    @Test func emptyIdentifiersAndAppsAreInvalidParameters() throws {
        try fixture.start()
        let client = try fixture.client()
        let payload = try json(#"{"content": {"title": "T"}}"#)
        let calls: [(String, JSON)] = [
            ("notifications.deliver", .object([("payload", payload), ("identifier", .string("")), ("app", .string("com.example"))])),
            ("notifications.deliver", .object([("payload", payload), ("app", .string(""))])),
            ("notifications.respond", .object([("identifier", .string("")), ("action", .string("default"))])),
            ("notifications.presentation", .object([("identifier", .string(""))])),
            ("notifications.list", .object([("app", .string(""))])),
            ("notifications.remove", .object([("identifiers", .array([.string("a"), .string("")]))])),
            ("categories.register", .object([("app", .string("")), ("categories", .array([]))])),
            ("categories.list", .object([("app", .string(""))])),
            ("events.subscribe", .object([("apps", .array([.string("")]))])),
        ]
        for (method, params) in calls {
            do {
                _ = try client.call(method, params)
                Issue.record("\(method) \(params.serialized()) was accepted")
            } catch let error as RPCErrorReply {
                #expect(error.code == -32602, "\(method): \(error)")
                #expect(error.message.contains("may not"), "\(method): \(error)")
            }
        }
        #expect(try client.call("notifications.list")["notifications"] == .array([]), "nothing was delivered")
    }

    @Test func registerDeliverRespondAndList() throws {
        try fixture.installSample("EventInvite")
        try fixture.start()
        let client = try fixture.client()
        let categories = try json(String(contentsOfFile: Locations.repositoryFile("Plugins/EventInvite/Payloads/categories.json"),
                                         encoding: .utf8))
        let registered = try client.call("categories.register", categories)
        #expect(registered["categories"] == .array([.string("event-invite")]))
        let listed = try client.call("categories.list", .object([("app", .string("com.example.events"))]))
        #expect(listed["apps"]?.arrayValue?.first?["categories"]?.arrayValue?.first?["identifier"] == .string("event-invite"))

        let photo = fixture.directory.file("photo.png")
        try FileManager.default.copyItem(atPath: Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png"),
                                         toPath: photo)
        let invite = try json(#"""
            {"identifier": "invite", "content": {"title": "Offsite", "categoryIdentifier": "event-invite",
             "userInfo": {"title": "Team offsite"}, "attachments": [{"identifier": "event-image", "path": "\#(photo)"}]}}
            """#)
        let delivery = try client.call("notifications.deliver", .object([("payload", invite), ("app", .string("com.example.events")), ("open", .bool(true))]))
        #expect(delivery["presentation"]?["extension"] == .string("com.example.events.invite"))
        #expect(delivery["attachments"]?.arrayValue?.first?["transfer"] == .string("copied"))
        #expect(FileManager.default.fileExists(atPath: photo))
        let listedNotifications = try client.call("notifications.list")["notifications"]?.arrayValue ?? []
        #expect(listedNotifications.map { $0["notification"]?["identifier"] } == [.string("invite")])
        let current = try client.call("notifications.presentation", .object([("identifier", .string("invite"))]))
        #expect(current["contentSize"]?["height"] == .double(320))

        let outcome = try client.call("notifications.respond",
                                      .object([("identifier", .string("invite")), ("action", .string("accept"))]))
        #expect(outcome["option"] == .string("dismiss"))
        #expect(outcome["dismissed"] == .bool(true))
        #expect(try client.call("notifications.list")["notifications"] == .array([]))
    }

    @Test func aDeliveryAnswersWithThePresentationOnlyWhenAsked() throws {
        try fixture.installSample("EventInvite")
        try fixture.start()
        let client = try fixture.client()
        func delivery(_ identifier: String, answer: String?) -> JSON {
            let payload = JSON.object([("identifier", .string(identifier)), ("content", .object([
                ("title", .string("Offsite")), ("categoryIdentifier", .string("event-invite"))]))])
            var params: [(String, JSON)] = [("payload", payload), ("app", .string("com.example.events"))]
            if let answer { params.append(("answer", .string(answer))) }
            return .object(params)
        }
        let whole = try client.call("notifications.deliver", delivery("whole", answer: nil))
        #expect(whole.objectMembers?.map(\.0) == ["display", "app", "notification", "attachments", "service", "presentation",
                                                 "forwarded", "log", "diagnostics"])
        #expect(try client.call("notifications.deliver", delivery("asked-whole", answer: "delivery")).objectMembers?.map(\.0)
            == whole.objectMembers?.map(\.0))
        let drawn = try client.call("notifications.deliver", delivery("drawn", answer: "presentation"))
        #expect(drawn.objectMembers?.map(\.0) == ["display", "app", "presentation", "diagnostics"])
        #expect(drawn["presentation"]?["notification"] == .string("drawn"))
        #expect(drawn["presentation"]?["extension"] == whole["presentation"]?["extension"])
        #expect(errorCode { try client.call("notifications.deliver", delivery("neither", answer: "everything")) } == -32602)
    }

    @Test func removingByAppRemovesOnlyThatAppsNotifications() throws {
        try fixture.installC("Later", identifier: "com.example.news.later", categories: ["story"],
                             interface: Self.laterInterface)
        try fixture.installC("Misbehaving", identifier: "com.example.tests.misbehaving", categories: ["misbehave"],
                             interface: Self.misbehavingInterface)
        try fixture.start()
        let client = try fixture.client()
        _ = try deliver(client, payload("a", category: "story"), app: "com.example.news")
        _ = try deliver(client, payload("b", category: "misbehave"), app: "com.example.tests")
        let removed = try client.call("notifications.remove", .object([("app", .string("com.example.news"))]))
        #expect(removed["removed"] == .array([.string("a")]))
        let left = try client.call("notifications.list")["notifications"]?.arrayValue ?? []
        #expect(left.map { $0["notification"]?["identifier"] } == [.string("b")])
    }

    // MARK: Events

    @Test func eventsReachTheSubscribersOfTheirAppAndOfAllApps() throws {
        try fixture.installC("Later", identifier: "com.example.news.later", categories: ["story"],
                             interface: Self.laterInterface)
        try fixture.start()
        let follower = try fixture.client()
        let everything = try fixture.client()
        let other = try fixture.client()
        _ = try follower.call("events.subscribe", .object([("apps", .array([.string("com.example.news")]))]))
        _ = try everything.call("events.subscribe")
        _ = try other.call("events.subscribe", .object([("apps", .array([.string("com.example.other")]))]))
        let client = try fixture.client()

        let delivery = try deliver(client, payload("story", category: "story"), app: "com.example.news")
        // The extension's thread changes the view whenever it runs: when the answer
        // already shows the change, no event is owed for it.
        func status(_ presentation: JSON?) -> JSON? { presentation?["view"]?["children"]?.arrayValue?.first?["text"] }
        if status(delivery["presentation"]) == .string("loading") {
            let changed = try #require(try follower.event("presentation.changed"))
            #expect(status(changed["presentation"]) == .string("updated"))
            #expect(try everything.event("presentation.changed") != nil)
        } else {
            #expect(status(delivery["presentation"]) == .string("updated"))
        }

        _ = try client.call("notifications.respond", .object([("identifier", .string("story")), ("action", .string("default"))]))
        let forwarded = try #require(try follower.event("response.forwarded"))
        #expect(forwarded["actionIdentifier"] == .string("com.apple.UNNotificationDefaultActionIdentifier"))
        #expect(try follower.event("notification.dismissed")?["reason"] == .string("response"))
        #expect(try everything.event("notification.dismissed") != nil)
        #expect(try everything.event("response.forwarded") != nil, "a subscription to all apps hears every event")
        try other.drain(for: 0.2)
        #expect(other.events.isEmpty)
    }

    // MARK: Bad input

    @Test func everyKindOfBadInputGetsItsErrorAndTheConnectionGoesOn() throws {
        var limits = Server.Limits()
        limits.messageSize = 8192
        try fixture.installC("Later", identifier: "com.example.news.later", categories: ["story"],
                             interface: Self.laterInterface)
        try fixture.start(limits: limits)
        let client = try fixture.client()
        let deadline = { MonotonicClock.deadline(after: patience) }

        client.send("{this is not json")
        #expect(try client.readLine(until: deadline())?.contains(#""code":-32700"#) == true)
        client.send(#"{"jsonrpc": "2.0", "id": 1, "method": "notifications.delivr"}"#)
        #expect(try client.readLine(until: deadline())?.contains(#"did you mean \"notifications.deliver\""#) == true)
        client.send(#"{"jsonrpc": "2.0", "id": 2, "method": "categories.list", "params": {"app": 5}}"#)
        #expect(try client.readLine(until: deadline())?.contains(#""code":-32602"#) == true)
        client.send(#"{"jsonrpc": "2.0", "id": 3, "method": "categories.list", "params": {"apps": "x"}}"#)
        #expect(try client.readLine(until: deadline())?.contains(#"did you mean \"app\""#) == true)
        client.send(String(repeating: " ", count: 9000) + "{}")
        #expect(try client.readLine(until: deadline())?.contains(#""code":-32003"#) == true)

        #expect(errorCode { try client.call("notifications.respond", .object([
            ("identifier", .string("never-delivered")), ("action", .string("default"))])) } == -32001)
        #expect(errorCode { try client.call("notifications.deliver", .object([("app", .string("com.example.events")),
            ("payload", .object([("aps", .object([("badge", .string("three"))]))]))])) } == -32000)
        #expect(errorCode { try client.call("notifications.deliver", .object([("app", .string("com.example.events")),
            ("payload", .object([("aps", .object([("alert", .string(String(repeating: "x", count: 4500)))]))]))])) } == -32000)

        _ = try deliver(client, payload("story", category: "story"), app: "com.example.news")
        _ = try client.call("notifications.respond", .object([("identifier", .string("story")), ("action", .string("default"))]))
        #expect(errorCode { try client.call("notifications.respond", .object([
            ("identifier", .string("story")), ("action", .string("default"))])) } == -32001, "already dismissed")

        // A notification (no id) gets no answer; a batch gets one array.
        client.send(#"{"jsonrpc": "2.0", "method": "server.describe"}"#)
        client.send(#"[{"jsonrpc": "2.0", "id": "b1", "method": "categories.list"}, {"jsonrpc": "2.0", "method": "categories.list"}, 7]"#)
        let batch = try #require(try client.readLine(until: deadline()))
        let replies = try json(batch).arrayValue ?? []
        #expect(replies.count == 2)
        #expect(replies.first?["id"] == .string("b1"))
        #expect(replies.last?["error"]?["code"] == .integer(-32600))
        #expect(try client.call("server.describe")["name"] == .string("tidings"))
    }

    // MARK: Slow extensions and slow clients

    @Test func aStuckResponseDelaysNeitherOtherClientsNorTheSameClientsOtherRequests() throws {
        try fixture.installC("Misbehaving", identifier: "com.example.tests.misbehaving", categories: ["misbehave"],
                             interface: Self.misbehavingInterface)
        try fixture.start(responseDeadline: 5)
        let client = try fixture.client()
        let other = try fixture.client()
        _ = try deliver(client, payload("stuck", category: "misbehave"), app: "com.example.tests")
        // "never" is an action Misbehaving never completes: the call waits for its 5 s deadline.
        _ = try client.call("categories.register", json(#"{"app": "com.example.tests", "categories": [{"identifier": "misbehave", "actions": [{"identifier": "never", "title": "Never"}]}]}"#))
        let stuck = client.request("notifications.respond", .object([("identifier", .string("stuck")), ("action", .string("never"))]),
                                   id: .string("slow"))
        #expect(try other.call("server.describe")["name"] == .string("tidings"))
        #expect(try client.call("categories.list")["apps"] != nil)
        // A reused id is refused with a null id, naming the id in its data: not to be taken for the answer to come.
        client.request("server.describe", id: .string("slow"))
        let refusal = try client.answer(to: .null)
        #expect(refusal["error"]?["code"] == .integer(-32002))
        #expect(refusal["error"]?["data"]?["id"] == .string("slow"))
        // Answers come in the order they are sent: none of the slow call's came before these.
        #expect(!client.hasAnswer(to: stuck), "answered while the slow call still waits")
        let outcome = try client.result(of: stuck)
        #expect(outcome["option"] == .null)
        #expect(outcome["forwarded"]?.arrayValue?.count == 1, "the app still learns of the action")
    }

    @Test func aClientThatStopsReadingIsDisconnectedAndOthersGoOn() throws {
        var limits = Server.Limits()
        limits.outputBuffer = 16_384
        limits.socketSendBuffer = 4096
        try fixture.installC("Later", identifier: "com.example.news.later", categories: ["story"],
                             interface: Self.laterInterface)
        let server = try fixture.start(limits: limits)
        let sleeper = try fixture.client()
        _ = try sleeper.call("events.subscribe")
        let client = try fixture.client()
        _ = try client.call("server.describe")
        #expect(server.clientCount == 2)
        // Each delivery makes a presentation.changed event the sleeper never reads.
        var delivered = 0
        while server.clientCount == 2 && delivered < 400 {
            delivered += 1
            _ = try deliver(client, payload("n\(delivered)", category: "story"), app: "com.example.news")
        }
        // The server sends it away when its queue is full, on a thread of its own.
        eventually { server.clientCount != 2 }
        #expect(server.clientCount == 1, "the sleeper was sent away after \(delivered) deliveries")
        #expect(try client.call("server.describe")["name"] == .string("tidings"))
    }
}
