/// Base64 read back, and base64url (RFC 4648 §5, without padding), as Web
/// Push carries keys (`p256dh`, `auth`) and a push message's body travels in JSON.
extension Base64 {
    /// `bytes` in base64url, without padding.
    package static func encodeURL(_ bytes: [UInt8]) -> String {
        String(encode(bytes).compactMap { character -> Character? in
            switch character {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: character
            }
        })
    }

    /// The bytes of standard base64 `text` (padding optional); nil when it
    /// holds anything else (whitespace included) or is cut short.
    package static func decode(_ text: String) -> [UInt8]? {
        decode(text, urlSafe: false)
    }

    /// The bytes of base64url `text` (padding optional); nil when it holds anything else.
    package static func decodeURL(_ text: String) -> [UInt8]? {
        decode(text, urlSafe: true)
    }

    /// The bytes of `text` in the standard alphabet or, with `urlSafe`, the URL one.
    private static func decode(_ text: String, urlSafe: Bool) -> [UInt8]? {
        var digits = Array(text.utf8)
        while digits.last == UInt8(ascii: "=") { digits.removeLast() }
        guard digits.count % 4 != 1, Array(text.utf8).count - digits.count <= 2 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for digit in digits {
            guard let value = Self.value(of: digit, urlSafe: urlSafe) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return bytes
    }

    /// The value of one digit, nil for a character outside the alphabet.
    private static func value(of digit: UInt8, urlSafe: Bool) -> UInt8? {
        switch digit {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): digit - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): digit - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+") where !urlSafe, UInt8(ascii: "-") where urlSafe: 62
        case UInt8(ascii: "/") where !urlSafe, UInt8(ascii: "_") where urlSafe: 63
        default: nil
        }
    }
}
