import Testing
import TidingsCrypto

/// P-256 key pairs and ECDH from libcrypto, with RFC 8291 Appendix A's keys.
@Suite struct P256KeyPairTests {
    /// RFC 8291 Appendix A: the receiver's (user agent's) and the sender's
    /// (application server's) keys, and their ECDH shared secret.
    static let receiverPrivate = TestBytes.base64url("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")
    static let receiverPublic = TestBytes.base64url(
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
    static let senderPrivate = TestBytes.base64url("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
    static let senderPublic = TestBytes.base64url(
        "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
    static let sharedSecret = TestBytes.base64url("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs")

    /// The order n of P-256's base point.
    static let order = TestBytes.hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    @Test func thePublicKeyIsDerivedFromThePrivateScalar() throws {
        let receiver = try P256KeyPair(privateKey: Self.receiverPrivate)
        #expect(receiver.publicKey == Self.receiverPublic)
        #expect(receiver.privateKey == Self.receiverPrivate)
        #expect(try P256KeyPair(privateKey: Self.senderPrivate).publicKey == Self.senderPublic)
    }

    @Test func theSharedSecretIsRFC8291sFromEitherSide() throws {
        let receiver = try P256KeyPair(privateKey: Self.receiverPrivate)
        let sender = try P256KeyPair(privateKey: Self.senderPrivate)
        #expect(try receiver.sharedSecret(with: Self.senderPublic) == Self.sharedSecret)
        #expect(try sender.sharedSecret(with: Self.receiverPublic) == Self.sharedSecret)
    }

    @Test func twoGeneratedPairsAgree() throws {
        let one = try P256KeyPair.generate()
        let other = try P256KeyPair.generate()
        #expect(one != other)
        #expect(one.privateKey.count == 32)
        #expect(one.publicKey.count == 65 && one.publicKey[0] == 0x04)
        let secret = try one.sharedSecret(with: other.publicKey)
        #expect(secret.count == 32)
        #expect(try other.sharedSecret(with: one.publicKey) == secret)
        #expect(try P256KeyPair(privateKey: one.privateKey) == one)
    }

    @Test func scalarsOutsideOneToTheOrderAreInvalid() {
        var orderPlusOne = Self.order
        orderPlusOne[31] += 1
        let scalars: [(String, [UInt8])] = [
            ("zero", [UInt8](repeating: 0, count: 32)),
            ("the order", Self.order),
            ("the order plus one", orderPlusOne),
            ("all ones", [UInt8](repeating: 0xff, count: 32)),
            ("31 bytes", [UInt8](Self.receiverPrivate.prefix(31))),
            ("33 bytes", [0] + Self.receiverPrivate),
        ]
        for (name, scalar) in scalars {
            do {
                _ = try P256KeyPair(privateKey: scalar)
                Issue.record("\(name) was accepted")
            } catch {
                #expect(error.code == .invalid, "\(name): \(error)")
            }
        }
    }

    @Test func aPeerKeyThatIsNotAPointOnTheCurveIsInvalid() throws {
        let receiver = try P256KeyPair(privateKey: Self.receiverPrivate)
        var offCurve = Self.senderPublic
        offCurve[64] ^= 0x01
        var compressed = [UInt8](Self.senderPublic.prefix(33))
        compressed[0] = 0x02 | (Self.senderPublic[64] & 1)
        var wrongPrefix = Self.senderPublic
        wrongPrefix[0] = 0x05
        let peers: [(String, [UInt8])] = [
            ("off the curve", offCurve),
            ("compressed", compressed),
            ("prefix 0x05", wrongPrefix),
            ("empty", []),
            ("all zeros", [0x04] + [UInt8](repeating: 0, count: 64)),
        ]
        for (name, peer) in peers {
            do {
                _ = try receiver.sharedSecret(with: peer)
                Issue.record("\(name) was accepted")
            } catch {
                #expect(error.code == .invalid, "\(name): \(error)")
            }
        }
    }
}
