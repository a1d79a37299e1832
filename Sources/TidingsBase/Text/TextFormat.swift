/// Numbers and columns as text for people, without Foundation's formatters.
package enum NumberText {
    /// A number as people write it: 0.75, 270, 1.5 (no ".0" on whole numbers).
    package static func short(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// `value` with `digits` digits after the point and thousands grouped: fixed(1234.567, 1) is "1,234.6".
    package static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        // Past what an Int64 holds scaled, as the number writes itself.
        guard abs(value) * scale < 9e18 else { return String(value) }
        let scaled = Int64((abs(value) * scale).rounded())
        let whole = scaled / Int64(scale)
        let fraction = String(scaled % Int64(scale)).leftPadded(to: digits, with: "0")
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return sign + grouped(whole) + (digits > 0 ? "." + fraction : "")
    }

    /// A file size in decimal units, as file managers show it: "512 bytes",
    /// "12.3 KB", "10 MB", "10.5 MB".
    package static func bytes(_ count: UInt64) -> String {
        guard count >= 1000 else { return count == 1 ? "1 byte" : "\(count) bytes" }
        var value = Double(count) / 1000
        var unit = 0
        let units = ["KB", "MB", "GB", "TB"]
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        let rounded = (value * 10).rounded() / 10
        return (rounded == rounded.rounded() ? short(rounded) : fixed(rounded, 1)) + " " + units[unit]
    }

    /// A file size in decimal units with the exact count: "10.5 MB (10,485,760 bytes)".
    package static func bytesExactly(_ count: UInt64) -> String {
        count < 1000 ? bytes(count) : "\(bytes(count)) (\(grouped(Int64(clamping: count))) bytes)"
    }

    /// A whole number with thousands separated by commas: 1234567 is "1,234,567".
    package static func grouped(_ value: Int64) -> String {
        let digits = Array(String(value.magnitude))
        var text = ""
        for (position, digit) in digits.enumerated() {
            if position > 0 && (digits.count - position) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return (value < 0 ? "-" : "") + text
    }
}

extension String {
    /// The string with `pad` before it up to `width` characters (right-aligned).
    package func leftPadded(to width: Int, with pad: Character = " ") -> String {
        String(repeating: pad, count: max(0, width - count)) + self
    }

    /// The string with spaces after it up to `width` characters (left-aligned).
    package func rightPadded(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }

    /// The string without spaces at its end.
    package func trimmingTrailingSpaces() -> String {
        var copy = Substring(self)
        while copy.hasSuffix(" ") { copy = copy.dropLast() }
        return String(copy)
    }
}
