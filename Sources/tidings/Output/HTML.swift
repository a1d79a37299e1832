/// Text made safe to put in an HTML page.
enum HTML {
    /// `text` as HTML character data or as a quoted attribute's value: `&`,
    /// `<`, `>`, `"` and `'` as character references, and every control
    /// character other than tab and line feed left out, so that nothing in
    /// it can end an element, an attribute or a comment.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        escaped.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t", "\n": escaped.unicodeScalars.append(scalar)
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}": continue
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
