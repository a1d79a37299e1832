import Foundation
import TestSupport
import TidingsApp
import TidingsBase
import TidingsServer
import Testing

/// `registerForRemoteNotifications()` against a real `tidings serve`, the
/// test's front end (`HostFixture.frontEnd`) playing `tidings desktop`'s
/// part as the protocol has it: reporting the distributor
/// (`push.distributor`), the endpoint (`push.endpoint`), a refusal and the
/// distributor's unregistering; the scripted host's `RemoteNotificationTests`
/// test the library's side alone.
@Suite(.onOwnThreads)
struct RemoteNotificationServerTests {
    static let app = "org.example.chat"
    static let distributor = "org.unifiedpush.Distributor.test"

    /// The bytes of base64url text (no padding), nil when it is not.
    static func base64URL(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }

    /// The app's registration as the front end lists it.
    static func registration(_ host: HostFixture) throws -> JSON? {
        let list = try host.frontEnd.call("push.list", try host.json(#"{"app": "\#(app)"}"#))
        return list["registrations"]?.arrayValue?.first { $0["app"]?.stringValue == app }
    }

    @Test func theEndpointAFrontEndReportsReachesTheDelegateWithKeysKeptAcrossRestarts() async throws {
        let host = try HostFixture()
        let center = host.center(Self.app)
        let delegate = PushDelegate()
        try await center.setDelegate(delegate)
        try await center.registerForRemoteNotifications()
        // No front end has reported: the registration is made, without an endpoint yet.
        #expect(try #require(await next(delegate.told)?.error).code == .noPushFrontEnd)
        #expect(try await !center.isRegisteredForRemoteNotifications)

        _ = try host.frontEnd.call("push.distributor", try host.json(#"{"name": "\#(Self.distributor)"}"#))
        let made = try #require(try Self.registration(host))
        let token = try #require(made["token"]?.stringValue)
        let endpoint = "https://push.example.net/up/\(token.prefix(8))"
        _ = try host.frontEnd.call("push.endpoint", try host.json(#"{"token": "\#(token)", "endpoint": "\#(endpoint)"}"#))
        let deviceToken = try #require(await next(delegate.told)?.deviceToken)
        #expect(deviceToken.endpoint == endpoint && deviceToken.registrationToken == token)
        #expect(deviceToken.publicKey == made["publicKey"]?.stringValue && deviceToken.auth == made["auth"]?.stringValue)
        // What a Web Push sender encrypts for: an uncompressed P-256 point and a 16-byte secret.
        let publicKey = try #require(Self.base64URL(deviceToken.publicKey))
        #expect(publicKey.count == 65 && publicKey.first == 0x04)
        #expect(Self.base64URL(deviceToken.auth)?.count == 16)
        #expect(try await center.isRegisteredForRemoteNotifications)

        // At the next launch, and after the host's restart: the same registration, handed at once.
        try host.restart()
        try await center.registerForRemoteNotifications()
        #expect(try #require(await next(delegate.told)?.deviceToken) == deviceToken)

        try await center.unregisterForRemoteNotifications()
        #expect(try await !center.isRegisteredForRemoteNotifications)
        #expect(try Self.registration(host) == nil)
        await center.disconnect()
    }

    @Test func noDistributorOnTheBusIsAFailureSayingWhatToInstall() async throws {
        let host = try HostFixture()
        _ = try host.frontEnd.call("push.distributor", try host.json(#"{"name": null}"#))
        let center = host.center(Self.app)
        let delegate = PushDelegate()
        try await center.setDelegate(delegate)
        try await center.registerForRemoteNotifications()
        let error = try #require(await next(delegate.told)?.error)
        #expect(error.code == .noPushDistributor)
        #expect(!error.message.isEmpty, "the server's message says what to install")
        await center.disconnect()
    }

    @Test func theDistributorsRefusalAndUnregisteringReachTheDelegate() async throws {
        let host = try HostFixture()
        _ = try host.frontEnd.call("push.distributor", try host.json(#"{"name": "\#(Self.distributor)"}"#))
        let center = host.center(Self.app)
        let delegate = PushDelegate()
        try await center.setDelegate(delegate)
        try await center.registerForRemoteNotifications()
        let token = try #require(try Self.registration(host)?["token"]?.stringValue)
        _ = try host.frontEnd.call("push.registration-failed", try host.json(#"{"token": "\#(token)", "reason": "quota reached"}"#))
        let refused = try #require(await next(delegate.told)?.error)
        #expect(refused.code == .pushRegistrationFailed && refused.message.contains("quota reached"))

        _ = try host.frontEnd.call("push.endpoint", try host.json(#"{"token": "\#(token)", "endpoint": "https://push.example.net/1"}"#))
        #expect(await next(delegate.told)?.deviceToken?.endpoint == "https://push.example.net/1")
        _ = try host.frontEnd.call("push.unregistered", try host.json(#"{"token": "\#(token)"}"#))
        #expect(try #require(await next(delegate.told)?.error).code == .pushUnregistered)
        await center.disconnect()
    }
}
