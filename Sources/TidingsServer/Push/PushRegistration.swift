import TidingsBase
import TidingsCrypto

/// One app's registration for remote notifications: its token (what the
/// distributor knows it by), the Web Push key pair and auth secret its
/// messages are encrypted for, the endpoint once the distributor gave one,
/// and the ids of the messages it accepted. What `push.register` answers
/// is its "device token": the endpoint, the public key and the auth secret.
package struct PushRegistration: Sendable {
    /// The app it is for.
    package let app: String
    /// The token: random, 16 bytes as 32 hex digits; the distributor's name for it.
    package let token: String
    /// The private and public keys and the auth secret messages are encrypted for.
    package let subscriber: WebPushSubscriber
    /// The push endpoint the distributor gave (`push.endpoint`), nil until then.
    package var endpoint: String?
    /// The distributor's last refusal (`push.registration-failed`), until an endpoint comes.
    package var failure: String?
    /// The ids of the messages it accepted, the last 1,024.
    package var seen: PushMessageIDs

    /// A new registration of `app`: a random token, new keys.
    package static func make(for app: String, rememberedIDs: Int = PushMessageIDs.defaultLimit) throws(CryptoError) -> PushRegistration {
        let digits = Array("0123456789abcdef")
        let token = String(try SecureRandom.bytes(16).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
        return PushRegistration(app: app, token: token, subscriber: try .generate(), endpoint: nil, failure: nil,
                                seen: PushMessageIDs(limit: rememberedIDs))
    }

    /// The registration of its parts.
    package init(app: String, token: String, subscriber: WebPushSubscriber, endpoint: String?, failure: String?,
                 seen: PushMessageIDs) {
        self.app = app
        self.token = token
        self.subscriber = subscriber
        self.endpoint = endpoint
        self.failure = failure
        self.seen = seen
    }

    /// The public key, base64url of its 65 bytes (uncompressed P-256): Web Push's `p256dh`.
    package var publicKey: String { Base64.encodeURL(subscriber.keys.publicKey) }
    /// The auth secret, base64url of its 16 bytes: Web Push's `auth`.
    package var auth: String { Base64.encodeURL(subscriber.authSecret) }

    /// What `push.register` and `push.list` answer of it, with the distributor as reported.
    package func answer(_ distributor: PushDistributor) -> JSON {
        let status = distributor.status(endpoint: endpoint)
        return .object([
            ("app", .string(app)), ("token", .string(token)), ("endpoint", endpoint.map(JSON.string) ?? .null),
            ("publicKey", .string(publicKey)), ("auth", .string(auth)), ("status", .string(status.rawValue)),
            ("distributor", distributor.name.map(JSON.string) ?? .null),
            ("message", .string(distributor.message(for: status, failure: failure))),
        ])
    }

    /// The registration as `registrations.json` keeps it: the private key
    /// and auth secret included (the file is the user's alone, 0600).
    package var stored: JSON {
        .object([
            ("app", .string(app)), ("token", .string(token)),
            ("privateKey", .string(Base64.encodeURL(subscriber.keys.privateKey))),
            ("auth", .string(auth)), ("endpoint", endpoint.map(JSON.string) ?? .null),
            ("failure", failure.map(JSON.string) ?? .null), ("seen", seen.json),
        ])
    }

    /// The registration `stored` keeps, read back; thrown when it is not one
    /// (a member missing or mistyped, a key of the wrong length).
    package init(stored: JSON, file: String, rememberedIDs: Int = PushMessageIDs.defaultLimit) throws(Diagnostic) {
        let unreadable = { (why: String) in
            Diagnostic.error(.pushRegistrationsUnreadable, "A registration in \(file) cannot be read: \(why).", at: .init(file: file))
        }
        guard let app = stored["app"]?.stringValue, !app.isEmpty else { throw unreadable("no app") }
        guard let token = stored["token"]?.stringValue, !token.isEmpty else { throw unreadable("no token") }
        guard let privateKey = stored["privateKey"]?.stringValue.flatMap(Base64.decodeURL), privateKey.count == 32,
              let authSecret = stored["auth"]?.stringValue.flatMap(Base64.decodeURL), authSecret.count == 16
        else { throw unreadable("its keys of \(app) are missing or of the wrong length") }
        let keys: P256KeyPair
        do throws(CryptoError) {
            keys = try P256KeyPair(privateKey: privateKey)
        } catch {
            throw unreadable("the private key of \(app) is not a P-256 key (\(error.message))")
        }
        let seen = (stored["seen"]?.arrayValue ?? []).compactMap(\.stringValue)
        self.init(app: app, token: token, subscriber: WebPushSubscriber(keys: keys, authSecret: authSecret),
                  endpoint: stored["endpoint"]?.stringValue, failure: stored["failure"]?.stringValue,
                  seen: PushMessageIDs(seen, limit: rememberedIDs))
    }
}

extension Diagnostic.Code {
    /// `STATE/push/registrations.json` holds something that is not a registration.
    package static let pushRegistrationsUnreadable = Self("push.registrations-unreadable")
}
