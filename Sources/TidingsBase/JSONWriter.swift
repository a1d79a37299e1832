extension JSON {
    /// The JSON text of the value: compact (`{"a":1,"b":[true,null]}`) by
    /// default; with `pretty`, indented by two spaces, `"name": value`, and no
    /// newline at the end.
    ///
    /// Strings escape only what RFC 8259 requires: `"`, `\` and control
    /// characters. Doubles are written in their shortest form that reads back
    /// as the same value, always with a fraction or an exponent (`2.0`), and
    /// as `null` when they are not finite.
    package func serialized(pretty: Bool = false) -> String {
        var bytes: [UInt8] = []
        serialize(into: &bytes, pretty: pretty)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 JSON text of the value, as `serialized(pretty:)`
    /// gives it, to `bytes`: no String is made, for callers that copy the
    /// text somewhere anyway.
    package func serialize(into bytes: inout [UInt8], pretty: Bool = false) {
        var writer = JSONWriter(pretty: pretty)
        swap(&writer.output, &bytes)
        writer.write(self, depth: 0)
        swap(&writer.output, &bytes)
    }

    /// The RFC 6901 JSON pointer to the value reached through `components`,
    /// as in `/aps/alert`; `~` is written `~0` and `/` is written `~1`.
    /// The pointer to the whole document (no components) is "".
    package static func pointer(_ components: [String]) -> String {
        components.map { "/" + $0.replacing("~", with: "~0").replacing("/", with: "~1") }.joined()
    }
}

/// Appends JSON text to a byte buffer.
private struct JSONWriter {
    let pretty: Bool
    var output: [UInt8] = []

    init(pretty: Bool) {
        self.pretty = pretty
    }

    mutating func write(_ value: JSON, depth: Int) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value): output.append(contentsOf: (value.isFinite ? value.description : "null").utf8)
        case .string(let value): writeString(value)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                startItem(offset, depth: depth + 1)
                write(element, depth: depth + 1)
            }
            endContainer(isEmpty: elements.isEmpty, depth: depth)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for offset in members.indices {
                startItem(offset, depth: depth + 1)
                writeString(members[offset].0)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                write(members[offset].1, depth: depth + 1)
            }
            endContainer(isEmpty: members.isEmpty, depth: depth)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The comma before every item but the first, and in pretty text the line break and indentation.
    private mutating func startItem(_ offset: Int, depth: Int) {
        if offset > 0 { output.append(UInt8(ascii: ",")) }
        newline(depth: depth)
    }

    /// In pretty text, the line break before the closing bracket of a non-empty container.
    private mutating func endContainer(isEmpty: Bool, depth: Int) {
        if !isEmpty { newline(depth: depth) }
    }

    private mutating func newline(depth: Int) {
        guard pretty else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// The string in quotes. Runs of bytes that need no escape are copied
    /// whole; only quotes, backslashes and control characters are escaped.
    private mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                writeEscape(byte)
                runStart = index + 1
            }
            if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The escape sequence for a quote, a backslash or a control character.
    private mutating func writeEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case 0x0A: output.append(contentsOf: #"\n"#.utf8)
        case 0x0D: output.append(contentsOf: #"\r"#.utf8)
        case 0x09: output.append(contentsOf: #"\t"#.utf8)
        case 0x08: output.append(contentsOf: #"\b"#.utf8)
        case 0x0C: output.append(contentsOf: #"\f"#.utf8)
        default:
            let low = byte & 0xF
            output.append(contentsOf: #"\u00"#.utf8)
            output.append(UInt8(ascii: "0") + byte >> 4)
            output.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
        }
    }
}
