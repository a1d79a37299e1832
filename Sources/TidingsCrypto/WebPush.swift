/// What a Web Push receiver keeps (RFC 8291, Message Encryption for Web
/// Push): its P-256 key pair and its 16-byte authentication secret, both
/// given to the sender with the endpoint; with them it decrypts what the
/// sender encrypted to it.
package struct WebPushSubscriber: Sendable {
    /// The receiver's key pair (the user agent's, `ua_public` / `ua_private`).
    package let keys: P256KeyPair
    /// The authentication secret (`auth_secret`), 16 bytes.
    package let authSecret: [UInt8]

    /// A subscriber of these keys and secret.
    package init(keys: P256KeyPair, authSecret: [UInt8]) {
        self.keys = keys
        self.authSecret = authSecret
    }

    /// A subscriber with a new key pair and a new 16-byte authentication secret.
    /// - Throws: `crypto.no-library` without libcrypto, `crypto.failed` when it refuses.
    package static func generate() throws(CryptoError) -> WebPushSubscriber {
        WebPushSubscriber(keys: try P256KeyPair.generate(), authSecret: try SecureRandom.bytes(WebPushKeying.authSecretCount))
    }

    /// RFC 8291 + RFC 8188 aes128gcm: the plaintext of `body` (header, records, padding removed).
    /// - Throws: `crypto.invalid` for a malformed body (its header, a key id
    ///   that is not the sender's 65-byte public point, a truncated record,
    ///   a missing or wrong padding delimiter) or an authentication secret
    ///   that is not 16 bytes; `crypto.failed` when a tag does not match (not
    ///   for these keys, or altered); `crypto.no-library`.
    package func decrypt(_ body: [UInt8]) throws(CryptoError) -> [UInt8] {
        let header = try EncryptedContentCoding.Header(parsing: body)
        guard header.keyID.count == 65 else {
            throw CryptoError(.invalid, "a Web Push body's key id is the sender's 65-byte public key, not \(header.keyID.count) bytes")
        }
        let ikm = try WebPushKeying.inputKeyingMaterial(
            sharedSecret: try keys.sharedSecret(with: header.keyID), authSecret: authSecret,
            receiverPublicKey: keys.publicKey, senderPublicKey: header.keyID)
        return try EncryptedContentCoding.decrypt(body, ikm: ikm)
    }
}

/// The sending side of RFC 8291: what an application server does to a
/// message for a subscriber. For tests and the benchmark (Tidings receives).
package enum WebPushSender {
    /// `plaintext` encrypted to the subscriber of `publicKey` and
    /// `authSecret`, with a new sender key pair and salt, in records of `recordSize`.
    /// - Throws: `crypto.invalid` for a public key that is not a point, an
    ///   authentication secret that is not 16 bytes or a record size below 18;
    ///   `crypto.no-library`; `crypto.failed`.
    package static func encrypt(_ plaintext: [UInt8], to publicKey: [UInt8], authSecret: [UInt8],
                                recordSize: UInt32 = 4096) throws(CryptoError) -> [UInt8] {
        try encrypt(plaintext, to: publicKey, authSecret: authSecret, recordSize: recordSize,
                    senderKeys: try P256KeyPair.generate(), salt: try SecureRandom.bytes(16))
    }

    /// `plaintext` encrypted to the subscriber of `publicKey` and
    /// `authSecret` with the given sender key pair and 16-byte salt (RFC 8291's
    /// example fixes both; a real message draws them anew).
    /// - Throws: as the other `encrypt`, and `crypto.invalid` for a salt that is not 16 bytes.
    package static func encrypt(_ plaintext: [UInt8], to publicKey: [UInt8], authSecret: [UInt8],
                                recordSize: UInt32 = 4096, senderKeys: P256KeyPair,
                                salt: [UInt8]) throws(CryptoError) -> [UInt8] {
        let ikm = try WebPushKeying.inputKeyingMaterial(
            sharedSecret: try senderKeys.sharedSecret(with: publicKey), authSecret: authSecret,
            receiverPublicKey: publicKey, senderPublicKey: senderKeys.publicKey)
        return try EncryptedContentCoding.encrypt(plaintext, ikm: ikm, salt: salt, keyID: senderKeys.publicKey,
                                                  recordSize: recordSize)
    }
}

/// RFC 8291 section 3.3: the input keying material of RFC 8188 from the
/// ECDH shared secret and the authentication secret.
enum WebPushKeying {
    /// The authentication secret's length.
    static let authSecretCount = 16

    /// `HKDF(salt: auth_secret, IKM: ecdh_secret, info: "WebPush: info" || 0x00 || ua_public || as_public, L: 32)`.
    /// - Throws: `crypto.invalid` for an authentication secret that is not 16 bytes.
    static func inputKeyingMaterial(sharedSecret: [UInt8], authSecret: [UInt8], receiverPublicKey: [UInt8],
                                    senderPublicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard authSecret.count == authSecretCount else {
            throw CryptoError(.invalid, "a Web Push authentication secret is \(authSecretCount) bytes, not \(authSecret.count)")
        }
        let info = Array("WebPush: info\0".utf8) + receiverPublicKey + senderPublicKey
        return try HKDF.sha256(salt: authSecret, key: sharedSecret, info: info, count: 32)
    }
}
