import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// `push.receive`: a Web Push message encrypted for a registration becomes
/// a notification of its app with the push trigger; hostile ones are
/// refused with their codes and nothing delivered; a replay is delivered
/// once; an app over its rate is refused and told.
@Suite struct PushReceiveTests {
    let push = PushFixture()
    static let app = "org.example.pushed"

    func json(_ text: String) throws -> JSON { try PushFixture.json(text) }

    /// A started server, an app connection, its registration and a front end.
    func registered(burst: Int = 60, app name: String = app) throws -> (app: RPCClient, registration: JSON, frontEnd: RPCClient) {
        try push.start(burst: burst)
        let app = try push.app(name)
        let registration = try app.call("push.register", nil)
        return (app, registration, try push.frontEnd())
    }

    @Test func anEncryptedAPNsPayloadIsDeliveredWithThePushTrigger() throws {
        let (app, registration, frontEnd) = try registered()
        let message = try PushFixture.message(#"{"aps": {"alert": {"title": "Build 42", "body": "passed"}}, "build": 42}"#, for: registration)
        let answer = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration, id: "msg-1"))
        #expect(answer["display"] == .string("presented") && answer["delivered"] == .bool(true), "\(answer)")
        #expect(answer["app"] == .string(Self.app))
        #expect(answer["push"] == .object([("token", registration["token"] ?? .null), ("id", .string("msg-1"))]))
        #expect(answer["notification"]?["trigger"] == .object([("push", .bool(true))]))
        let listed = try app.call("notifications.list", nil)["notifications"]?.arrayValue ?? []
        #expect(listed.count == 1)
        #expect(listed.first?["notification"]?["trigger"] == .object([("push", .bool(true))]), "\(listed)")
        #expect(listed.first?["notification"]?["title"] == .string("Build 42"))
    }

    @Test func aMutableContentPushGoesThroughTheServiceExtension() throws {
        try push.server.installSample("InviteService")
        let (app, registration, frontEnd) = try registered(app: "com.example.events")
        let payload = #"{"aps": {"alert": {"title": "Team offsite", "body": "You are invited."}, "category": "event-invite", "mutable-content": 1}}"#
        let answer = try frontEnd.call("push.receive", PushFixture.receive(try PushFixture.message(payload, for: registration), for: registration))
        #expect(answer["service"]?["ran"] == .bool(true), "\(answer)")
        #expect(answer["service"]?["result"] == .string("rewritten"))
        #expect(answer["notification"]?["title"] == .string("Invitation: Team offsite"))
        let listed = try app.call("notifications.list", nil)["notifications"]?.arrayValue ?? []
        #expect(listed.first?["notification"]?["title"] == .string("Invitation: Team offsite"))
    }

    /// PyPI's http_ece, what app servers' Web Push libraries encrypt with,
    /// encrypts for the keys `push.register` answered; the server decrypts and delivers it.
    @Test func aMessageEncryptedByPythonsHttpEceIsDelivered() throws {
        let python = try #require(ProcessRunner.which("python3"), "python3 is needed")
        let (app, registration, frontEnd) = try registered()
        let script = """
            import base64, sys
            import http_ece
            from cryptography.hazmat.primitives.asymmetric import ec
            def unb64(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            sender = ec.generate_private_key(ec.SECP256R1())
            body = http_ece.encrypt(sys.argv[3].encode(), private_key=sender, dh=unb64(sys.argv[1]),
                                    auth_secret=unb64(sys.argv[2]), rs=4096, version="aes128gcm")
            print(base64.b64encode(body).decode())
            """
        let payload = #"{"aps": {"alert": {"title": "From http_ece", "body": "real sender"}}}"#
        let run = try ProcessRunner.run(python, ["-c", script, registration["publicKey"]?.stringValue ?? "",
                                                 registration["auth"]?.stringValue ?? "", payload])
        try #require(run.status == 0, "python3 with http_ece (pip install http-ece): \(run.standardError)")
        let message = String(run.standardOutput.filter { !$0.isWhitespace })
        let answer = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration, id: "ece-1"))
        #expect(answer["display"] == .string("presented"), "\(answer)")
        let listed = try app.call("notifications.list", nil)["notifications"]?.arrayValue ?? []
        #expect(listed.first?["notification"]?["title"] == .string("From http_ece"))
    }

    @Test func aContentAvailablePushReachesTheInbox() throws {
        let (app, registration, frontEnd) = try registered()
        let message = try PushFixture.message(#"{"aps": {"content-available": 1}, "sync": "mail"}"#, for: registration)
        let answer = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration))
        #expect(answer["display"] == .string("background"), "\(answer)")
        #expect(answer["push"]?["id"] == .null)
        let entries = try app.call("inbox.list", nil)["entries"]?.arrayValue ?? []
        #expect(entries.count == 1)
        #expect(entries.first?["kind"] == .string("background"))
        #expect(entries.first?["notification"]?["trigger"] == .object([("push", .bool(true))]), "\(entries)")
    }

    @Test func hostileMessagesAreRefusedWithTheirCodesAndNothingIsDelivered() throws {
        let (app, registration, frontEnd) = try registered()
        let good = try PushFixture.message(#"{"aps": {"alert": "Hello"}}"#, for: registration)
        var tampered = try #require(Base64.decode(good))
        tampered[tampered.count - 1] ^= 0x01
        let cases: [(String, JSON, String)] = [
            ("too large", PushFixture.receive(Base64.encode([UInt8](repeating: 7, count: 4_097)), for: registration), "push.too-large"),
            ("unknown token", .object([("token", .string("0123456789abcdef0123456789abcdef")), ("message", .string(good))]), "push.unknown-token"),
            ("tampered", PushFixture.receive(Base64.encode(tampered), for: registration), "push.undecryptable"),
            ("for other keys", PushFixture.receive(Base64.encode([UInt8](repeating: 1, count: 200)), for: registration), "push.undecryptable"),
            ("not JSON", PushFixture.receive(try PushFixture.message("hello", for: registration), for: registration), "push.not-a-payload"),
            ("an array", PushFixture.receive(try PushFixture.message("[1, 2]", for: registration), for: registration), "push.not-a-payload"),
            ("no aps", PushFixture.receive(try PushFixture.message(#"{"alert": "Hi"}"#, for: registration), for: registration), "push.not-a-payload"),
            ("nothing to show", PushFixture.receive(try PushFixture.message(#"{"aps": {}}"#, for: registration), for: registration), "push.not-a-payload"),
        ]
        for (name, params, code) in cases {
            let refused = PushFixture.refusal { try frontEnd.call("push.receive", params) }
            #expect(refused?.code == -32013 && refused?.reason == code, "\(name): \(String(describing: refused))")
        }
        #expect(try app.call("notifications.list", nil)["notifications"]?.arrayValue?.isEmpty == true)
        #expect(try app.call("inbox.list", nil)["entries"]?.arrayValue?.isEmpty == true)
        // Each refusal is in the server's log, naming the registration and the reason.
        let logged = push.logged.withLock { $0 }
        for code in ["push.too-large", "push.unknown-token", "push.undecryptable", "push.not-a-payload"] {
            #expect(logged.contains { $0.code.rawValue == code }, "\(code) not logged")
        }
        let token = registration["token"]?.stringValue ?? ""
        #expect(logged.filter { $0.code.rawValue == "push.undecryptable" }.allSatisfy { $0.message.contains(Self.app) && $0.message.contains(token) })
        // The data names the code, the token, the app and the reason.
        do {
            _ = try frontEnd.call("push.receive", PushFixture.receive(Base64.encode(tampered), for: registration))
            Issue.record("a tampered message was taken")
        } catch let error as RPCErrorReply {
            #expect(error.data?["token"] == registration["token"] && error.data?["app"] == .string(Self.app))
            #expect(error.data?["reason"]?.stringValue?.isEmpty == false)
        }
        // The good message still goes through.
        #expect(try frontEnd.call("push.receive", PushFixture.receive(good, for: registration))["display"] == .string("presented"))
    }

    @Test func aReplayIsDeliveredOnce() throws {
        let (app, registration, frontEnd) = try registered()
        let message = try PushFixture.message(#"{"aps": {"alert": "Once"}}"#, for: registration)
        let first = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration, id: "m-1"))
        #expect(first["display"] == .string("presented"))
        let replay = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration, id: "m-1"))
        #expect(replay["delivered"] == .bool(false) && replay["duplicate"] == .bool(true), "\(replay)")
        #expect(try app.call("notifications.list", nil)["notifications"]?.arrayValue?.count == 1)
        // Without an id, a message is never taken for a replay.
        _ = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration))
        _ = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration))
        #expect(try app.call("notifications.list", nil)["notifications"]?.arrayValue?.count == 3)
        // Nor with an empty one; a long one is known again by its digest.
        _ = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration, id: ""))
        _ = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration, id: ""))
        let long = String(repeating: "x", count: 5_000)
        _ = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration, id: long))
        let longAgain = try frontEnd.call("push.receive", PushFixture.receive(message, for: registration, id: long))
        #expect(longAgain["duplicate"] == .bool(true))
        #expect(try app.call("notifications.list", nil)["notifications"]?.arrayValue?.count == 6)
    }

    @Test func anAppOverItsRateIsRefusedAndToldOncePerStretch() throws {
        let (app, registration, frontEnd) = try registered(burst: 3)
        _ = try app.call("events.subscribe", try json(#"{"events": ["push.rate-limited"], "replay": false}"#))
        let message = try PushFixture.message(#"{"aps": {"alert": "Tick"}}"#, for: registration)
        for _ in 0..<3 {
            #expect(try frontEnd.call("push.receive", PushFixture.receive(message, for: registration))["display"] == .string("presented"))
        }
        for _ in 0..<2 {
            let refused = PushFixture.refusal { try frontEnd.call("push.receive", PushFixture.receive(message, for: registration)) }
            #expect(refused?.code == -32013 && refused?.reason == "push.rate-limited")
        }
        let told = try #require(try app.event("push.rate-limited"))
        #expect(told["app"] == .string(Self.app) && told["token"] == registration["token"])
        // Answered after the refusals were published: every event they caused has come.
        _ = try app.call("server.ping", nil)
        #expect(!app.events.contains { $0["method"] == .string("push.rate-limited") }, "told twice in one stretch")
        // A second later the bucket has one more.
        push.advance(1)
        #expect(try frontEnd.call("push.receive", PushFixture.receive(message, for: registration))["display"] == .string("presented"))
        let again = PushFixture.refusal { try frontEnd.call("push.receive", PushFixture.receive(message, for: registration)) }
        #expect(again?.reason == "push.rate-limited")
        #expect(try app.event("push.rate-limited") != nil, "a new stretch is told")
        #expect(try app.call("notifications.list", nil)["notifications"]?.arrayValue?.count == 4)
        #expect(push.loggedCodes.filter { $0 == "push.rate-limited" }.count == 3)
    }
}
