/// A colour as 8-bit red, green, blue and alpha, the ABI's `tidings_rgba`.
package struct Color: Sendable, Hashable, CustomStringConvertible {
    /// The packed value: 0xRRGGBBAA.
    package var rgba: UInt32

    package init(rgba: UInt32) { self.rgba = rgba }

    /// Parses `#RRGGBB` or `#RRGGBBAA` (case-insensitive); nil for anything else.
    package init?(hex text: String) {
        guard text.hasPrefix("#"), text.count == 7 || text.count == 9,
              let value = UInt32(text.dropFirst(), radix: 16)
        else { return nil }
        rgba = text.count == 7 ? value << 8 | 0xFF : value
    }

    /// `#RRGGBB` when opaque, `#RRGGBBAA` otherwise, in upper case.
    package var description: String {
        let opaque = rgba & 0xFF == 0xFF
        let value = opaque ? rgba >> 8 : rgba
        let digits = String(value, radix: 16, uppercase: true)
        return "#" + String(repeating: "0", count: (opaque ? 6 : 8) - digits.count) + digits
    }
}
