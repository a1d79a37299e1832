import Foundation
import Testing
import TestSupport
import TidingsCrypto

/// RFC 8291 Web Push message encryption over aes128gcm: Appendix A's
/// example both ways, tampering, malformed bodies, and messages that PyPI's
/// http_ece (a Python implementation not ours) encrypted.
@Suite struct WebPushTests {
    /// RFC 8291 Appendix A.
    static let authSecret = TestBytes.base64url("BTBZMqHH6r4Tts7J_aSIgg")
    static let salt = TestBytes.base64url("DGv6ra1nlYgDCS1FRnbzlw")
    static let body = TestBytes.base64url("""
        DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml
        mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT
        pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN
        """)
    static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)

    /// Appendix A's receiver.
    static func subscriber() throws -> WebPushSubscriber {
        WebPushSubscriber(keys: try P256KeyPair(privateKey: P256KeyPairTests.receiverPrivate), authSecret: authSecret)
    }

    /// The error `operation` throws (nil, and an issue, when it throws none).
    static func error(_ operation: () throws(CryptoError) -> [UInt8]) -> CryptoError? {
        EncryptedContentCodingTests.error(operation)
    }

    @Test func appendixAsKeysAndSaltGiveItsBody() throws {
        let sender = try P256KeyPair(privateKey: P256KeyPairTests.senderPrivate)
        let body = try WebPushSender.encrypt(Self.plaintext, to: P256KeyPairTests.receiverPublic, authSecret: Self.authSecret,
                                             recordSize: 4096, senderKeys: sender, salt: Self.salt)
        #expect(body == Self.body)
        #expect(body.count == 144)
    }

    @Test func appendixAsBodyDecryptsToTheWatermelon() throws {
        #expect(try Self.subscriber().decrypt(Self.body) == Self.plaintext)
    }

    @Test func aGeneratedSubscriberDecryptsWhatIsSentToIt() throws {
        let subscriber = try WebPushSubscriber.generate()
        #expect(subscriber.authSecret.count == 16)
        for (plaintext, recordSize) in [(Self.plaintext, UInt32(4096)), ([], 4096), (Array(repeating: 0x41, count: 3993), 4096),
                                        (Array(repeating: 0x42, count: 300), 100)] {
            let body = try WebPushSender.encrypt(plaintext, to: subscriber.keys.publicKey, authSecret: subscriber.authSecret,
                                                 recordSize: recordSize)
            #expect(try subscriber.decrypt(body) == plaintext)
        }
        // A 3993-byte message is one 4096-byte record after the 86-byte header.
        let largest = try WebPushSender.encrypt(Array(repeating: 0x41, count: 3993), to: subscriber.keys.publicKey,
                                                authSecret: subscriber.authSecret)
        #expect(largest.count == 86 + 4010)
    }

    @Test func anotherSubscriberCannotDecrypt() throws {
        let other = try WebPushSubscriber.generate()
        #expect(Self.error { () throws(CryptoError) in try other.decrypt(Self.body) }?.code == .failed)
        let wrongSecret = WebPushSubscriber(keys: try Self.subscriber().keys, authSecret: try SecureRandom.bytes(16))
        #expect(Self.error { () throws(CryptoError) in try wrongSecret.decrypt(Self.body) }?.code == .failed)
    }

    @Test(arguments: [0, 20, 86, 100, 127, 128, 143])
    func oneFlippedBitIsRefused(byte: Int) throws {
        var altered = Self.body
        altered[byte] ^= 0x01
        let subscriber = try Self.subscriber()
        let error = Self.error { () throws(CryptoError) in try subscriber.decrypt(altered) }
        #expect(error != nil)
        // The tag and the ciphertext (86...) fail authentication; idlen (20) is malformed.
        if byte >= 86 { #expect(error?.code == .failed) }
        if byte == 20 { #expect(error?.code == .invalid) }
    }

    @Test func aKeyIDThatIsNotASendersPointIsInvalid() throws {
        let subscriber = try Self.subscriber()
        var offCurve = Self.body
        offCurve[21 + 64] ^= 0x01
        var notUncompressed = Self.body
        notUncompressed[21] = 0x03
        let shortKeyID = try EncryptedContentCoding.Header(salt: Self.salt, recordSize: 4096, keyID: [0x04] + Array(repeating: 1, count: 32)).bytes
            + Self.body[86...]
        for (name, body) in [("off the curve", offCurve), ("not 0x04", notUncompressed), ("33 bytes", shortKeyID)] {
            #expect(Self.error { () throws(CryptoError) in try subscriber.decrypt(body) }?.code == .invalid, "\(name)")
        }
    }

    @Test func truncatedBodiesAreInvalid() throws {
        let subscriber = try Self.subscriber()
        for length in [0, 20, 21, 85, 86, 86 + 16] {
            #expect(Self.error { () throws(CryptoError) in try subscriber.decrypt(Array(Self.body.prefix(length))) }?.code == .invalid,
                    "\(length) bytes")
        }
    }

    @Test func anAuthSecretOfAnotherLengthIsInvalid() throws {
        let subscriber = WebPushSubscriber(keys: try Self.subscriber().keys, authSecret: Array(Self.authSecret.prefix(15)))
        #expect(Self.error { () throws(CryptoError) in try subscriber.decrypt(Self.body) }?.code == .invalid)
        #expect(Self.error { () throws(CryptoError) in
            try WebPushSender.encrypt([1], to: P256KeyPairTests.receiverPublic, authSecret: [1, 2, 3])
        }?.code == .invalid)
    }

    /// http_ece (PyPI's, by the RFCs' authors' group) encrypts to a subscriber
    /// of ours; the script prints each body in base64url, one a line. Not an
    /// empty message: http_ece writes it as no record at all, which RFC 8188
    /// does not allow (the last record carries the 0x02 delimiter), and
    /// which is refused as `crypto.invalid`.
    @Test func messagesEncryptedByPythonsHttpEceDecrypt() throws {
        let python = try #require(ProcessRunner.which("python3"), "python3 is needed")
        let subscriber = try WebPushSubscriber.generate()
        let script = """
            import base64, sys
            import http_ece
            from cryptography.hazmat.primitives.asymmetric import ec
            def b64(data): return base64.urlsafe_b64encode(data).decode().rstrip("=")
            def unb64(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            receiver, auth = unb64(sys.argv[1]), unb64(sys.argv[2])
            for message, rs in [(b"When I grow up, I want to be a watermelon", 4096), (b"a", 4096),
                                (b'{"aps": {"alert": "hello"}}', 4096), (bytes(range(256)) * 4, 100), (b"x" * 200, 18)]:
                sender = ec.generate_private_key(ec.SECP256R1())
                print(b64(http_ece.encrypt(message, private_key=sender, dh=receiver, auth_secret=auth,
                                           rs=rs, version="aes128gcm")))
            """
        let run = try ProcessRunner.run(python, ["-c", script, TestBytes.base64url(subscriber.keys.publicKey),
                                                 TestBytes.base64url(subscriber.authSecret)])
        try #require(run.status == 0, "python3 with http_ece (pip install http-ece): \(run.standardError)")
        let bodies = run.standardOutput.split(separator: "\n").map { TestBytes.base64url(String($0)) }
        let expected: [[UInt8]] = [Self.plaintext, [0x61], Array(#"{"aps": {"alert": "hello"}}"#.utf8),
                                   Array(repeating: Array(0...255), count: 4).flatMap { $0 }, Array(repeating: 0x78, count: 200)]
        try #require(bodies.count == expected.count, "\(run.standardOutput)")
        for (body, plaintext) in zip(bodies, expected) {
            #expect(try subscriber.decrypt(body) == plaintext)
        }
    }
}
