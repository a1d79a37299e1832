import Testing
import TidingsCrypto

/// Random bytes from libcrypto's RAND_bytes.
@Suite struct SecureRandomTests {
    @Test func givesAsManyBytesAsAskedAndDifferentOnesEachTime() throws {
        #expect(try SecureRandom.bytes(0).isEmpty)
        #expect(try SecureRandom.bytes(1).count == 1)
        let first = try SecureRandom.bytes(32)
        let second = try SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(first != [UInt8](repeating: 0, count: 32))
    }

    @Test func aNegativeCountIsInvalid() {
        #expect(throws: CryptoError.self) { _ = try SecureRandom.bytes(-1) }
        do { _ = try SecureRandom.bytes(-1) } catch { #expect(error.code == .invalid) }
    }
}
