/// Text from a presentation made safe for a notification server: control
/// characters stripped (newlines kept where lines may break), lengths capped
/// with "…", and markup escaped for servers that read the body as markup.
enum DesktopText {
    /// The most characters a summary keeps.
    static let summaryLimit = 1_000
    /// The most characters a body keeps (its text, before any markup).
    static let bodyLimit = 10_000
    /// The most characters an action's label or a hint's text keeps.
    static let labelLimit = 200
    /// The most bytes of a name: an action key, an app or category
    /// identifier, an icon name or URI.
    static let nameLimit = 4_096

    /// `text` without control characters, on one line (a newline becomes a
    /// space), at most `limit` characters.
    static func line(_ text: String, limit: Int) -> String {
        capped(cleaned(text, keepingNewlines: false), limit: limit)
    }

    /// `text` without control characters other than newlines (a tab becomes
    /// a space), at most `limit` characters.
    static func lines(_ text: String, limit: Int) -> String {
        capped(cleaned(text, keepingNewlines: true), limit: limit)
    }

    /// `text` when it can name something (an action key, an app or category
    /// identifier, an icon): not empty, at most `nameLimit` bytes, no control
    /// character; nil otherwise (a name cut or cleaned would name something else).
    static func name(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text.utf8.count <= nameLimit,
              !text.unicodeScalars.contains(where: isStripped) else { return nil }
        return text
    }

    /// `text` cut to `limit` characters, its last one "…" when it was longer.
    static func capped(_ text: String, limit: Int) -> String {
        guard limit > 0 else { return "" }
        guard let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex),
              end != text.endIndex else { return text }
        return String(text[..<text.index(before: end)]) + "…"
    }

    /// `text` with `&`, `<` and `>` escaped, as body markup reads text.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` with its control characters (C0, DEL, C1) and bidirectional
    /// overrides left out (a carriage return too), tabs made spaces, and
    /// newlines kept or made spaces.
    private static func cleaned(_ text: String, keepingNewlines: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: result.unicodeScalars.append(keepingNewlines ? scalar : " ")
            case 0x09: result += " "
            default: if !isStripped(scalar) { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }

    /// Whether `scalar` is left out of text: a control character (C0, DEL,
    /// C1) or a bidirectional override or isolate.
    private static func isStripped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
