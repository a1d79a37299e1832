/// Numbers as the table prints them, without Foundation's formatters.
enum NumberText {
    /// `value` with `digits` digits after the point: fixed(3.14159, 2) is "3.14".
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((abs(value) * scale).rounded())
        let whole = scaled / Int64(scale)
        let fraction = String(scaled % Int64(scale)).leftPadded(to: digits)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return sign + grouped(whole) + (digits > 0 ? "." + fraction : "")
    }

    /// A whole number with thousands separated by commas: 1234567 is "1,234,567".
    static func grouped(_ value: Int64) -> String {
        let digits = Array(String(value.magnitude))
        var text = ""
        for (position, digit) in digits.enumerated() {
            if position > 0 && (digits.count - position) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return (value < 0 ? "-" : "") + text
    }

    /// `text` padded with spaces on the left to `width` (right-aligned).
    static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// `text` padded with spaces on the right to `width` (left-aligned).
    static func left(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
