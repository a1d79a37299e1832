/// Text from someone else (an extension's output, what its worker reports)
/// made fit for one line of the host's log: in double quotes, every
/// character that could end the line, move the cursor, colour the terminal
/// or hide what follows (control and format characters, line and paragraph
/// separators) escaped visibly as Swift writes it (`\n`, `\u{1B}`), and cut
/// to a length. Nothing of it can pass for a line of the host's own.
package enum QuotedText {
    /// `text` quoted and escaped, cut after `limit` characters with "…".
    package static func quoted(_ text: String, limit: Int) -> String {
        var line = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                line += "…"
                break
            }
            count += 1
            line += escaped(scalar)
        }
        return line + "\""
    }

    /// `bytes` (UTF-8 or not: what is not shows as U+FFFD) quoted as `quoted(_:limit:)` does.
    package static func quoted(bytes: some Collection<UInt8>, limit: Int) -> String {
        quoted(String(decoding: bytes, as: UTF8.self), limit: limit)
    }

    /// One scalar as it shows in the quotes.
    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\\": return "\\\\"
        case "\"": return "\\\""
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default:
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                return "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default:
                return String(scalar)
            }
        }
    }
}
