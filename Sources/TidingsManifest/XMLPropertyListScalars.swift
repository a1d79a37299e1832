import TidingsBase

/// The text of `<key>`, `<string>`, `<integer>`, `<real>`, `<date>` and
/// `<data>` turned into values, accepting what CoreFoundation accepts.
extension XMLPropertyListReader {
    func string(_ text: ArraySlice<UInt8>, at tag: Tag) throws(Diagnostic) -> String {
        // ASCII, the common case, needs no validation, and decoding it is faster.
        if text.allSatisfy({ $0 < 0x80 }) { return String(decoding: text, as: UTF8.self) }
        guard let string = String(validating: text, as: UTF8.self) else {
            throw syntaxError("Expected UTF-8 text in \(describe(tag)) but found bytes that are not UTF-8.",
                              at: tag.start)
        }
        return string
    }

    /// A decimal or `0x` hexadecimal integer with an optional sign.
    func integer(_ text: ArraySlice<UInt8>, at tag: Tag) throws(Diagnostic) -> Int64 {
        let digits = Self.trimmed(text)
        let negative = digits.first == UInt8(ascii: "-")
        var start = digits.startIndex + (negative || digits.first == UInt8(ascii: "+") ? 1 : 0)
        var radix: UInt64 = 10
        if digits[start...].starts(with: "0x".utf8) || digits[start...].starts(with: "0X".utf8) {
            radix = 16
            start += 2
        }
        guard start < digits.endIndex else {
            throw invalidValue("Expected an integer in <integer> but found \(Self.shown(digits)).", at: tag)
        }
        var magnitude: UInt64 = 0
        var overflow = false
        for byte in digits[start...] {
            guard let digit = Self.hexadecimalDigit(byte), UInt64(digit) < radix else {
                throw invalidValue("Expected an integer in <integer> but found \(Self.shown(digits)).", at: tag)
            }
            let (product, productOverflow) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, sumOverflow) = product.addingReportingOverflow(UInt64(digit))
            overflow = overflow || productOverflow || sumOverflow
            magnitude = sum
        }
        guard !overflow, magnitude <= UInt64(Int64.max) + (negative ? 1 : 0) else {
            throw invalidValue(
                "Expected an integer from \(Int64.min) to \(Int64.max) in <integer> but found \(Self.shown(digits)).",
                at: tag)
        }
        return negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
    }

    /// A decimal number with an optional exponent, or `nan`, `inf`, `infinity` with an optional sign.
    func real(_ text: ArraySlice<UInt8>, at tag: Tag) throws(Diagnostic) -> Double {
        let digits = Self.trimmed(text)
        guard !digits.isEmpty, let value = Double(String(decoding: digits, as: UTF8.self)) else {
            throw invalidValue("Expected a number in <real> but found \(Self.shown(digits)).", at: tag)
        }
        return value
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, in seconds since 2001-01-01 00:00:00 UTC.
    func date(_ text: ArraySlice<UInt8>, at tag: Tag) throws(Diagnostic) -> Double {
        let digits = Self.trimmed(text)
        guard let seconds = ISO8601.parse(String(decoding: digits, as: UTF8.self)) else {
            throw invalidValue(
                "Expected a date such as 2001-01-01T00:00:00Z in <date> but found \(Self.shown(digits)).", at: tag)
        }
        return seconds - ISO8601.referenceDateOffset
    }

    /// Base64, with white space anywhere and the final `=` padding optional.
    func data(_ text: ArraySlice<UInt8>, at tag: Tag) throws(Diagnostic) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(text.count / 4 * 3)
        var group: UInt32 = 0
        var sextets = 0
        var padding = 0
        for byte in text {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            case _ where Self.isWhitespace(byte): continue
            default: throw invalidBase64(text, at: tag)
            }
            guard padding == 0 else { throw invalidBase64(text, at: tag) }
            group = group << 6 | UInt32(value)
            sextets += 1
            if sextets == 4 {
                result += [UInt8(truncatingIfNeeded: group >> 16), UInt8(truncatingIfNeeded: group >> 8),
                           UInt8(truncatingIfNeeded: group)]
                group = 0
                sextets = 0
            }
        }
        switch (sextets, padding) {
        case (0, 0): break
        case (2, 0), (2, 2): result.append(UInt8(truncatingIfNeeded: group >> 4))
        case (3, 0), (3, 1): result += [UInt8(truncatingIfNeeded: group >> 10), UInt8(truncatingIfNeeded: group >> 2)]
        default: throw invalidBase64(text, at: tag)
        }
        return result
    }

    private func invalidBase64(_ text: ArraySlice<UInt8>, at tag: Tag) -> Diagnostic {
        invalidValue("Expected base64 in <data> but found \(Self.shown(Self.trimmed(text))).", at: tag)
    }

    private static func trimmed(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var text = text
        while let first = text.first, isWhitespace(first) { text.removeFirst() }
        while let last = text.last, isWhitespace(last) { text.removeLast() }
        return text
    }

    /// The text in quotes for a message, shortened when long; "nothing" when empty.
    private static func shown(_ text: ArraySlice<UInt8>) -> String {
        if text.isEmpty { return "nothing" }
        var end = min(text.endIndex, text.startIndex + 40)
        while end < text.endIndex && text[end] & 0xC0 == 0x80 { end += 1 }
        return "\"\(String(decoding: text[..<end], as: UTF8.self))\(end < text.endIndex ? "…" : "")\""
    }
}
