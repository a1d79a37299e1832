import Testing
import ServerTestSupport
import TestSupport
import TidingsBase
import TidingsServer

/// How many notifications the server keeps, and how a front end reads them:
/// past the limit the oldest expires (and subscribers hear it), and
/// `notifications.list` pages through them with a cursor that sees each one
/// kept all along exactly once, whatever comes and goes meanwhile.
@Suite struct KeptNotificationsTests {
    let fixture = ServerFixture()
    static let app = "com.example.news"

    /// A notification no extension serves (it shows its default content).
    func payload(_ identifier: String) -> JSON {
        .object([("identifier", .string(identifier)),
                 ("content", .object([("title", .string(identifier)), ("categoryIdentifier", .string("story"))]))])
    }

    func deliver(_ client: RPCClient, _ identifier: String) throws {
        _ = try client.call("notifications.deliver", .object([("payload", payload(identifier)), ("app", .string(Self.app))]))
    }

    func identifiers(_ listed: [JSON]) -> [String] {
        listed.compactMap { $0["notification"]?["identifier"]?.stringValue }
    }

    func errorCode(_ body: () throws -> JSON) -> Int64? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? RPCErrorReply)?.code
        }
    }

    @Test func pastTheLimitTheOldestExpiresAndSubscribersHearIt() throws {
        try fixture.start(kept: 3)
        let listener = try fixture.client()
        _ = try listener.call("events.subscribe", .object([("apps", .array([.string(Self.app)]))]))
        let client = try fixture.client()
        for number in 1...5 { try deliver(client, "n\(number)") }
        #expect(identifiers(try client.listAll()) == ["n3", "n4", "n5"])
        let expired = [try listener.event("notification.dismissed"), try listener.event("notification.dismissed")]
        #expect(expired.map { $0?["identifier"] } == [.string("n1"), .string("n2")])
        #expect(expired.map { $0?["reason"] } == [.string("expired"), .string("expired")])

        // Delivered again, n3 takes no more room: it becomes the newest, and nothing expires.
        try deliver(client, "n3")
        #expect(identifiers(try client.listAll()) == ["n4", "n5", "n3"])
        #expect(try listener.event("notification.dismissed")?["reason"] == .string("replaced"))
        _ = try listener.call("server.describe")
        #expect(!listener.events.contains { $0["params"]?["reason"] == .string("expired") })
    }

    @Test func pagesSeeEveryNotificationKeptAllAlongExactlyOnce() throws {
        try fixture.start()
        let reader = try fixture.client()
        let writer = try fixture.client()
        for number in 0..<120 { try deliver(writer, "kept-\(number)") }

        // One client delivers while the pages are read; another delivers and removes between the pages.
        let done = Latch()
        Threads.start { [fixture] in
            if let background = try? fixture.client() {
                for number in 0..<300 { try? self.deliver(background, "background-\(number)") }
            }
            done.open()
        }
        var between = 0
        let listed = try reader.listAll(limit: 7) {
            between += 1
            try deliver(writer, "new-\(between)")
            _ = try writer.call("notifications.remove", .object([("identifiers", .array([.string("new-\(between - 1)")]))]))
        }
        #expect(done.wait(until: MonotonicClock.deadline(after: patience)))

        let seen = identifiers(listed)
        #expect(seen.filter { $0.hasPrefix("kept-") } == (0..<120).map { "kept-\($0)" }, "each once, in the order delivered")
        #expect(Set(seen).count == seen.count, "no notification twice")
        #expect(seen.contains("new-\(between)"), "the one delivered last, never removed, is seen")
        let background = seen.filter { $0.hasPrefix("background-") }
        #expect(background == background.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 },
                "later deliveries come later")
    }

    @Test func aPageOfOneAppSkipsTheOthers() throws {
        try fixture.start()
        let client = try fixture.client()
        for number in 0..<5 {
            try deliver(client, "news-\(number)")
            _ = try client.call("notifications.deliver", .object([("payload", payload("mail-\(number)")),
                                                                  ("app", .string("com.example.mail"))]))
        }
        let first = try client.call("notifications.list", .object([("app", .string("com.example.mail")), ("limit", .integer(3))]))
        #expect(identifiers(first["notifications"]?.arrayValue ?? []) == ["mail-0", "mail-1", "mail-2"])
        let next = try #require(first["next"]?.stringValue)
        let second = try client.call("notifications.list", .object([("app", .string("com.example.mail")), ("cursor", .string(next))]))
        #expect(identifiers(second["notifications"]?.arrayValue ?? []) == ["mail-3", "mail-4"])
        #expect(second["next"] == .null, "the last page says so")
        #expect(try client.call("notifications.list", .object([("limit", .integer(10))]))["next"] == .null)
    }

    @Test func aCursorOrALimitNotOfThisServerIsRefused() throws {
        try fixture.start()
        let client = try fixture.client()
        for number in 0..<3 { try deliver(client, "n\(number)") }
        let cursor = try #require(try client.call("notifications.list", .object([("limit", .integer(1))]))["next"]?.stringValue)

        let restarted = ServerFixture()
        try restarted.start()
        let other = try restarted.client()
        for number in 0..<3 { try deliver(other, "n\(number)") }
        #expect(errorCode { try other.call("notifications.list", .object([("cursor", .string(cursor))])) } == -32602,
                "a cursor of another run")
        #expect(errorCode { try client.call("notifications.list", .object([("cursor", .string("page-2"))])) } == -32602)
        #expect(errorCode { try client.call("notifications.list", .object([("limit", .integer(0))])) } == -32602)
        #expect(errorCode { try client.call("notifications.list", .object([("limit", .integer(1_001))])) } == -32602)
        #expect(errorCode { try client.call("notifications.list", .object([("limit", .string("all"))])) } == -32602)
    }
}
