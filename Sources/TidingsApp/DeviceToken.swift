import TidingsBase

/// What the app hands its server so that the server can push to it: the
/// counterpart of the `deviceToken` APNs gives
/// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
///
/// On Linux the push system is UnifiedPush and the messages are Web Push
/// (RFC 8030, encrypted with RFC 8291), so the "device token" is a Web Push
/// subscription: the endpoint URL the server posts to, and the
/// registration's public key and authentication secret the server encrypts
/// for. ``json`` is that subscription in the form Web Push libraries take
/// (pywebpush's `subscription_info`, web-push's `pushSubscription`).
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    /// The URL the app's server posts its pushes to (the distributor's push server).
    public let endpoint: String
    /// The registration's P-256 public key, uncompressed (65 bytes), in
    /// base64url without padding: Web Push's `p256dh`.
    public let publicKey: String
    /// The registration's 16-byte authentication secret in base64url without padding: Web Push's `auth`.
    public let auth: String
    /// Tidings' token for the registration: the name the distributor knows
    /// it by (`push.register`'s `token`). The app's server needs only the
    /// endpoint and the keys.
    public let registrationToken: String

    /// A device token of these parts.
    public init(endpoint: String, publicKey: String, auth: String, registrationToken: String = "") {
        self.endpoint = endpoint
        self.publicKey = publicKey
        self.auth = auth
        self.registrationToken = registrationToken
    }

    /// The device token a `push.register` or `push.list` entry, or a
    /// `push.new-endpoint` event, carries; nil while its endpoint is not known.
    init?(registration: JSONValue) {
        guard let endpoint = registration["endpoint"]?.stringValue, !endpoint.isEmpty,
              let publicKey = registration["publicKey"]?.stringValue,
              let auth = registration["auth"]?.stringValue
        else { return nil }
        self.init(endpoint: endpoint, publicKey: publicKey, auth: auth,
                  registrationToken: registration["token"]?.stringValue ?? "")
    }

    /// The Web Push subscription as Web Push libraries take it:
    /// `{"endpoint": …, "keys": {"p256dh": …, "auth": …}}`.
    public var json: JSONValue {
        ["endpoint": .string(endpoint), "keys": ["p256dh": .string(publicKey), "auth": .string(auth)]]
    }

    /// ``json`` as text, on one line: what the app sends its server.
    public var jsonText: String {
        json.wire.serialized()
    }

    /// ``jsonText``.
    public var description: String { jsonText }
}
