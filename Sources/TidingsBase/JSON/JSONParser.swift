extension JSON {
    /// Parses `bytes` as one strict RFC 8259 JSON text in UTF-8.
    ///
    /// A leading UTF-8 byte order mark is skipped. Object members keep their
    /// order, and a repeated name is kept as written. Integers without a
    /// fraction or exponent that fit in 64 bits are `integer`; every other
    /// number is a correctly rounded `double`.
    ///
    /// Every error is a `Diagnostic` with code `json.syntax`, `json.too-deep`
    /// or `json.invalid-utf8`, located in `file` at the 1-based line and
    /// column (counted in Unicode scalars) of the offending byte.
    /// - Parameter maximumDepth: how many arrays and objects may enclose one
    ///   another; with 0, only a string, number or literal is accepted.
    package static func parse(_ bytes: [UInt8], file: String? = nil, maximumDepth: Int = 256) throws(Diagnostic) -> JSON {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Diagnostic) -> JSON in
            var parser = JSONParser(buffer, file: file, maximumDepth: maximumDepth)
            return try parser.parseDocument()
        }
    }
}

extension Diagnostic.Code {
    /// A JSON text breaks the grammar of RFC 8259.
    package static let jsonSyntax = Self("json.syntax")
    /// JSON arrays and objects nest more deeply than the reader accepts.
    package static let jsonTooDeep = Self("json.too-deep")
    /// A JSON string contains bytes that are not UTF-8.
    package static let jsonInvalidUTF8 = Self("json.invalid-utf8")
}

/// A recursive descent parser over a byte buffer that outlives it.
private struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let file: String?
    private let maximumDepth: Int
    /// Where the text begins, after any byte order mark.
    private let start: Int
    private var index: Int
    /// Reused to build strings that contain escapes.
    private var scratch: [UInt8] = []
    /// The members of the objects being read, innermost last: each object's
    /// are copied out once it closes, into an array of the exact size.
    private var pendingMembers: [(String, JSON)] = []
    /// The elements of the arrays being read, likewise.
    private var pendingElements: [JSON] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, file: String?, maximumDepth: Int) {
        self.bytes = bytes
        self.file = file
        self.maximumDepth = maximumDepth
        start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        index = start
    }

    mutating func parseDocument() throws(Diagnostic) -> JSON {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw error("Unexpected content after the JSON value.") }
        return value
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(Diagnostic) -> JSON {
        skipWhitespace()
        guard index < bytes.count else { throw expected("a JSON value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw expected("a JSON value")
        }
    }

    private mutating func parseObject(depth: Int) throws(Diagnostic) -> JSON {
        try checkDepth(depth)
        index += 1
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object([]) }
        let first = pendingMembers.count
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw expected("a member name in double quotes")
            }
            let name = try parseString()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw expected("':' after a member name") }
            let value = try parseValue(depth: depth)
            pendingMembers.append((name, value))
            skipWhitespace()
            if consume(UInt8(ascii: "}")) {
                let members = Array(pendingMembers[first...])
                pendingMembers.removeSubrange(first...)
                return .object(members)
            }
            guard consume(UInt8(ascii: ",")) else { throw expected("',' or '}' after an object member") }
            skipWhitespace()
        }
    }

    private mutating func parseArray(depth: Int) throws(Diagnostic) -> JSON {
        try checkDepth(depth)
        index += 1
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array([]) }
        let first = pendingElements.count
        while true {
            let element = try parseValue(depth: depth)
            pendingElements.append(element)
            skipWhitespace()
            if consume(UInt8(ascii: "]")) {
                let elements = Array(pendingElements[first...])
                pendingElements.removeSubrange(first...)
                return .array(elements)
            }
            guard consume(UInt8(ascii: ",")) else { throw expected("',' or ']' after an array element") }
        }
    }

    private func checkDepth(_ depth: Int) throws(Diagnostic) {
        guard depth > maximumDepth else { return }
        throw error("Arrays and objects are nested more than \(maximumDepth) levels deep.", code: .jsonTooDeep)
    }

    private mutating func parseLiteral(_ word: StaticString, _ value: JSON) throws(Diagnostic) -> JSON {
        let literal = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in literal {
            guard index < bytes.count, bytes[index] == byte else { throw expected("the literal '\(word)'") }
            index += 1
        }
        return value
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(Diagnostic) -> JSON {
        let first = index
        let negative = consume(UInt8(ascii: "-"))
        guard index < bytes.count, isDigit(bytes[index]) else { throw expected("a digit after '-'") }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
            throw error("A number cannot have a leading zero.")
        }
        // The magnitude, while it fits; nil after it overflows.
        var magnitude: UInt64? = 0
        while index < bytes.count, isDigit(bytes[index]) {
            magnitude = magnitude.flatMap { accumulate($0, bytes[index]) }
            index += 1
        }
        var integral = true
        if consume(UInt8(ascii: ".")) {
            integral = false
            try skipDigits(expecting: "a digit after the decimal point")
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            integral = false
            _ = consume(UInt8(ascii: "+")) || consume(UInt8(ascii: "-"))
            try skipDigits(expecting: "a digit in the exponent")
        }
        if integral, let magnitude {
            if !negative, magnitude <= UInt64(Int64.max) { return .integer(Int64(magnitude)) }
            if negative, magnitude <= UInt64(Int64.max) + 1 { return .integer(Int64(truncatingIfNeeded: 0 &- magnitude)) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<index]), as: UTF8.self)
        // The standard library's conversion is correctly rounded and ignores the C locale.
        guard let value = Double(text), value.isFinite else {
            index = first
            throw error("The number is too large to be represented.")
        }
        return .double(value)
    }

    /// `magnitude * 10 + digit`, or nil when that overflows.
    private func accumulate(_ magnitude: UInt64, _ digit: UInt8) -> UInt64? {
        let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
        return overflow1 || overflow2 ? nil : sum
    }

    private mutating func skipDigits(expecting what: String) throws(Diagnostic) {
        guard index < bytes.count, isDigit(bytes[index]) else { throw expected(what) }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    // MARK: Strings

    /// Parses the string whose opening quote is at `index`.
    private mutating func parseString() throws(Diagnostic) -> String {
        index += 1
        var chunkStart = index
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let chunk = UnsafeBufferPointer(rebasing: bytes[chunkStart..<index])
                index += 1
                guard escaped else { return String(decoding: chunk, as: UTF8.self) }
                scratch.append(contentsOf: chunk)
                defer { scratch.removeAll(keepingCapacity: true) }
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                escaped = true
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<index]))
                try parseEscape()
                chunkStart = index
            case 0..<0x20:
                throw error("A string cannot contain the unescaped control character \(scalarName(UInt32(byte))).")
            case 0x80...:
                try skipUTF8Sequence()
            default:
                index += 1
            }
        }
        throw error("Unexpected end of input inside a string.")
    }

    /// Appends to `scratch` the character of the escape sequence whose backslash is at `index`.
    private mutating func parseEscape() throws(Diagnostic) {
        let backslash = index
        index += 1
        guard index < bytes.count else { throw error("Unexpected end of input inside a string.") }
        let simple: UInt8? =
            switch bytes[index] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes[index]
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            case UInt8(ascii: "u"): nil
            default: throw expected("one of \" \\ / b f n r t u after a backslash")
            }
        index += 1
        if let simple {
            scratch.append(simple)
            return
        }
        var scalar = try parseHex4()
        if (0xDC00...0xDFFF).contains(scalar) {
            index = backslash
            throw error("The low surrogate \(scalarName(scalar)) is not preceded by a high surrogate.")
        }
        if (0xD800...0xDBFF).contains(scalar) {
            let high = scalar
            var low: UInt32 = 0
            if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                index += 2
                low = try parseHex4()
            }
            guard (0xDC00...0xDFFF).contains(low) else {
                index = backslash
                throw error("The high surrogate \(scalarName(high)) is not followed by a low surrogate.")
            }
            scalar = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        }
        // Never nil: surrogates were combined or rejected above.
        Unicode.UTF8.encode(Unicode.Scalar(scalar)!) { scratch.append($0) }
    }

    /// The value of the four hexadecimal digits at `index`.
    private mutating func parseHex4() throws(Diagnostic) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexValue(bytes[index]) else {
                throw expected("four hexadecimal digits after '\\u'")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Moves past the well-formed UTF-8 sequence of two to four bytes at `index`.
    private mutating func skipUTF8Sequence() throws(Diagnostic) {
        let lead = bytes[index]
        // The length of the sequence, and the range of its second byte (RFC 3629).
        let (length, second): (Int, ClosedRange<UInt8>) =
            switch lead {
            case 0xC2...0xDF: (2, 0x80...0xBF)
            case 0xE0: (3, 0xA0...0xBF)
            case 0xED: (3, 0x80...0x9F)
            case 0xE1...0xEF: (3, 0x80...0xBF)
            case 0xF0: (4, 0x90...0xBF)
            case 0xF1...0xF3: (4, 0x80...0xBF)
            case 0xF4: (4, 0x80...0x8F)
            default: (0, 0...0)
            }
        guard length > 0, index + length <= bytes.count, second.contains(bytes[index + 1]),
              bytes[index + 2..<index + length].allSatisfy({ $0 & 0xC0 == 0x80 })
        else { throw error("A string contains bytes that are not valid UTF-8.", code: .jsonInvalidUTF8) }
        index += length
    }

    // MARK: Bytes

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Moves past `byte` when it is next.
    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: Errors

    /// "Expected `what`, found …." about the byte at `index`.
    private func expected(_ what: String) -> Diagnostic {
        guard let found = describeFound() else {
            let byte = "0x" + hex(UInt32(bytes[index]), digits: 2)
            return error("Expected \(what), found the byte \(byte), which is not valid UTF-8.", code: .jsonInvalidUTF8)
        }
        return error("Expected \(what), found \(found).")
    }

    /// An error about the byte at `index`, located by line and column.
    private func error(_ message: String, code: Diagnostic.Code = .jsonSyntax) -> Diagnostic {
        var line = 1
        var lineStart = start
        for offset in start..<index where bytes[offset] == UInt8(ascii: "\n") {
            line += 1
            lineStart = offset + 1
        }
        // Counting the bytes that begin a scalar counts scalars: what precedes `index` is valid UTF-8.
        let column = 1 + bytes[lineStart..<index].count(where: { $0 & 0xC0 != 0x80 })
        return .error(code, message, at: .init(file: file, line: line, column: column))
    }

    /// The byte at `index` (or the character it begins), as a message names it;
    /// nil when it does not begin valid UTF-8.
    private func describeFound() -> String? {
        guard index < bytes.count else { return "the end of input" }
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "'"): return "a single quote"
        case 0x21..<0x7F: return "'\(Character(Unicode.Scalar(byte)))'"
        case 0x20: return "a space"
        case 0..<0x20, 0x7F: return "the control character \(scalarName(UInt32(byte)))"
        default:
            var iterator = bytes[index...].makeIterator()
            var decoder = Unicode.UTF8()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return nil }
            return "'\(scalar)' (\(scalarName(scalar.value)))"
        }
    }

    /// `U+000A`.
    private func scalarName(_ value: UInt32) -> String {
        "U+" + hex(value, digits: 4)
    }

    private func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
