/// A colour as 8-bit red, green, blue and alpha, the ABI's `tidings_rgba`.
package struct Color: Sendable, Hashable, CustomStringConvertible {
    /// The packed value: 0xRRGGBBAA.
    package var rgba: UInt32

    package init(rgba: UInt32) { self.rgba = rgba }

    /// Parses `#RRGGBB` or `#RRGGBBAA` (case-insensitive); nil for anything else.
    package init?(hex text: String) {
        // Every digit is checked: UInt32(_:radix:) alone would also take a sign ("#+12345").
        let digits = text.utf8.dropFirst()
        guard text.hasPrefix("#"), digits.count == 6 || digits.count == 8, digits.allSatisfy(Color.isHexDigit),
              let value = UInt32(String(decoding: digits, as: UTF8.self), radix: 16)
        else { return nil }
        rgba = digits.count == 6 ? value << 8 | 0xFF : value
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
             UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }

    /// `#RRGGBB` when opaque, `#RRGGBBAA` otherwise, in upper case.
    package var description: String {
        let opaque = rgba & 0xFF == 0xFF
        let value = opaque ? rgba >> 8 : rgba
        let digits = String(value, radix: 16, uppercase: true)
        return "#" + String(repeating: "0", count: (opaque ? 6 : 8) - digits.count) + digits
    }
}
