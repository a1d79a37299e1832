import Testing
@testable import TidingsBase

@Suite("CRC-32")
struct CRC32Tests {
    /// The check values of the IEEE CRC-32, as zlib's `crc32` gives them.
    @Test(arguments: [
        ("123456789", 0xCBF4_3926 as UInt32),
        ("", 0),
        ("a", 0xE8B7_BE43),
        ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func matchesTheCheckValues(text: String, expected: UInt32) {
        #expect(CRC32.checksum(Array(text.utf8)) == expected)
    }

    /// Every table entry counts, and zero bytes do not sum to zero.
    @Test func coversEveryByteValue() {
        #expect(CRC32.checksum((0...255).map { UInt8($0) }) == 0x2905_8C73)
        // Why a record's checksum covers its length: zero bytes do not sum to zero.
        #expect(CRC32.checksum([0, 0, 0, 0]) == 0x2144_DF1C)
    }

    /// A checksum built in pieces equals the checksum of the whole.
    @Test func updatingInPiecesEqualsOneChecksum() {
        let bytes = Array("123456789".utf8)
        for split in 0...bytes.count {
            var crc = CRC32()
            crc.update(bytes[..<split])
            crc.update(bytes[split...])
            #expect(crc.value == 0xCBF4_3926)
        }
        // A checksum continues from a value as zlib's crc32(crc, ...) does.
        var continued = CRC32(CRC32.checksum(Array("12345".utf8)))
        continued.update(Array("6789".utf8))
        #expect(continued.value == 0xCBF4_3926)
        // A collection without contiguous storage gives the same value.
        #expect(CRC32.checksum(Array("123456789".utf8).lazy.map { $0 }) == 0xCBF4_3926)
    }
}
