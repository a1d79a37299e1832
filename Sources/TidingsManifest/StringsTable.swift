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
            try skipSpaceAndComments()
            try expect(UInt8(ascii: "="), "'=' after the key \"\(key)\"")
            try skipSpaceAndComments()
            let value = try token("a value for \"\(key)\"")
            try skipSpaceAndComments()
            try expect(UInt8(ascii: ";"), "';' after the value of \"\(key)\"")
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
                    guard position + 4 <= bytes.count,
                          let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16),
                          let scalar = Unicode.Scalar(value)
                    else { throw failure("Expected four hexadecimal digits after \\U.") }
                    position += 4
                    text += Array(String(Character(scalar)).utf8)
                default: text.append(escaped)
                }
            default:
                text.append(byte)
            }
        }
        throw failure("A quoted string is not closed before the end of the file.")
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
                position += 2
                while position < bytes.count, !bytes[position...].starts(with: "*/".utf8) {
                    if bytes[position] == UInt8(ascii: "\n") { line += 1 }
                    position += 1
                }
                guard position < bytes.count else { throw failure("A comment is not closed before the end of the file.") }
                position += 2
            } else {
                return
            }
        }
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(Diagnostic) {
        guard position < bytes.count, bytes[position] == byte else { throw failure("Expected \(what).") }
        position += 1
    }

    func isBare(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || "_.-/$:".utf8.contains(byte)
    }

    func failure(_ message: String) -> Diagnostic {
        .error(.stringsSyntax, message, at: .init(file: file, line: line))
    }
}
