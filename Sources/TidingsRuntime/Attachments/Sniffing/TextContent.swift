/// Text mistaken for media: the head of a file that decodes as UTF-8 (or
/// UTF-16 after a byte order mark) with no control characters but white
/// space, named by what the text is.
enum TextContent {
    /// What the text at the start of `file` is — "plain text", "JSON text",
    /// "an XML document", "an HTML document", "an SVG image", "an XML
    /// property list" — or nil when the file does not start with text.
    static func kind(of file: SniffedFile) -> String? {
        guard let text = decode(file), text.unicodeScalars.allSatisfy(isTextual) else { return nil }
        let trimmed = text.drop(while: { $0.isWhitespace || $0 == "\u{FEFF}" })
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") { return isJSON(trimmed) ? "JSON text" : "plain text" }
        guard trimmed.hasPrefix("<") else { return "plain text" }
        let markup = trimmed.lowercased()
        if markup.hasPrefix("<?xml") || markup.hasPrefix("<svg") || markup.hasPrefix("<!doctype svg") {
            if markup.contains("<svg") { return "an SVG image" }
            if markup.contains("<plist") { return "an XML property list" }
            if !markup.contains("<html") { return "an XML document" }
        }
        if markup.hasPrefix("<!doctype html") || markup.contains("<html") { return "an HTML document" }
        return "plain text"
    }

    /// The head of `file` as text, if it decodes: UTF-16 after its byte
    /// order mark, otherwise UTF-8 (a character the head cuts in two is left out).
    private static func decode(_ file: SniffedFile) -> String? {
        let head = file.head
        guard !head.isEmpty else { return nil }
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) {
            let isLittleEndian = head[0] == 0xFF
            let units = stride(from: 2, to: head.count - 1, by: 2).map { index -> UInt16 in
                let (high, low) = isLittleEndian ? (head[index + 1], head[index]) : (head[index], head[index + 1])
                return UInt16(high) << 8 | UInt16(low)
            }
            return String(validating: units, as: UTF16.self) ?? String(validating: units.dropLast(), as: UTF16.self)
        }
        let isCut = UInt64(head.count) < file.size
        let cuts = isCut ? 0...3 : 0...0
        return cuts.lazy.compactMap { String(validating: head.dropLast($0), as: UTF8.self) }.first
    }

    /// True for a scalar text may hold: anything but control characters,
    /// except tab, line feed, form feed and carriage return.
    private static func isTextual(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory != .control || ["\t", "\n", "\u{0C}", "\r"].contains(scalar)
    }

    /// True when `text`, which opens with a brace or bracket, goes on as
    /// JSON does: an object with a key or nothing, an array with a value or nothing.
    private static func isJSON(_ text: Substring) -> Bool {
        let opening = text.first
        guard let next = text.dropFirst().first(where: { !$0.isWhitespace }) else { return true }
        return opening == "{" ? next == "\"" || next == "}" : "{[\"-0123456789tfn]".contains(next)
    }
}
