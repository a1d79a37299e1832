import Testing
@testable import TidingsBase

/// Bytes become a string only when they are valid UTF-8 as they are.
@Suite struct ValidUTF8Tests {
    private func string(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { ValidUTF8.string($0) }
    }

    @Test func validTextComesBackAsItIs() {
        #expect(string([]) == "")
        #expect(string(Array("plain".utf8)) == "plain")
        #expect(string(Array("Grüße, 東京 🎉".utf8)) == "Grüße, 東京 🎉")
        #expect(string([0xEF, 0xBF, 0xBE]) == "\u{FFFE}", "a noncharacter is valid UTF-8")
    }

    /// Each of these would be repaired by `String(decoding:as:)`; the first
    /// is repaired into as many bytes as it had, so a length check alone
    /// would take it.
    @Test func invalidBytesAreRefused() {
        #expect(string([0xF0, 0x90, 0x80]) == nil, "a truncated four-byte sequence")
        #expect(string([0x61, 0xFF]) == nil, "a byte UTF-8 never uses")
        #expect(string([0xC0, 0xAF]) == nil, "an overlong form")
        #expect(string([0xED, 0xA0, 0x80]) == nil, "a surrogate")
        #expect(string([0xEF, 0xBF, 0xBD]) == "\u{FFFD}", "the replacement character itself is valid")
    }
}
