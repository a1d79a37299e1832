import TidingsBase

/// A `.strings` file, as iOS bundles carry localized text:
///
///     /* The invitation's title. */
///     "INVITE_TITLE" = "%@ invites you";
///     // Unquoted keys and values of letters, digits and _.-/ work too.
///     GREETING = Hello;
///
/// UTF-8, or UTF-16 with a byte order mark (as Xcode once wrote them).
/// Escapes: `\"`, `\\`, `\n`, `\t`, `\r` and `\Uxxxx`.
package enum StringsTable {
    /// The key–value pairs of a `.strings` file; of a repeated key, the last counts.
    package static func parse(_ bytes: [UInt8], file: String? = nil) throws(Diagnostic) -> [String: String] {
        var reader = StringsReader(bytes: try PropertyList.utf8Text(bytes, file: file), file: file)
        return try reader.read()
    }
}

extension Diagnostic.Code {
    /// A `.strings` file is malformed.
    package static let stringsSyntax = Self("strings.syntax")
}

private struct StringsReader {
    let bytes: [UInt8]
    let file: String?
    var position = 0
    var line = 1

    init(bytes: [UInt8], file: String?) {
        // A UTF-8 byte order mark is skipped.
        self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        self.file = file
    }

    mutating func read() throws(Diagnostic) -> [String: String] {
        var table: [String: String] = [:]
        while true {
            try skipSpaceAndComments()
            guard position < bytes.count else { return table }
            let key = try token("a key")
            // A missing '=' or ';' is reported on the line of what it should follow.
            var tokenLine = line
            try skipSpaceAndComments()
            try expect(UInt8(ascii: "="), "'=' after the key \"\(key)\"", line: tokenLine)
            try skipSpaceAndComments()
            let value = try token("a value for \"\(key)\"")
            tokenLine = line
            try skipSpaceAndComments()
            try expect(UInt8(ascii: ";"), "';' after the value of \"\(key)\"", line: tokenLine)
            table[key] = value
        }
    }

    mutating func token(_ what: String) throws(Diagnostic) -> String {
        guard position < bytes.count else { throw failure("Expected \(what) but found the end of the file.") }
        if bytes[position] == UInt8(ascii: "\"") { return try quoted() }
        let start = position
        while position < bytes.count, isBare(bytes[position]) { position += 1 }
        guard position > start else {
            throw failure("Expected \(what) but found '\(Character(Unicode.Scalar(bytes[position])))'.")
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    mutating func quoted() throws(Diagnostic) -> String {
        let start = line
        position += 1
        var text: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\n"):
                line += 1
                text.append(byte)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { break }
                let escaped = bytes[position]
                position += 1
                switch escaped {
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "U"), UInt8(ascii: "u"):
                    text += Array(String(Character(try escapedScalar())).utf8)
                default: text.append(escaped)
                }
            default:
                text.append(byte)
            }
        }
        throw failure("A quoted string is not closed before the end of the file.", line: start)
    }

    /// The character of a `\Uxxxx` escape, the `\U` read. The digits are
    /// UTF-16, so a character beyond U+FFFF is a surrogate pair of two escapes
    /// (`\UD83C\UDF89`).
    mutating func escapedScalar() throws(Diagnostic) -> Unicode.Scalar {
        let unit = try escapedCodeUnit()
        if let scalar = Unicode.Scalar(unit) { return scalar }
        let unpaired = failure("\\U\(String(unit, radix: 16, uppercase: true)) is half of a surrogate pair "
            + "without the other half.")
        guard UTF16.isLeadSurrogate(unit), position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"),
              bytes[position + 1] == UInt8(ascii: "U") || bytes[position + 1] == UInt8(ascii: "u")
        else { throw unpaired }
        position += 2
        let trail = try escapedCodeUnit()
        guard UTF16.isTrailSurrogate(trail) else { throw unpaired }
        return Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(trail - 0xDC00))!
    }

    /// The four hexadecimal digits after a `\U`.
    mutating func escapedCodeUnit() throws(Diagnostic) -> UInt16 {
        guard position + 4 <= bytes.count,
              let unit = UInt16(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
        else { throw failure("Expected four hexadecimal digits after \\U.") }
        position += 4
        return unit
    }

    mutating func skipSpaceAndComments() throws(Diagnostic) {
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\n") {
                line += 1
                position += 1
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                position += 1
            } else if bytes[position...].starts(with: "//".utf8) {
                while position < bytes.count, bytes[position] != UInt8(ascii: "\n") { position += 1 }
            } else if bytes[position...].starts(with: "/*".utf8) {
                let start = line
                position += 2
                while position < bytes.count, !bytes[position...].starts(with: "*/".utf8) {
                    if bytes[position] == UInt8(ascii: "\n") { line += 1 }
                    position += 1
                }
                guard position < bytes.count else {
                    throw failure("A comment is not closed before the end of the file.", line: start)
                }
                position += 2
            } else {
                return
            }
        }
    }

    mutating func expect(_ byte: UInt8, _ what: String, line: Int) throws(Diagnostic) {
        guard position < bytes.count, bytes[position] == byte else { throw failure("Expected \(what).", line: line) }
        position += 1
    }

    func isBare(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || "_.-/$:".utf8.contains(byte)
    }

    /// A syntax error on `line`, by default the current one.
    func failure(_ message: String, line: Int? = nil) -> Diagnostic {
        .error(.stringsSyntax, message, at: .init(file: file, line: line ?? self.line))
    }
}
