import Testing
import TidingsCrypto

/// RFC 8188's aes128gcm content coding with the input keying material
/// given: the RFC's examples (sections 3.1 and 3.2) and malformed bodies.
@Suite struct EncryptedContentCodingTests {
    /// Section 3.1: one record, rs 4096, no key id.
    static let singleIKM = TestBytes.base64url("yqdlZ-tYemfogSmv7Ws5PQ")
    static let singleSalt = TestBytes.base64url("I1BsxtFttlv3u_Oo94xnmw")
    static let singleBody = TestBytes.base64url("I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg")
    /// Section 3.1's intermediate content-encryption key and nonce.
    static let singleKey = TestBytes.base64url("_wniytB-ofscZDh4tbSjHw")
    static let singleNonce = TestBytes.base64url("Bcs8gkIRKLI8GeI8")
    /// Section 3.2: two records of rs 25, key id "a1", one 0x00 padding octet in the first.
    static let multipleIKM = TestBytes.base64url("BO3ZVPxUlnLORbVGMpbT1Q")
    static let multipleBody = TestBytes.base64url(
        "uNCkWiNYzKTnBN9ji3-qWAAAABkCYTHOG8chz_gnvgOqdGYovxyjuqRyJFjEDyoF1Fvkj6hQPdPHI51OEUKEpgz3SsLWIqS_uA")
    static let walrus = Array("I am the walrus".utf8)

    /// The error `operation` throws (nil, and an issue, when it throws none).
    static func error(_ operation: () throws(CryptoError) -> [UInt8]) -> CryptoError? {
        do {
            let result = try operation()
            Issue.record("accepted, giving \(result.count) bytes")
            return nil
        } catch {
            return error
        }
    }

    @Test func section31DecryptsAndEncryptsToTheSameBody() throws {
        #expect(try EncryptedContentCoding.decrypt(Self.singleBody, ikm: Self.singleIKM) == Self.walrus)
        let header = try EncryptedContentCoding.Header(parsing: Self.singleBody)
        #expect(header.salt == Self.singleSalt && header.recordSize == 4096 && header.keyID.isEmpty)
        #expect(try EncryptedContentCoding.encrypt(Self.walrus, ikm: Self.singleIKM, salt: Self.singleSalt, keyID: [],
                                                   recordSize: 4096) == Self.singleBody)
    }

    @Test func section32DecryptsItsTwoRecords() throws {
        let header = try EncryptedContentCoding.Header(parsing: Self.multipleBody)
        #expect(header.recordSize == 25)
        #expect(header.keyID == Array("a1".utf8))
        #expect(Self.multipleBody.count == header.count + 2 * 25)
        #expect(try EncryptedContentCoding.decrypt(Self.multipleBody, ikm: Self.multipleIKM) == Self.walrus)
    }

    @Test(arguments: [18, 19, 25, 33, 4096])
    func manyRecordsGoAndComeBack(recordSize: UInt32) throws {
        let salt = try SecureRandom.bytes(16)
        let ikm = try SecureRandom.bytes(16)
        for length in [0, 1, 16, 17, 32, 33, 100] {
            let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
            let body = try EncryptedContentCoding.encrypt(plaintext, ikm: ikm, salt: salt, keyID: [7], recordSize: recordSize)
            #expect(try EncryptedContentCoding.decrypt(body, ikm: ikm) == plaintext, "rs \(recordSize), \(length) bytes")
        }
    }

    @Test func aRecordSizeBelow18IsInvalid() throws {
        var body = Self.singleBody
        body[16...19] = [0, 0, 0, 17]
        #expect(Self.error { () throws(CryptoError) in try EncryptedContentCoding.decrypt(body, ikm: Self.singleIKM) }?.code == .invalid)
        #expect(Self.error { () throws(CryptoError) in
            try EncryptedContentCoding.encrypt([1], ikm: Self.singleIKM, salt: Self.singleSalt, keyID: [], recordSize: 17)
        }?.code == .invalid)
    }

    @Test func truncatedHeadersAreInvalid() {
        // Shorter than salt, rs and idlen; a key id longer than what follows; no record at all.
        for length in [0, 1, 16, 20] {
            let body = Array(Self.multipleBody.prefix(length))
            #expect(Self.error { () throws(CryptoError) in try EncryptedContentCoding.decrypt(body, ikm: Self.multipleIKM) }?.code == .invalid,
                    "\(length) bytes")
        }
        #expect(Self.error { () throws(CryptoError) in
            try EncryptedContentCoding.decrypt(Array(Self.multipleBody.prefix(22)), ikm: Self.multipleIKM)
        }?.code == .invalid)
        #expect(Self.error { () throws(CryptoError) in
            try EncryptedContentCoding.decrypt(Array(Self.multipleBody.prefix(23)), ikm: Self.multipleIKM)
        }?.code == .invalid)
    }

    @Test func aTruncatedRecordIsInvalidAndACutOneFails() {
        // Cut at the record boundary: the remaining last record ends in 0x01.
        let atBoundary = Array(Self.multipleBody.prefix(23 + 25))
        #expect(Self.error { () throws(CryptoError) in try EncryptedContentCoding.decrypt(atBoundary, ikm: Self.multipleIKM) }?.code == .invalid)
        // A last record too short for a tag and a delimiter.
        let tooShort = Array(Self.multipleBody.prefix(23 + 25 + 16))
        #expect(Self.error { () throws(CryptoError) in try EncryptedContentCoding.decrypt(tooShort, ikm: Self.multipleIKM) }?.code == .invalid)
        // Cut inside the last record, long enough to be one: its tag does not match.
        let inside = Array(Self.multipleBody.dropLast(1))
        #expect(Self.error { () throws(CryptoError) in try EncryptedContentCoding.decrypt(inside, ikm: Self.multipleIKM) }?.code == .failed)
    }

    @Test func anAlteredBitOrAnotherKeyFails() {
        for index in [0, 16, 23, 23 + 24, Self.multipleBody.count - 1] {
            var altered = Self.multipleBody
            altered[index] ^= 0x01
            #expect(Self.error { () throws(CryptoError) in try EncryptedContentCoding.decrypt(altered, ikm: Self.multipleIKM) } != nil,
                    "byte \(index)")
        }
        #expect(Self.error { () throws(CryptoError) in try EncryptedContentCoding.decrypt(Self.multipleBody, ikm: Self.singleIKM) }?.code == .failed)
    }

    /// A body of one record whose padded plaintext is `padded`, under section 3.1's key and nonce.
    static func body(padded: [UInt8]) throws -> [UInt8] {
        try EncryptedContentCoding.Header(salt: singleSalt, recordSize: 4096, keyID: []).bytes
            + AES128GCM.seal(padded, key: singleKey, nonce: singleNonce)
    }

    @Test func section31sIntermediateKeyAndNonceMakeItsBody() throws {
        #expect(try Self.body(padded: Self.walrus + [0x02]) == Self.singleBody)
    }

    @Test func badPaddingIsInvalid() throws {
        let paddings: [(String, [UInt8])] = [
            ("no delimiter", Self.walrus.map { _ in 0 }),
            ("nothing at all", []),
            ("delimiter 0x01 in the last record", Self.walrus + [0x01]),
            ("delimiter 0x03", Self.walrus + [0x03, 0, 0]),
            ("plaintext ending in zeros, no delimiter", [0x02, 0x41, 0, 0]),
        ]
        for (name, padded) in paddings {
            let body = try Self.body(padded: padded)
            #expect(Self.error { () throws(CryptoError) in try EncryptedContentCoding.decrypt(body, ikm: Self.singleIKM) }?.code == .invalid,
                    "\(name)")
        }
        // Zeros after the delimiter are padding.
        #expect(try EncryptedContentCoding.decrypt(try Self.body(padded: Self.walrus + [0x02, 0, 0, 0]), ikm: Self.singleIKM)
            == Self.walrus)
    }
}
