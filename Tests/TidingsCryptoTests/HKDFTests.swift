import Testing
import TidingsCrypto

/// HKDF-SHA-256 from libcrypto's EVP_KDF, against RFC 5869's test vectors.
@Suite struct HKDFTests {
    @Test func rfc5869TestCase1() throws {
        let okm = try HKDF.sha256(salt: TestBytes.hex("000102030405060708090a0b0c"),
                                  key: [UInt8](repeating: 0x0b, count: 22),
                                  info: TestBytes.hex("f0f1f2f3f4f5f6f7f8f9"), count: 42)
        #expect(TestBytes.hex(okm) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test func rfc5869TestCase3WithNoSaltAndNoInfo() throws {
        let okm = try HKDF.sha256(salt: [], key: [UInt8](repeating: 0x0b, count: 22), info: [], count: 42)
        #expect(TestBytes.hex(okm) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test func countsOutsideWhatHKDFCanMakeAreInvalid() {
        for count in [0, -1, 255 * 32 + 1] {
            do {
                _ = try HKDF.sha256(salt: [], key: [1], info: [], count: count)
                Issue.record("count \(count) was accepted")
            } catch {
                #expect(error.code == .invalid)
            }
        }
    }
}
