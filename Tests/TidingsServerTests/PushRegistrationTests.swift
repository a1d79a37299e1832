import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// Registering for remote notifications: `push.register` is idempotent and
/// an app's own; its status follows what the front end reports
/// (`noFrontEnd` → `pending` → `registered`); the app hears its endpoint;
/// the front end's methods are refused to apps; unregistering deletes it.
@Suite struct PushRegistrationTests {
    let push = PushFixture()
    static let own = "org.example.pushed"
    static let other = "org.example.other"

    func json(_ text: String) throws -> JSON { try PushFixture.json(text) }

    @Test func registerIsIdempotentAndConfinedToItsOwnApp() throws {
        try push.start()
        let app = try push.app(Self.own)
        let first = try app.call("push.register", nil)
        #expect(first["app"] == .string(Self.own))
        let token = try #require(first["token"]?.stringValue)
        #expect(token.count == 32)
        #expect(first["publicKey"]?.stringValue.flatMap(Base64.decodeURL)?.count == 65)
        #expect(first["publicKey"]?.stringValue.flatMap(Base64.decodeURL)?.first == 4)
        #expect(first["auth"]?.stringValue.flatMap(Base64.decodeURL)?.count == 16)
        #expect(first["endpoint"] == .null)
        // Again: the same registration, the same token and keys.
        let again = try app.call("push.register", try json(#"{"app": "\#(Self.own)"}"#))
        #expect(again == first)
        // Another app's is not its to make, list or delete.
        #expect(PushFixture.refusal { try app.call("push.register", try json(#"{"app": "\#(Self.other)"}"#)) }?.code == -32011)
        #expect(PushFixture.refusal { try app.call("push.unregister", try json(#"{"app": "\#(Self.other)"}"#)) }?.code == -32011)
        #expect(PushFixture.refusal { try app.call("push.list", try json(#"{"app": "\#(Self.other)"}"#)) }?.code == -32011)
        // A front end registers any app; an app lists its own alone, a front end all.
        let frontEnd = try push.frontEnd()
        let others = try frontEnd.call("push.register", try json(#"{"app": "\#(Self.other)"}"#))
        #expect(others["token"] != first["token"] && others["publicKey"] != first["publicKey"])
        let listed = try app.call("push.list", nil)
        #expect(listed["registrations"]?.arrayValue == [first])
        let all = try frontEnd.call("push.list", nil)["registrations"]?.arrayValue?.compactMap { $0["app"]?.stringValue }
        #expect(all == [Self.other, Self.own])
    }

    @Test func theStatusFollowsTheFrontEndAndTheAppHearsItsEndpoint() throws {
        try push.start()
        let app = try push.app(Self.own)
        _ = try app.call("events.subscribe", try json(#"{"replay": false}"#))
        let frontEnd = try push.frontEnd()
        _ = try frontEnd.call("events.subscribe", try json(#"{"replay": false}"#))
        // No front end has said anything: `tidings desktop` is not running.
        let unheard = try app.call("push.register", nil)
        #expect(unheard["status"] == .string("noFrontEnd"), "\(unheard)")
        #expect(unheard["message"]?.stringValue?.contains("tidings desktop") == true)
        let requested = try #require(try frontEnd.event("push.registration-requested"))
        #expect(requested["app"] == .string(Self.own) && requested["token"] == unheard["token"])
        // The front end found no distributor: the answer says what to install.
        _ = try frontEnd.call("push.distributor", try json(#"{"name": null, "message": "no org.unifiedpush.Distributor.* on the bus"}"#))
        let none = try app.call("push.register", nil)
        #expect(none["status"] == .string("noDistributor") && none["distributor"] == .null)
        #expect(none["message"]?.stringValue?.contains("KUnifiedPush") == true)
        #expect(try app.call("push.list", nil)["status"] == .string("noDistributor"))
        // A distributor: pending until the endpoint comes.
        let distributor = "org.unifiedpush.Distributor.test"
        _ = try frontEnd.call("push.distributor", .object([("name", .string(distributor))]))
        let pending = try app.call("push.register", nil)
        #expect(pending["status"] == .string("pending") && pending["distributor"] == .string(distributor))
        #expect(pending["token"] == unheard["token"] && pending["publicKey"] == unheard["publicKey"])
        let endpoint = "https://push.example.org/up/\(pending["token"]?.stringValue ?? "")"
        let stored = try frontEnd.call("push.endpoint", .object([("token", pending["token"] ?? .null), ("endpoint", .string(endpoint))]))
        #expect(stored["status"] == .string("registered") && stored["endpoint"] == .string(endpoint))
        let heard = try #require(try app.event("push.new-endpoint"))
        #expect(heard["app"] == .string(Self.own) && heard["token"] == pending["token"])
        #expect(heard["endpoint"] == .string(endpoint))
        #expect(heard["publicKey"] == pending["publicKey"] && heard["auth"] == pending["auth"])
        let registered = try app.call("push.register", nil)
        #expect(registered["status"] == .string("registered") && registered["endpoint"] == .string(endpoint))
        let listed = try frontEnd.call("push.list", nil)
        #expect(listed["status"] == .string("registered") && listed["distributor"] == .string(distributor))
    }

    @Test func theReportGoesWithTheFrontEndsConnection() throws {
        try push.start()
        let app = try push.app(Self.own)
        var frontEnd: RPCClient? = try push.frontEnd()
        _ = try frontEnd?.call("push.distributor", try json(#"{"name": "org.unifiedpush.Distributor.test"}"#))
        #expect(try app.call("push.register", nil)["status"] == .string("pending"))
        // Another connection's end changes nothing; the reporter's own takes the report with it.
        _ = try push.frontEnd().call("server.ping", nil)
        #expect(try app.call("push.list", nil)["status"] == .string("registered"))
        frontEnd = nil
        #expect(eventually { (try? app.call("push.register", nil)["status"]) == .string("noFrontEnd") })
        #expect(try app.call("push.list", nil)["distributor"] == .null)
    }

    @Test func theDistributorsRefusalReachesTheApp() throws {
        try push.start()
        let app = try push.app(Self.own)
        _ = try app.call("events.subscribe", try json(#"{"replay": false}"#))
        let registration = try app.call("push.register", nil)
        let frontEnd = try push.frontEnd()
        _ = try frontEnd.call("push.distributor", try json(#"{"name": "org.unifiedpush.Distributor.test"}"#))
        let answer = try frontEnd.call("push.registration-failed",
                                       .object([("token", registration["token"] ?? .null), ("reason", .string("quota exceeded"))]))
        #expect(answer == .object([("app", .string(Self.own)), ("token", registration["token"] ?? .null)]))
        let heard = try #require(try app.event("push.registration-failed"))
        #expect(heard["reason"] == .string("quota exceeded") && heard["token"] == registration["token"])
        #expect(try app.call("push.register", nil)["message"]?.stringValue?.contains("quota exceeded") == true)
        #expect(push.loggedCodes.contains("push.registration-refused"))
        let unknown = PushFixture.refusal {
            try frontEnd.call("push.registration-failed", try json(#"{"token": "nonesuch", "reason": "no"}"#))
        }
        #expect(unknown?.code == -32013 && unknown?.reason == "push.unknown-token")
    }

    @Test func anAppCannotCallTheFrontEndsMethods() throws {
        try push.start()
        let app = try push.app(Self.own)
        let registration = try app.call("push.register", nil)
        let token = registration["token"] ?? .null
        let calls: [(String, JSON)] = [
            ("push.receive", .object([("token", token), ("message", .string(try PushFixture.message(#"{"aps": {"alert": "Forged"}}"#, for: registration)))])),
            ("push.endpoint", .object([("token", token), ("endpoint", .string("https://evil.example/"))])),
            ("push.distributor", .object([("name", .string("org.unifiedpush.Distributor.evil"))])),
            ("push.registration-failed", .object([("token", token), ("reason", .string("forged"))])),
            ("push.unregistered", .object([("token", token)])),
        ]
        for (method, params) in calls {
            #expect(PushFixture.refusal { try app.call(method, params) }?.code == -32011, "\(method)")
        }
        // Nothing changed: no endpoint, no notification, the registration still there.
        let after = try app.call("push.register", nil)
        #expect(after["endpoint"] == .null && after["token"] == token)
        #expect(try app.call("notifications.list", nil)["notifications"]?.arrayValue?.isEmpty == true)
    }

    @Test func unregisterDeletesItAndLaterMessagesAreUnknown() throws {
        try push.start()
        let app = try push.app(Self.own)
        _ = try app.call("events.subscribe", try json(#"{"replay": false}"#))
        let frontEnd = try push.frontEnd()
        _ = try frontEnd.call("events.subscribe", try json(#"{"replay": false}"#))
        let registration = try app.call("push.register", nil)
        let message = try PushFixture.message(#"{"aps": {"alert": "Hello"}}"#, for: registration)
        let answer = try app.call("push.unregister", nil)
        #expect(answer == .object([("app", .string(Self.own)), ("token", registration["token"] ?? .null), ("unregistered", .bool(true))]))
        let unregistering = try #require(try frontEnd.event("push.unregistering"))
        #expect(unregistering["token"] == registration["token"] && unregistering["app"] == .string(Self.own))
        let refused = PushFixture.refusal { try frontEnd.call("push.receive", PushFixture.receive(message, for: registration)) }
        #expect(refused?.code == -32013 && refused?.reason == "push.unknown-token")
        #expect(try app.call("push.unregister", nil) == .object([("app", .string(Self.own)), ("unregistered", .bool(false))]))
        #expect(try frontEnd.call("push.list", nil)["registrations"] == .array([]))
        // The distributor's confirmation of a token already deleted is no error.
        #expect(try frontEnd.call("push.unregistered", .object([("token", registration["token"] ?? .null)]))["unregistered"] == .bool(false))
        // Registering again makes a new token and new keys.
        let renewed = try app.call("push.register", nil)
        #expect(renewed["token"] != registration["token"] && renewed["publicKey"] != registration["publicKey"])
        // The distributor drops it: deleted, and the app told.
        let dropped = try frontEnd.call("push.unregistered", .object([("token", renewed["token"] ?? .null)]))
        #expect(dropped["unregistered"] == .bool(true) && dropped["app"] == .string(Self.own))
        let heard = try #require(try app.event("push.unregistered"))
        #expect(heard["token"] == renewed["token"])
        #expect(try app.call("push.list", nil)["registrations"] == .array([]))
    }
}
