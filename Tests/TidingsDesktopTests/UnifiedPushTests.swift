import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase

/// `tidings desktop` as the UnifiedPush connector: the distributor double
/// (written from the D-Bus specification, its own push server over HTTP)
/// on a private session bus, a scripted Tidings server (the protocol peer:
/// the server's push methods are another part's), and the front end between
/// them. Each step waits for what a double records or the front end logs,
/// never for a time.
@Suite(.serialized, .enabled(if: canRunUnifiedPush, "needs libsystemd, dbus-daemon and python3-gi"))
struct UnifiedPushTests {
    /// The bytes a push.receive carried (its `message`, base64).
    private func bytes(of params: JSON) -> [UInt8]? {
        params["message"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
    }

    @Test func registerEndpointMessagesAndUnregisteredReachTheServer() throws {
        let rig = try UnifiedPushRig(registrations: [UnifiedPushRig.registration("tok-chat")])
        let distributor = try rig.startDistributor()
        try rig.startDesktop()
        // Register: Tidings' own bus name and the server's token, through Distributor2.
        let register = try distributor.waitFor("call") { $0["call"] == .string("Register") }
        #expect(register["service"] == .string("org.tidings.Push"), "\(register)")
        #expect(register["token"] == .string("tok-chat"), "\(register)")
        #expect(register["interface"] == .string("org.unifiedpush.Distributor2"), "\(register)")
        #expect(register["description"]?.stringValue?.contains("Chat") == true, "\(register)")
        let said = try rig.waitForServerCall("push.distributor")
        #expect(said["name"] == .string(UnifiedPushRig.distributorName), "\(said)")
        // NewEndpoint → push.endpoint, with the endpoint the distributor gave.
        let sent = try distributor.waitFor("sent") { $0["sent"] == .string("NewEndpoint") }
        let endpoint = try #require(sent["endpoint"]?.stringValue)
        let told = try rig.waitForServerCall("push.endpoint")
        #expect(told["token"] == .string("tok-chat") && told["endpoint"] == .string(endpoint), "\(told)")
        // A POSTed body reaches push.receive byte for byte, with the distributor's message id.
        let body: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) } + [0, 255, 10, 13]
        try rig.post(body, to: endpoint)
        let received = try rig.waitForServerCall("push.receive")
        #expect(received["token"] == .string("tok-chat"), "\(received)")
        #expect(bytes(of: received) == body, "\(received)")
        #expect(received["id"] == .string("m-1"), "\(received)")
        // Connector2's Message answers the id it was given.
        let answered = try distributor.waitFor("sent") { $0["sent"] == .string("Message") && $0["id"] == .string("m-1") }
        #expect(answered["answer"]?["id"] == .string("m-1"), "\(answered)")
        _ = try rig.waitForPush("delivered")
        // Larger than Web Push allows: forwarded still, for the server's own diagnostic.
        let large = [UInt8](repeating: 0x42, count: 5_000)
        try rig.post(large, to: endpoint)
        let forwarded = try rig.waitForServerCall("push.receive", count: 2)
        #expect(bytes(of: forwarded) == large)
        // Beyond 64 KiB: refused at the bus, never buffered or forwarded.
        try distributor.send("send tok-chat 70000")
        let refused = try distributor.waitFor("sent") { $0["sent"] == .string("Message") && $0["id"] == .string("s-70000") }
        #expect(refused["error"]?.stringValue?.contains("InvalidArgs") == true || refused["error"] != nil, "\(refused)")
        _ = try rig.waitForPush("refused") { $0["reason"]?.stringValue?.contains("65536") == true }
        // The distributor drops the registration: push.unregistered.
        try distributor.send("unregister tok-chat")
        let dropped = try rig.waitForServerCall("push.unregistered")
        #expect(dropped["token"] == .string("tok-chat"), "\(dropped)")
        #expect(rig.serverCalls("push.receive").count == 2, "\(rig.serverCalls("push.receive"))")
    }

    @Test func aRestartedDistributorIsRegisteredWithAgain() throws {
        let rig = try UnifiedPushRig(registrations: [UnifiedPushRig.registration("tok-a"), UnifiedPushRig.registration("tok-b", app: "org.example.mail")])
        let distributor = try rig.startDistributor()
        try rig.startDesktop()
        try distributor.waitFor("call", count: 2) { $0["call"] == .string("Register") }
        try rig.waitForServerCall("push.endpoint", count: 2)
        try distributor.send("restart")
        try distributor.waitFor("ready", count: 2)
        // Both tokens again, with the new process.
        try distributor.waitFor("call", count: 4) { $0["call"] == .string("Register") }
        let tokens = Set(distributor.lines("call") { $0["call"] == .string("Register") }.suffix(2).compactMap { $0["token"]?.stringValue })
        #expect(tokens == ["tok-a", "tok-b"])
        // The new endpoints (the push server's port changed) reach the server.
        let fresh = try rig.waitForServerCall("push.endpoint", count: 4)
        let latest = try #require(distributor.lines("sent") { $0["sent"] == .string("NewEndpoint") }.last?["endpoint"])
        #expect(rig.serverCalls("push.endpoint").suffix(2).contains { $0["params"]?["endpoint"] == latest }, "\(fresh)")
        _ = try rig.waitForPush("gone")
    }

    @Test func noDistributorIsSaidAndOneThatAppearsIsRegisteredWith() throws {
        let rig = try UnifiedPushRig(registrations: [UnifiedPushRig.registration("tok-late")])
        try rig.startDesktop()
        let none = try rig.waitForServerCall("push.distributor")
        #expect(none["name"] == .null, "\(none)")
        #expect(none["message"]?.stringValue?.contains("KUnifiedPush") == true, "\(none)")
        let distributor = try rig.startDistributor()
        let register = try distributor.waitFor("call") { $0["call"] == .string("Register") }
        #expect(register["token"] == .string("tok-late"))
        try rig.waitForServerCall("push.distributor") { $0["name"] == .string(UnifiedPushRig.distributorName) }
        try rig.waitForServerCall("push.endpoint") { $0["token"] == .string("tok-late") }
    }

    @Test func aDistributorDBusActivationStartsIsRegisteredWith() throws {
        let rig = try UnifiedPushRig(registrations: [UnifiedPushRig.registration("tok-start")], activatable: true)
        try rig.startDesktop()
        // None runs: the activatable one is chosen, and the first Register starts it.
        let said = try rig.waitForServerCall("push.distributor")
        #expect(said["name"] == .string(UnifiedPushRig.distributorName), "\(said)")
        let told = try rig.waitForServerCall("push.endpoint") { $0["token"] == .string("tok-start") }
        let register = try #require(rig.activatedLines.first { $0["call"] == .string("Register") })
        #expect(register["token"] == .string("tok-start") && register["service"] == .string("org.tidings.Push"))
        // Its NewEndpoint came from the connection activation started, which was believed.
        #expect(rig.activatedLines.contains { $0["sent"] == .string("NewEndpoint") && $0["endpoint"] == told["endpoint"] })
        #expect(rig.pushEvents("refused").isEmpty, "\(rig.desktopLog)")
    }

    @Test func theServersEventsRegisterAndUnregister() throws {
        let rig = try UnifiedPushRig()
        let distributor = try rig.startDistributor()
        try rig.startDesktop()
        try rig.waitForServerCall("push.distributor")
        // An app registered: the server lists it, and says so.
        try rig.setRegistrations([UnifiedPushRig.registration("tok-new")])
        try rig.serverEvent("push.registration-requested", .object([("app", .string("org.example.chat")),
                                                                     ("token", .string("tok-new"))]))
        try distributor.waitFor("call") { $0["call"] == .string("Register") && $0["token"] == .string("tok-new") }
        try rig.waitForServerCall("push.endpoint") { $0["token"] == .string("tok-new") }
        // It unregistered: Unregister with the distributor, whose confirmation is not the distributor's own drop.
        try rig.setRegistrations([])
        try rig.serverEvent("push.unregistering", .object([("app", .string("org.example.chat")), ("token", .string("tok-new"))]))
        let unregister = try distributor.waitFor("call") { $0["call"] == .string("Unregister") }
        #expect(unregister["token"] == .string("tok-new"))
        _ = try rig.waitForPush("confirmed") { $0["token"] == .string("tok-new") }
        #expect(rig.serverCalls("push.unregistered").isEmpty, "\(rig.serverCalls("push.unregistered"))")
    }

    @Test func aRefusedRegistrationReachesTheServer() throws {
        let rig = try UnifiedPushRig(registrations: [UnifiedPushRig.registration("tok-no")])
        let distributor = try rig.startDistributor()
        try distributor.send("refuse ACTION_REQUIRED")
        try distributor.waitFor("refusing")
        try rig.startDesktop()
        let failed = try rig.waitForServerCall("push.registration-failed")
        #expect(failed["token"] == .string("tok-no") && failed["reason"] == .string("ACTION_REQUIRED"), "\(failed)")
        #expect(rig.serverCalls("push.endpoint").isEmpty)
    }

    @Test func anOlderDistributorIsSpokenToThroughDistributor1AndConnector1() throws {
        let rig = try UnifiedPushRig(registrations: [UnifiedPushRig.registration("tok-v1")])
        let distributor = try rig.startDistributor(interface: "1")
        try rig.startDesktop()
        let register = try distributor.waitFor("call") { $0["call"] == .string("Register") }
        #expect(register["interface"] == .string("org.unifiedpush.Distributor1"), "\(register)")
        #expect(register["service"] == .string("org.tidings.Push") && register["token"] == .string("tok-v1"))
        let told = try rig.waitForServerCall("push.endpoint")
        let endpoint = try #require(told["endpoint"]?.stringValue)
        let body: [UInt8] = Array("an aes128gcm body, as it came".utf8)
        try rig.post(body, to: endpoint)
        let received = try rig.waitForServerCall("push.receive")
        #expect(bytes(of: received) == body && received["id"] == .string("m-1"), "\(received)")
        _ = try rig.waitForPush("message") { $0["interface"] == .string("org.unifiedpush.Connector1") }
    }

    @Test func aCallFromAnotherConnectionThanTheDistributorsIsRefused() throws {
        let rig = try UnifiedPushRig(registrations: [UnifiedPushRig.registration("tok-x")])
        let distributor = try rig.startDistributor()
        try rig.startDesktop()
        try rig.waitForServerCall("push.endpoint")
        try distributor.send("forge org.tidings.Push tok-x")
        let forged = try distributor.waitFor("sent") { $0["forged"] == .bool(true) }
        #expect(forged["error"]?.stringValue?.contains("refused") == true, "\(forged)")
        _ = try rig.waitForPush("refused") { $0["reason"]?.stringValue?.contains("NewEndpoint") == true }
        #expect(!rig.serverCalls("push.endpoint").contains { $0["params"]?["endpoint"]?.stringValue?.contains("forged") == true })
    }
}

/// The server away, or refusing: what the distributor hands over waits for
/// the server and is sent once the front end is synchronised again; a
/// refusal is logged with the server's reason.
@Suite(.serialized, .enabled(if: canRunUnifiedPush, "needs libsystemd, dbus-daemon and python3-gi"))
struct UnifiedPushServerAwayTests {
    @Test func aPushWhileTheServerIsAwayIsSentOnceItIsBack() throws {
        let rig = try UnifiedPushRig(registrations: [UnifiedPushRig.registration("tok-away")])
        let distributor = try rig.startDistributor()
        try rig.startDesktop()
        let endpoint = try #require(try rig.waitForServerCall("push.endpoint")["endpoint"]?.stringValue)
        let subscriptions = rig.serverCalls("events.subscribe").count
        try rig.server.send("hangup")
        _ = try rig.server.waitFor("hungUp")
        try rig.post([1, 2, 3, 4], to: endpoint)
        try distributor.waitFor("sent") { $0["sent"] == .string("Message") }
        // Reconnected and synchronised: the message follows, once.
        try rig.waitForServerCall("events.subscribe", count: subscriptions + 1)
        let received = try rig.waitForServerCall("push.receive")
        #expect(received["message"] == .string("AQIDBA=="), "\(received)")
    }

    @Test func theServersRefusalIsLoggedWithItsReason() throws {
        let rig = try UnifiedPushRig(registrations: [UnifiedPushRig.registration("tok-bad")])
        try rig.server.send("refuse-receive push.undecryptable")
        _ = try rig.server.waitFor("refusing")
        try rig.startDistributor()
        try rig.startDesktop()
        let endpoint = try #require(try rig.waitForServerCall("push.endpoint")["endpoint"]?.stringValue)
        try rig.post(Array("not encrypted".utf8), to: endpoint)
        let refused = try rig.waitForPush("server-refused")
        #expect(refused["reason"] == .string("push.undecryptable") && refused["code"] == .integer(-32013), "\(refused)")
        #expect(refused["token"] == .string("tok-bad"))
    }
}
