import Testing
import TidingsCrypto

/// AES-128-GCM from libcrypto, against the GCM specification's test cases
/// (McGrew and Viega, "The Galois/Counter Mode of Operation", cases 2 and 3;
/// no associated data).
@Suite struct AES128GCMTests {
    /// Test case 3's key.
    private static let key = TestBytes.hex("feffe9928665731c6d6a8f9467308308")
    /// Test case 3's nonce.
    private static let nonce = TestBytes.hex("cafebabefacedbaddecaf888")
    /// Test case 3's plaintext.
    private static let plaintext = TestBytes.hex("""
        d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72
        1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255
        """)
    /// Test case 3's ciphertext, then its tag.
    private static let sealed = TestBytes.hex("""
        42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e
        21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985
        4d5c2af327cd64a62cf35abd2ba6fab4
        """)

    @Test func testCase2SealsAndOpens() throws {
        let zeros = [UInt8](repeating: 0, count: 16)
        let sealed = try AES128GCM.seal(zeros, key: zeros, nonce: [UInt8](repeating: 0, count: 12))
        #expect(TestBytes.hex(sealed) == "0388dace60b6a392f328c2b971b2fe78" + "ab6e47d42cec13bdf53a67b21257bddf")
        #expect(try AES128GCM.open(sealed, key: zeros, nonce: [UInt8](repeating: 0, count: 12)) == zeros)
    }

    @Test func testCase3SealsAndOpens() throws {
        #expect(try AES128GCM.seal(Self.plaintext, key: Self.key, nonce: Self.nonce) == Self.sealed)
        #expect(try AES128GCM.open(Self.sealed, key: Self.key, nonce: Self.nonce) == Self.plaintext)
    }

    @Test func anEmptyPlaintextIsJustATag() throws {
        let sealed = try AES128GCM.seal([], key: Self.key, nonce: Self.nonce)
        #expect(sealed.count == 16)
        #expect(try AES128GCM.open(sealed, key: Self.key, nonce: Self.nonce).isEmpty)
    }

    @Test(arguments: [0, 17, 63, 64, 70, 79])
    func oneFlippedBitInTheCiphertextOrTagIsRefused(byte: Int) {
        var altered = Self.sealed
        altered[byte] ^= 0x01
        do {
            let opened = try AES128GCM.open(altered, key: Self.key, nonce: Self.nonce)
            Issue.record("an altered byte \(byte) opened to \(opened.count) bytes")
        } catch {
            #expect(error.code == .failed)
        }
    }

    @Test func anotherKeyOrNonceIsRefused() {
        var key = Self.key
        key[0] ^= 0x80
        var nonce = Self.nonce
        nonce[11] ^= 0x01
        #expect(throws: CryptoError.self) { _ = try AES128GCM.open(Self.sealed, key: key, nonce: Self.nonce) }
        #expect(throws: CryptoError.self) { _ = try AES128GCM.open(Self.sealed, key: Self.key, nonce: nonce) }
    }

    @Test func wrongLengthsAreInvalid() {
        let cases: [(String, () throws(CryptoError) -> [UInt8])] = [
            ("short key", { () throws(CryptoError) in try AES128GCM.seal([1], key: [UInt8](repeating: 0, count: 15), nonce: Self.nonce) }),
            ("long nonce", { () throws(CryptoError) in try AES128GCM.seal([1], key: Self.key, nonce: [UInt8](repeating: 0, count: 13)) }),
            ("shorter than a tag", { () throws(CryptoError) in try AES128GCM.open([UInt8](repeating: 0, count: 15), key: Self.key, nonce: Self.nonce) }),
        ]
        for (name, operation) in cases {
            do {
                _ = try operation()
                Issue.record("\(name) was accepted")
            } catch {
                #expect(error.code == .invalid, "\(name)")
            }
        }
    }
}
