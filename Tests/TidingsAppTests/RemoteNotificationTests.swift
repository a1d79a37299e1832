import Foundation
import TestSupport
import TidingsApp
import Testing

/// `registerForRemoteNotifications()` and its delegate callbacks against a
/// scripted host (`ScriptedHost`) that answers `push.register`,
/// `push.unregister` and `push.list` as the protocol says and pushes the
/// `push.…` events a front end's reports make the server publish: the
/// library's side alone, whatever the server does. `RemoteNotificationServerTests`
/// does the same against a real `tidings serve`.
@Suite(.onOwnThreads) struct RemoteNotificationTests {
    static let app = "org.example.chat"
    static let endpoint = "https://push.example.net/up/AbC123"
    static let publicKey = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    /// A registration as `push.register` answers it, in `status`, with the endpoint or not.
    static func registration(_ status: String, endpoint: String? = endpoint, token: String = "t-1", message: String = "") -> String {
        #"{"app": "\#(app)", "token": "\#(token)", "endpoint": \#(endpoint.map { "\"\($0)\"" } ?? "null"), "publicKey": "\#(publicKey)", "auth": "\#(auth)", "status": "\#(status)", "distributor": "org.unifiedpush.Distributor.test", "message": "\#(message)"}"#
    }

    /// A `push.new-endpoint` event's params for `endpoint`.
    static func newEndpoint(_ endpoint: String, token: String = "t-1", app: String = app) -> String {
        #"{"app": "\#(app)", "token": "\#(token)", "endpoint": "\#(endpoint)", "publicKey": "\#(publicKey)", "auth": "\#(auth)", "seq": 7}"#
    }

    /// A scripted host answering `push.register` with `register`, and a center of the app on it with `delegate`.
    static func host(_ directory: TemporaryDirectory, register: String,
                     list: String = #"{"registrations": [], "distributor": null, "status": "noFrontEnd"}"#) throws
        -> (ScriptedHost, UserNotificationCenter) {
        let host = try ScriptedHost(path: directory.file("host.sock")) { method, _ in
            switch method {
            case "push.register": .result(register)
            case "push.unregister": .result(#"{"app": "\#(app)", "token": "t-1", "unregistered": true}"#)
            case "push.list": .result(list)
            default: .error(code: -32601, message: "No method \(method).")
            }
        }
        return (host, UserNotificationCenter(app: app, socketPath: host.path, executor: OwnThreads.shared))
    }

    @Test func aRegisteredAnswerHandsTheDeviceTokenAtOnce() async throws {
        let directory = TemporaryDirectory()
        let (host, center) = try Self.host(directory, register: Self.registration("registered"))
        let delegate = PushDelegate()
        try await center.setDelegate(delegate)
        try await center.registerForRemoteNotifications()
        #expect(host.call("push.register")?.params["app"] as? String == Self.app)
        let token = try #require(await next(delegate.told)?.deviceToken)
        #expect(token.endpoint == Self.endpoint && token.publicKey == Self.publicKey && token.auth == Self.auth)
        #expect(token.registrationToken == "t-1")
        // The form Web Push libraries take as subscription_info.
        #expect(token.json == ["endpoint": .string(Self.endpoint), "keys": ["p256dh": .string(Self.publicKey), "auth": .string(Self.auth)]])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(token.jsonText.utf8)) as? [String: Any])
        #expect(parsed["endpoint"] as? String == Self.endpoint)
        #expect((parsed["keys"] as? [String: String]) == ["p256dh": Self.publicKey, "auth": Self.auth])
        await center.disconnect()
    }

    @Test func aPendingRegistrationIsHandedWhenItsEndpointArrivesAndAgainWhenItChanges() async throws {
        let directory = TemporaryDirectory()
        let (host, center) = try Self.host(directory, register: Self.registration("pending", endpoint: nil))
        let delegate = PushDelegate()
        try await center.setDelegate(delegate)
        try await center.registerForRemoteNotifications()
        host.send(event: "push.new-endpoint", params: Self.newEndpoint(Self.endpoint))
        #expect(try #require(await next(delegate.told)?.deviceToken).endpoint == Self.endpoint)
        // The same endpoint again (a front end registering anew) is no news; another app's and another token's are not the app's.
        host.send(event: "push.new-endpoint", params: Self.newEndpoint(Self.endpoint))
        host.send(event: "push.new-endpoint", params: Self.newEndpoint("https://elsewhere.example/1", app: "org.example.other"))
        host.send(event: "push.new-endpoint", params: Self.newEndpoint("https://elsewhere.example/2", token: "t-other"))
        // A distributor change: a new endpoint, handed again.
        host.send(event: "push.new-endpoint", params: Self.newEndpoint("https://ntfy.example/up/Z9"))
        #expect(try #require(await next(delegate.told)?.deviceToken).endpoint == "https://ntfy.example/up/Z9")
        await center.disconnect()
    }

    @Test(arguments: [("noDistributor", UserNotificationError.Code.noPushDistributor), ("noFrontEnd", .noPushFrontEnd)])
    func noDistributorOrNoFrontEndIsAFailureSayingWhatToDo(_ status: String, _ code: UserNotificationError.Code) async throws {
        let directory = TemporaryDirectory()
        let message = status == "noDistributor"
            ? "No UnifiedPush distributor is on the session bus: install one, such as KUnifiedPush or ntfy's."
            : "No front end has reported: tidings desktop is not running."
        let (host, center) = try Self.host(directory, register: Self.registration(status, endpoint: nil, message: message))
        let delegate = PushDelegate()
        try await center.setDelegate(delegate)
        try await center.registerForRemoteNotifications()
        let error = try #require(await next(delegate.told)?.error)
        #expect(error.code == code && error.message == message)
        // The registration is kept: once a front end (and a distributor) come, its endpoint is handed.
        host.send(event: "push.new-endpoint", params: Self.newEndpoint(Self.endpoint))
        #expect(try #require(await next(delegate.told)?.deviceToken).endpoint == Self.endpoint)
        await center.disconnect()
    }

    @Test func aRefusalAndTheDistributorsUnregisteringAreFailures() async throws {
        let directory = TemporaryDirectory()
        let (host, center) = try Self.host(directory, register: Self.registration("pending", endpoint: nil))
        let delegate = PushDelegate()
        try await center.setDelegate(delegate)
        try await center.registerForRemoteNotifications()
        host.send(event: "push.registration-failed", params: #"{"app": "\#(Self.app)", "token": "t-1", "reason": "The quota is reached."}"#)
        let refused = try #require(await next(delegate.told)?.error)
        #expect(refused.code == .pushRegistrationFailed && refused.message.contains("The quota is reached."))
        host.send(event: "push.new-endpoint", params: Self.newEndpoint(Self.endpoint))
        #expect(await next(delegate.told)?.deviceToken != nil)
        host.send(event: "push.unregistered", params: #"{"app": "\#(Self.app)", "token": "t-1"}"#)
        #expect(try #require(await next(delegate.told)?.error).code == .pushUnregistered)
        await center.disconnect()
    }

    @Test func unregisteringSendsPushUnregisterAndEndsTheRegistrationsEvents() async throws {
        let directory = TemporaryDirectory()
        let (host, center) = try Self.host(directory, register: Self.registration("registered"))
        let delegate = PushDelegate()
        try await center.setDelegate(delegate)
        try await center.registerForRemoteNotifications()
        #expect(await next(delegate.told)?.deviceToken != nil)
        try await center.unregisterForRemoteNotifications()
        #expect(host.call("push.unregister")?.params["app"] as? String == Self.app)
        // What the ended registration's distributor still says is not the app's news.
        host.send(event: "push.unregistered", params: #"{"app": "\#(Self.app)", "token": "t-1"}"#)
        host.send(event: "push.new-endpoint", params: Self.newEndpoint("https://late.example/1"))
        host.send(event: "response.forwarded", params: #"{"app": "\#(Self.app)", "id": 1, "kind": "response", "actionIdentifier": "open", "notification": {"identifier": "barrier", "date": "2026-12-02T10:00:00Z", "title": "Hi"}}"#)
        #expect(await next(delegate.told) == .response("barrier"))
        // Registering again: the registration's events are heard again.
        try await center.registerForRemoteNotifications()
        let again = try #require(await next(delegate.told)?.deviceToken)
        #expect(again.endpoint == Self.endpoint)
        await center.disconnect()
    }

    @Test func isRegisteredIsTrueOnlyWithAnEndpoint() async throws {
        let directory = TemporaryDirectory()
        let with = #"{"registrations": [\#(Self.registration("registered"))], "distributor": "org.unifiedpush.Distributor.test", "status": "registered"}"#
        let (host, center) = try Self.host(directory, register: Self.registration("registered"), list: with)
        #expect(try await center.isRegisteredForRemoteNotifications)
        #expect(host.call("push.list")?.params["app"] as? String == Self.app)
        let directory2 = TemporaryDirectory()
        let pending = #"{"registrations": [\#(Self.registration("pending", endpoint: nil))], "distributor": null, "status": "pending"}"#
        let (_, other) = try Self.host(directory2, register: Self.registration("pending", endpoint: nil), list: pending)
        #expect(try await !other.isRegisteredForRemoteNotifications)
        await center.disconnect()
        await other.disconnect()
    }

    @Test func aHostWithoutPushMethodsIsAThrownError() async throws {
        let directory = TemporaryDirectory()
        let host = try ScriptedHost(path: directory.file("host.sock")) { method, _ in .error(code: -32601, message: "No method \(method).") }
        let center = UserNotificationCenter(app: Self.app, socketPath: host.path, executor: OwnThreads.shared)
        await #expect(throws: UserNotificationError.self) { try await center.registerForRemoteNotifications() }
        await center.disconnect()
    }
}
