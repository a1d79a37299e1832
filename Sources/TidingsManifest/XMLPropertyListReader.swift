import TidingsBase

/// Reads Apple's XML property lists, as Xcode and built bundles write them.
///
/// The reader walks UTF-8 bytes by index and copies text only when an
/// entity, a CDATA section, a comment or a carriage return makes it differ
/// from the file. Errors carry the 1-based line and column they were found
/// at; a repeated key keeps its last value and adds a warning.
struct XMLPropertyListReader {
    /// The elements a property list is made of.
    enum Element {
        case plist, dict, array, key, string, integer, real, `true`, `false`, date, data
    }

    /// An opening tag: `<name …>`, or `<name …/>` when `isEmpty`.
    struct Tag {
        var element: Element?
        /// Where the name's bytes are.
        var name: Range<Int>
        /// Where the `<` is.
        var start: Int
        var isEmpty: Bool
    }

    private let bytes: [UInt8]
    private let file: String?
    private var index = 0
    private var depth = 0
    private var path = PropertyListPath()
    /// Warnings, and where they were found: their lines and columns are counted once reading is done.
    private var warnings: [(warning: Diagnostic, offset: Int)] = []

    /// Reads the property list in `bytes`, UTF-8 text with or without a byte order mark.
    static func read(_ bytes: [UInt8], file: String?) throws(Diagnostic) -> PropertyListDocument {
        var reader = XMLPropertyListReader(bytes: bytes, file: file)
        let value = try reader.readDocument()
        let places = reader.linesAndColumns(at: reader.warnings.map(\.offset))
        let warnings = zip(reader.warnings, places).map { entry, place in
            var warning = entry.warning
            (warning.location.line, warning.location.column) = place
            return warning
        }
        return PropertyListDocument(value: value, format: .xml, warnings: warnings)
    }

    private init(bytes: [UInt8], file: String?) {
        self.bytes = bytes
        self.file = file
    }

    // MARK: Structure

    private mutating func readDocument() throws(Diagnostic) -> PropertyList {
        if hasPrefix("\u{FEFF}", at: 0) { index = 3 }
        try skipMisc()
        if hasPrefix("<!DOCTYPE", at: index) {
            try skipDocumentType()
            try skipMisc()
        }
        let root = try readOpeningTag(expecting: "<plist>")
        let value: PropertyList
        if root.element == .plist {
            guard !root.isEmpty else {
                throw syntaxError("Expected a value inside <plist> but found <plist/>.", at: root.start)
            }
            try skipMisc()
            value = try readValue(expecting: "a value inside <plist>")
            try skipMisc()
            try readClosingTag(of: root)
        } else {
            value = try readValue(root, expecting: "<plist>")
        }
        try skipMisc()
        guard index == bytes.count else {
            throw syntaxError("Expected the end of the file after the property list but found \(found(at: index)).",
                              at: index)
        }
        return value
    }

    private mutating func readValue(expecting expected: @autoclosure () -> String) throws(Diagnostic) -> PropertyList {
        try readValue(readOpeningTag(expecting: expected()), expecting: expected())
    }

    private mutating func readValue(_ tag: Tag, expecting expected: @autoclosure () -> String)
        throws(Diagnostic) -> PropertyList
    {
        switch tag.element {
        case .dict: return try readDictionary(tag)
        case .array: return try readArray(tag)
        // Each text is read before its parser is called: in one expression, the call would copy the reader.
        case .string:
            let text = try readText(of: tag)
            return .string(try string(text, at: tag))
        case .integer:
            let text = try readText(of: tag)
            return .integer(try integer(text, at: tag))
        case .real:
            let text = try readText(of: tag)
            return .real(try real(text, at: tag))
        case .date:
            let text = try readText(of: tag)
            return .date(try date(text, at: tag))
        case .data:
            let text = try readText(of: tag)
            return .data(try data(text, at: tag))
        case .true, .false:
            if !tag.isEmpty {
                try skipMisc()
                try readClosingTag(of: tag)
            }
            return .bool(tag.element == .true)
        case .plist, .key, nil:
            throw syntaxError("Expected \(expected()) but found \(describe(tag)).", at: tag.start)
        }
    }

    private mutating func readDictionary(_ tag: Tag) throws(Diagnostic) -> PropertyList {
        if tag.isEmpty { return .dictionary([]) }
        try enterContainer(tag)
        var entries = PropertyListEntries()
        while true {
            try skipMisc()
            if hasPrefix("</", at: index) { break }
            let keyTag = try readOpeningTag(expecting: "<key> or </dict>")
            guard keyTag.element == .key else {
                throw syntaxError("Expected <key> or </dict> but found \(describe(keyTag)).", at: keyTag.start)
            }
            let keyText = try readText(of: keyTag)
            let key = try string(keyText, at: keyTag)
            try skipMisc()
            path.push(.key(key))
            let value = try readValue(expecting: "a value after the key \"\(key)\"")
            if !entries.insert(key, value) {
                let location = Diagnostic.Location(file: file, path: path.dotted)
                warnings.append((PropertyListReading.duplicateKey(key, at: location), keyTag.start))
            }
            path.pop()
        }
        try readClosingTag(of: tag)
        depth -= 1
        return .dictionary(entries.entries)
    }

    private mutating func readArray(_ tag: Tag) throws(Diagnostic) -> PropertyList {
        if tag.isEmpty { return .array([]) }
        try enterContainer(tag)
        var values: [PropertyList] = []
        while true {
            try skipMisc()
            if hasPrefix("</", at: index) { break }
            path.push(.index(values.count))
            values.append(try readValue(expecting: "a value or </array>"))
            path.pop()
        }
        try readClosingTag(of: tag)
        depth -= 1
        return .array(values)
    }

    private mutating func enterContainer(_ tag: Tag) throws(Diagnostic) {
        guard depth < PropertyListReading.maximumDepth else {
            throw PropertyListReading.tooDeep(at: location(at: tag.start))
        }
        depth += 1
    }

    // MARK: Tags

    /// Reads `<name attributes…>` or `<name attributes…/>`; attributes are skipped.
    private mutating func readOpeningTag(expecting expected: @autoclosure () -> String) throws(Diagnostic) -> Tag {
        let start = index
        guard byte(at: index) == UInt8(ascii: "<"), let first = byte(at: index + 1), Self.isNameStart(first) else {
            throw syntaxError("Expected \(expected()) but found \(found(at: index)).", at: index)
        }
        index += 1
        let name = readName()
        guard let next = byte(at: index), Self.isWhitespace(next) || next == UInt8(ascii: ">")
            || next == UInt8(ascii: "/")
        else {
            throw syntaxError("Expected > to end the tag <\(text(name))> but found \(found(at: index)).", at: index)
        }
        var quote: UInt8?
        while let byte = byte(at: index) {
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                let isEmpty = bytes[index - 2] == UInt8(ascii: "/")
                return Tag(element: element(named: name), name: name, start: start, isEmpty: isEmpty)
            } else if byte == UInt8(ascii: "<") {
                throw syntaxError("Expected > to end the tag <\(text(name))> but found <.", at: index - 1)
            }
        }
        throw syntaxError("Expected > to end the tag <\(text(name))> but found the end of the file.", at: index)
    }

    /// Reads `</name>` for `tag`.
    private mutating func readClosingTag(of tag: Tag) throws(Diagnostic) {
        let start = index
        guard hasPrefix("</", at: index) else {
            throw syntaxError("Expected </\(text(tag.name))> but found \(found(at: index)).", at: index)
        }
        index += 2
        guard readName().elementsEqual(tag.name, by: { bytes[$0] == bytes[$1] }) else {
            throw syntaxError("Expected </\(text(tag.name))> but found \(found(at: start)).", at: start)
        }
        skipWhitespace()
        guard byte(at: index) == UInt8(ascii: ">") else {
            throw syntaxError("Expected > to end </\(text(tag.name))> but found \(found(at: index)).", at: index)
        }
        index += 1
    }

    /// The element named by the bytes at `name`; nil for any other name.
    private func element(named name: Range<Int>) -> Element? {
        guard !name.isEmpty else { return nil }
        // The first and last letters tell the elements apart; a comparison confirms.
        let (element, spelling): (Element, StaticString)
        switch (bytes[name.lowerBound], bytes[name.upperBound - 1]) {
        case (UInt8(ascii: "p"), _): (element, spelling) = (.plist, "plist")
        case (UInt8(ascii: "d"), UInt8(ascii: "t")): (element, spelling) = (.dict, "dict")
        case (UInt8(ascii: "d"), UInt8(ascii: "e")): (element, spelling) = (.date, "date")
        case (UInt8(ascii: "d"), UInt8(ascii: "a")): (element, spelling) = (.data, "data")
        case (UInt8(ascii: "a"), _): (element, spelling) = (.array, "array")
        case (UInt8(ascii: "k"), _): (element, spelling) = (.key, "key")
        case (UInt8(ascii: "s"), _): (element, spelling) = (.string, "string")
        case (UInt8(ascii: "i"), _): (element, spelling) = (.integer, "integer")
        case (UInt8(ascii: "r"), _): (element, spelling) = (.real, "real")
        case (UInt8(ascii: "t"), _): (element, spelling) = (.true, "true")
        case (UInt8(ascii: "f"), _): (element, spelling) = (.false, "false")
        default: return nil
        }
        return name.count == spelling.utf8CodeUnitCount && hasPrefix(spelling, at: name.lowerBound) ? element : nil
    }

    private mutating func readName() -> Range<Int> {
        let start = index
        while let byte = byte(at: index), Self.isNameByte(byte) { index += 1 }
        return start..<index
    }

    // MARK: Text

    /// The text inside `tag` up to its closing tag, with entities and CDATA
    /// sections decoded, comments removed and line ends normalised to LF.
    /// A slice of the file itself when nothing needed changing.
    private mutating func readText(of tag: Tag) throws(Diagnostic) -> ArraySlice<UInt8> {
        if tag.isEmpty { return [] }
        var copy: [UInt8] = []
        var copied = false
        var runStart = index
        while let current = byte(at: index) {
            switch current {
            case UInt8(ascii: "<"):
                if hasPrefix("</", at: index) {
                    let text = copied ? copy + bytes[runStart..<index] : bytes[runStart..<index]
                    try readClosingTag(of: tag)
                    return text
                }
                copy.append(contentsOf: bytes[runStart..<index])
                copied = true
                if hasPrefix("<![CDATA[", at: index) {
                    let contents = index + 9
                    try skipPast("]]>", what: "the end of the CDATA section (]]>)")
                    appendNormalizingLineEnds(bytes[contents..<(index - 3)], to: &copy)
                } else if try !skipCommentOrInstruction() {
                    throw syntaxError("Expected </\(text(tag.name))> but found \(found(at: index)).", at: index)
                }
            case UInt8(ascii: "&"):
                copy.append(contentsOf: bytes[runStart..<index])
                copied = true
                try appendEntity(to: &copy)
            case UInt8(ascii: "\r"):
                copy.append(contentsOf: bytes[runStart..<index])
                copied = true
                copy.append(UInt8(ascii: "\n"))
                index += byte(at: index + 1) == UInt8(ascii: "\n") ? 2 : 1
            default:
                index += 1
                continue
            }
            runStart = index
        }
        throw syntaxError("Expected </\(text(tag.name))> but found the end of the file.", at: index)
    }

    /// Decodes the entity at the current `&` into UTF-8.
    private mutating func appendEntity(to copy: inout [UInt8]) throws(Diagnostic) {
        let start = index
        var end = index + 1
        while let byte = byte(at: end), Self.isNameByte(byte) || byte == UInt8(ascii: "#") { end += 1 }
        let terminated = byte(at: end) == UInt8(ascii: ";")
        let name = terminated ? bytes[(start + 1)..<end] : []
        let scalar: Unicode.Scalar? =
            switch text(name.indices) {
            case "lt": "<"
            case "gt": ">"
            case "amp": "&"
            case "quot": "\""
            case "apos": "'"
            default: Self.characterReference(name)
            }
        guard let scalar else {
            let shown = text(start..<(terminated ? end + 1 : end))
            throw syntaxError("Expected an entity such as &amp; or &#60; but found \"\(shown)\".", at: start)
        }
        UTF8.encode(scalar) { copy.append($0) }
        index = end + 1
    }

    /// The scalar of `#NN` or `#xHH`; nil when it is neither, or names no character XML allows.
    private static func characterReference(_ name: ArraySlice<UInt8>) -> Unicode.Scalar? {
        guard name.first == UInt8(ascii: "#") else { return nil }
        var digits = name.dropFirst()
        let radix: UInt32 = digits.first == UInt8(ascii: "x") ? 16 : 10
        if radix == 16 { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 8 else { return nil }
        var value: UInt32 = 0
        for byte in digits {
            guard let digit = hexadecimalDigit(byte), digit < radix else { return nil }
            value = value * radix + digit
        }
        guard value != 0 else { return nil }
        return Unicode.Scalar(value)
    }

    /// Appends `text`, with CR LF and lone CR turned into LF as XML requires.
    private func appendNormalizingLineEnds(_ text: ArraySlice<UInt8>, to copy: inout [UInt8]) {
        var previous: UInt8 = 0
        for byte in text {
            if byte == UInt8(ascii: "\r") {
                copy.append(UInt8(ascii: "\n"))
            } else if byte != UInt8(ascii: "\n") || previous != UInt8(ascii: "\r") {
                copy.append(byte)
            }
            previous = byte
        }
    }

    // MARK: Skipping

    /// Skips white space, comments and processing instructions (the XML declaration among them).
    private mutating func skipMisc() throws(Diagnostic) {
        repeat {
            skipWhitespace()
        } while try skipCommentOrInstruction()
    }

    /// Skips the comment or processing instruction at the current index; false when there is none.
    private mutating func skipCommentOrInstruction() throws(Diagnostic) -> Bool {
        if hasPrefix("<!--", at: index) {
            try skipPast("-->", what: "the end of the comment (-->)")
        } else if hasPrefix("<?", at: index) {
            try skipPast("?>", what: "the end of the processing instruction (?>)")
        } else {
            return false
        }
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = byte(at: index), Self.isWhitespace(byte) { index += 1 }
    }

    /// Moves past the next `terminator`, which must be there.
    private mutating func skipPast(_ terminator: StaticString, what: String) throws(Diagnostic) {
        let start = index
        let first = terminator.utf8Start.pointee
        while let byte = byte(at: index) {
            if byte == first && hasPrefix(terminator, at: index) {
                index += terminator.utf8CodeUnitCount
                return
            }
            index += 1
        }
        throw syntaxError("Expected \(what) but found the end of the file.", at: start)
    }

    /// Skips `<!DOCTYPE …>`, internal subset included.
    private mutating func skipDocumentType() throws(Diagnostic) {
        let start = index
        var quote: UInt8?
        var inSubset = false
        while let byte = byte(at: index) {
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") {
                inSubset = byte == UInt8(ascii: "[")
            } else if byte == UInt8(ascii: ">") && !inSubset {
                return
            }
        }
        throw syntaxError("Expected > to end <!DOCTYPE but found the end of the file.", at: start)
    }

    // MARK: Bytes

    private func byte(at offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private func hasPrefix(_ literal: StaticString, at offset: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        let start = literal.utf8Start
        for position in 0..<count where bytes[offset + position] != start[position] { return false }
        return true
    }

    /// The bytes at `range` as text, for messages.
    private func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: ":") || byte >= 0x80
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    static func hexadecimalDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: Diagnostics

    /// The tag as written: `<string>` or `<string/>`.
    func describe(_ tag: Tag) -> String {
        "<\(text(tag.name))\(tag.isEmpty ? "/" : "")>"
    }

    /// What is at `offset`, for messages: `</dict>`, `text "abc"`, `the end of the file`.
    private func found(at offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the file" }
        if bytes[offset] == UInt8(ascii: "<") {
            let nameStart = offset + (byte(at: offset + 1) == UInt8(ascii: "/") ? 2 : 1)
            var end = nameStart
            while let byte = byte(at: end), Self.isNameByte(byte) { end += 1 }
            if end > nameStart { return "<\(text(offset + 1..<end))>" }
        }
        var end = offset + 1
        while end < bytes.count && end - offset < 24 && bytes[end] != UInt8(ascii: "<") { end += 1 }
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
        let truncated = end < bytes.count && bytes[end] != UInt8(ascii: "<")
        while end > offset + 1 && Self.isWhitespace(bytes[end - 1]) { end -= 1 }
        return "text \"\(text(offset..<end))\(truncated ? "…" : "")\""
    }

    /// The file, key path, line and column of `offset`.
    private func location(at offset: Int) -> Diagnostic.Location {
        let (line, column) = linesAndColumns(at: [offset])[0]
        return Diagnostic.Location(file: file, path: path.isEmpty ? nil : path.dotted, line: line, column: column)
    }

    /// The 1-based line and column of each of the ascending `offsets`, counted in one pass.
    /// Lines end at LF, CR LF or a lone CR; columns count characters.
    private func linesAndColumns(at offsets: [Int]) -> [(line: Int, column: Int)] {
        var places: [(line: Int, column: Int)] = []
        places.reserveCapacity(offsets.count)
        var line = 1
        var column = 1
        var position = hasPrefix("\u{FEFF}", at: 0) ? 3 : 0
        for offset in offsets {
            while position < min(offset, bytes.count) {
                let current = bytes[position]
                let endsLine = current == UInt8(ascii: "\n")
                    || (current == UInt8(ascii: "\r") && byte(at: position + 1) != UInt8(ascii: "\n"))
                if endsLine {
                    line += 1
                    column = 1
                } else if current & 0xC0 != 0x80 && current != UInt8(ascii: "\r") {
                    column += 1
                }
                position += 1
            }
            places.append((line, column))
        }
        return places
    }

    func syntaxError(_ message: String, at offset: Int) -> Diagnostic {
        .error(.plistSyntax, message, at: location(at: offset))
    }

    func invalidValue(_ message: String, at tag: Tag) -> Diagnostic {
        .error(.plistInvalidValue, message, at: location(at: tag.start))
    }
}

extension Diagnostic.Code {
    /// An XML property list is not well-formed, or holds an element where another was expected.
    package static let plistSyntax = Self("plist.syntax")
    /// An XML property list holds an integer, real, date or data element whose text is not one.
    package static let plistInvalidValue = Self("plist.invalid-value")
}
