import Foundation

/// The bytes of test vectors, as the documents that publish them write them.
enum TestBytes {
    /// The bytes of hexadecimal digits (whitespace ignored).
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace }.utf8)
        precondition(digits.count % 2 == 0, "an odd number of hexadecimal digits")
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    /// Lowercase hexadecimal digits of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The bytes of base64url text without padding (RFC 4648 section 5; whitespace ignored).
    static func base64url(_ text: String) -> [UInt8] {
        var standard = text.filter { !$0.isWhitespace }.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return [UInt8](Data(base64Encoded: standard)!)
    }

    /// `bytes` in base64url without padding.
    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
