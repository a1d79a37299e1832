import Testing
import ServerTestSupport
import TestSupport
import TidingsBase
import TidingsServer

/// Two apps, one identifier: each app's delivered notification is its own
/// over the protocol — listed, removed, answered and presented apart — a
/// call naming the identifier alone is refused when it could mean either,
/// and a delivery names its app.
@Suite struct TwoAppsTests {
    let fixture = ServerFixture()
    static let medicine = "com.example.medicine"
    static let other = "com.example.other"

    /// Delivers `identifier` to `app` (no extension serves it: its default content shows).
    func deliver(_ client: RPCClient, _ identifier: String, to app: String, title: String = "Take a dose") throws {
        let payload = JSON.object([("identifier", .string(identifier)),
                                   ("content", .object([("title", .string(title)), ("categoryIdentifier", .string("dose"))]))])
        _ = try client.call("notifications.deliver", .object([("payload", payload), ("app", .string(app))]))
    }

    /// Wakes `app` with a background notification `identifier` (content-available alone): an inbox entry.
    func wake(_ client: RPCClient, _ app: String, _ identifier: String) throws {
        let payload = JSON.object([("aps", .object([("content-available", .integer(1))]))])
        _ = try client.call("notifications.deliver", .object([("payload", payload), ("app", .string(app)),
                                                              ("identifier", .string(identifier))]))
    }

    /// The (app, identifier) of each notification listed, in the order delivered.
    func listed(_ client: RPCClient) throws -> [String] {
        try client.call("notifications.list")["notifications"]?.arrayValue?.compactMap { entry in
            guard let app = entry["app"]?.stringValue, let identifier = entry["notification"]?["identifier"]?.stringValue
            else { return nil }
            return "\(app)/\(identifier)"
        } ?? []
    }

    /// The error `body` ended with; nil when it succeeded.
    func refusal(_ body: () throws -> JSON) -> RPCErrorReply? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? RPCErrorReply
        }
    }

    @Test func bothAreListedAndRemovingOneAppsLeavesTheOthers() throws {
        try fixture.start()
        let client = try fixture.client()
        try deliver(client, "dose-1", to: Self.medicine, title: "Medicine")
        try deliver(client, "dose-1", to: Self.other, title: "Other")
        #expect(try listed(client) == ["\(Self.medicine)/dose-1", "\(Self.other)/dose-1"])

        let removed = try client.call("notifications.remove", .object([
            ("app", .string(Self.other)), ("identifiers", .array([.string("dose-1")]))]))
        #expect(removed["removed"] == .array([.string("dose-1")]))
        #expect(try listed(client) == ["\(Self.medicine)/dose-1"])
        let kept = try client.call("notifications.presentation", .object([("identifier", .string("dose-1"))]))
        #expect(kept["app"] == .string(Self.medicine) && kept["defaultContent"]?["title"] == .string("Medicine"), "\(kept)")

        // The app alone removes all of its own, and nobody else's.
        try deliver(client, "dose-2", to: Self.other)
        _ = try client.call("notifications.remove", .object([("app", .string(Self.other))]))
        #expect(try listed(client) == ["\(Self.medicine)/dose-1"])
    }

    @Test func answeringOneAppsNotificationLeavesTheOtherUntouched() throws {
        try fixture.start()
        let client = try fixture.client()
        try deliver(client, "dose-1", to: Self.medicine, title: "Medicine")
        try deliver(client, "dose-1", to: Self.other, title: "Other")
        let outcome = try client.call("notifications.respond", .object([
            ("identifier", .string("dose-1")), ("app", .string(Self.other)), ("action", .string("default"))]))
        #expect(outcome["dismissed"] == .bool(true), "\(outcome)")
        let forwarded = outcome["forwarded"]?.arrayValue ?? []
        #expect(forwarded.map { $0["app"] } == [.string(Self.other)], "only the app answered receives it")
        #expect(try listed(client) == ["\(Self.medicine)/dose-1"])
        let untouched = try client.call("notifications.presentation", .object([
            ("identifier", .string("dose-1")), ("app", .string(Self.medicine))]))
        #expect(untouched["dismissed"] == .bool(false) && untouched["app"] == .string(Self.medicine))
        let gone = refusal { try client.call("notifications.presentation", .object([
            ("identifier", .string("dose-1")), ("app", .string(Self.other))])) }
        #expect(gone?.code == -32001 && gone?.data?["app"] == .string(Self.other), "\(String(describing: gone))")
    }

    @Test func theIdentifierAloneIsRefusedWhenSeveralAppsHaveIt() throws {
        try fixture.start()
        let client = try fixture.client()
        try deliver(client, "dose-1", to: Self.medicine)
        try deliver(client, "dose-1", to: Self.other)
        let calls: [(String, JSON)] = [
            ("notifications.respond", .object([("identifier", .string("dose-1")), ("action", .string("default"))])),
            ("notifications.presentation", .object([("identifier", .string("dose-1"))])),
            ("notifications.open", .object([("identifier", .string("dose-1"))])),
            ("notifications.close", .object([("identifier", .string("dose-1"))])),
            ("notifications.remove", .object([("identifiers", .array([.string("dose-1")]))])),
        ]
        for (method, params) in calls {
            let refused = refusal { try client.call(method, params) }
            #expect(refused?.code == -32602, "\(method): \(String(describing: refused))")
            #expect(refused?.data?["apps"] == .array([.string(Self.medicine), .string(Self.other)]), "\(method)")
            #expect(refused?.message.contains("\"app\"") == true, "\(method): it says to name the app")
        }
        #expect(try listed(client).count == 2, "nothing was removed or answered")
        // Naming the app, it works; with one app left, the identifier alone names it.
        _ = try client.call("notifications.remove", .object([("identifiers", .array([.string("dose-1")])),
                                                              ("app", .string(Self.other))]))
        let alone = try client.call("notifications.presentation", .object([("identifier", .string("dose-1"))]))
        #expect(alone["app"] == .string(Self.medicine))
    }

    @Test func aDeliveryNamingNoAppIsRefusedOverRPC() throws {
        try fixture.start()
        let client = try fixture.client()
        _ = try client.call("categories.register", .object([
            ("app", .string(Self.medicine)),
            ("categories", .array([.object([("identifier", .string("dose")), ("actions", .array([]))])]))]))
        let payload = JSON.object([("aps", .object([("alert", .string("Take a dose")), ("category", .string("dose"))]))])
        let refused = refusal { try client.call("notifications.deliver", .object([("payload", payload),
                                                                                ("identifier", .string("dose-1"))])) }
        #expect(refused?.code == -32602 && refused?.message.contains("\"app\"") == true, "\(String(describing: refused))")
        #expect(try listed(client).isEmpty, "the category that one app registered routes nothing")
    }

    @Test func theStateBoundsAreInServerDescribe() throws {
        try fixture.start(kept: 50) { configuration in
            configuration.host.deliveredLimitPerApp = 7
            configuration.inboxTotalLimit = 300
            configuration.pendingTotalLimit = 20
            configuration.pendingLimit = 5
        }
        let limits = try fixture.client().call("server.describe")["limits"]
        #expect(limits?["keptNotifications"] == .integer(50))
        #expect(limits?["keptNotificationsPerApp"] == .integer(7))
        #expect(limits?["inboxEntries"] == .integer(Int64(AppInbox.defaultLimit)))
        #expect(limits?["inboxEntriesInAll"] == .integer(300))
        #expect(limits?["pendingRequests"] == .integer(20))
        #expect(limits?["pendingRequestsPerApp"] == .integer(5))
    }

    @Test func appsInventedByTheDozenCannotPassThePendingTotal() throws {
        try fixture.start { configuration in
            configuration.pendingTotalLimit = 12
            configuration.pendingLimit = 3
        }
        let client = try fixture.client()
        func add(_ identifier: String, of app: String) -> RPCErrorReply? {
            refusal { try client.call("requests.add", .object([("app", .string(app)), ("request", .object([
                ("identifier", .string(identifier)), ("content", .object([("title", .string("Later"))])),
                ("trigger", .object([("timeInterval", .integer(3600))]))]))])) }
        }
        for number in 0..<4 {
            for request in 0..<3 { #expect(add("r\(request)", of: "com.example.invented\(number)") == nil) }
        }
        let refused = add("r0", of: "com.example.invented-more")
        #expect(refused?.code == -32012, "\(String(describing: refused))")
        #expect(refused?.data?["limit"] == .string("pendingRequests") && refused?.data?["value"] == .integer(12))
        #expect(add("r0", of: "com.example.invented0") == nil, "replacing a request adds none")
        #expect(add("r3", of: "com.example.invented0") == nil, "an app at its own limit pushes out its own")
        let pending = try client.call("requests.pending")["requests"]?.arrayValue ?? []
        #expect(pending.count == 12)
    }

    @Test func oneAppsFloodCannotPushOutAnotherAppsKeptNotifications() throws {
        try fixture.start(kept: 20) { configuration in configuration.host.deliveredLimitPerApp = 5 }
        let client = try fixture.client()
        try deliver(client, "dose-1", to: Self.medicine)
        try deliver(client, "dose-2", to: Self.medicine)
        for number in 0..<40 { try deliver(client, "spam-\(number)", to: Self.other) }
        // And apps invented to pass the limit per app: the app keeping the most gives up its oldest.
        for app in 0..<10 {
            for number in 0..<4 { try deliver(client, "spam-\(number)", to: "com.example.flood\(app)") }
        }
        let all = try listed(client)
        #expect(all.count == 20)
        #expect(all.filter { $0.hasPrefix(Self.medicine + "/") } == ["\(Self.medicine)/dose-1", "\(Self.medicine)/dose-2"])
    }

    @Test func appsInventedByTheDozenCannotPassTheInboxTotalNorDropAQuietAppsEntries() throws {
        try fixture.start { configuration in
            configuration.inboxTotalLimit = 10
            configuration.inboxLimit = 4
        }
        let client = try fixture.client()
        func entries(of app: String?) throws -> [JSON] {
            try client.call("inbox.list", .object(app.map { [("app", .string($0))] } ?? [("limit", .integer(1000))]))["entries"]?
                .arrayValue ?? []
        }
        try wake(client, Self.medicine, "sync-1")
        try wake(client, Self.medicine, "sync-2")
        for app in 0..<6 {
            for number in 0..<4 { try wake(client, "com.example.flood\(app)", "sync-\(number)") }
        }
        #expect(try entries(of: nil).count == 10, "at most the total in all")
        #expect(try entries(of: Self.medicine).compactMap { $0["notification"]?["identifier"]?.stringValue } == ["sync-1", "sync-2"])
    }
    @Test func appsInventedWithOneEntryEachCannotPassTheInboxTotal() throws {
        try fixture.start { configuration in
            configuration.inboxTotalLimit = 5
            configuration.inboxLimit = 4
        }
        let client = try fixture.client()
        try wake(client, Self.medicine, "sync-1")
        for app in 0..<12 { try wake(client, "com.example.flood\(app)", "sync") }
        let all = try client.call("inbox.list", .object([("limit", .integer(1000))]))["entries"]?.arrayValue ?? []
        #expect(all.count == 5, "at most the total in all")
        let apps = all.compactMap { $0["app"]?.stringValue }
        #expect(apps.contains(Self.medicine), "the app that stayed quiet keeps its entry: \(apps)")
        #expect(apps.contains("com.example.flood11"), "the newest is kept: \(apps)")
    }

    @Test func appsInventedWithOneNotificationEachCannotPassTheKeptTotal() throws {
        try fixture.start(kept: 5) { configuration in configuration.host.deliveredLimitPerApp = 3 }
        let client = try fixture.client()
        try deliver(client, "dose-1", to: Self.medicine)
        for app in 0..<12 { try deliver(client, "one", to: "com.example.flood\(app)") }
        let all = try listed(client)
        #expect(all.count == 5)
        #expect(all.contains("\(Self.medicine)/dose-1") && all.contains("com.example.flood11/one"), "\(all)")
    }
}
