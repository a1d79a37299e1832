import TidingsBase

/// Writes XML property lists byte for byte as Xcode (CoreFoundation) does,
/// except that dictionaries keep their own key order instead of being sorted
/// and reals take their shortest form.
///
/// ```
/// <?xml version="1.0" encoding="UTF-8"?>
/// <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
/// <plist version="1.0">
/// <dict>
/// 	<key>CFBundleName</key>
/// 	<string>EventInvite</string>
/// </dict>
/// </plist>
/// ```
struct XMLPropertyListWriter {
    /// The text so far, in UTF-8.
    private var output: [UInt8] = []
    /// The path to the value being written, and the checks every writer makes.
    private var writing = PropertyListWriting()

    /// What precedes the value: the XML declaration, Apple's DOCTYPE and `<plist>`, each on a line.
    private static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    /// The UTF-8 text of `value` as an XML property list, ending with a line feed.
    static func write(_ value: PropertyList) throws(Diagnostic) -> [UInt8] {
        var writer = XMLPropertyListWriter()
        writer.output.reserveCapacity(256)
        writer.append(header)
        try writer.write(value, indent: 0)
        writer.append("</plist>\n")
        return writer.output
    }

    /// Writes `value` on its own lines, `indent` tabs in.
    private mutating func write(_ value: PropertyList, indent: Int) throws(Diagnostic) {
        appendTabs(indent)
        switch value {
        case .string(let string):
            append("<string>")
            try appendEscaped(string, in: "string")
            append("</string>\n")
        case .integer(let integer):
            append("<integer>\(integer)</integer>\n")
        case .real(let real):
            append("<real>\(Self.text(real))</real>\n")
        case .bool(let bool):
            append(bool ? "<true/>\n" : "<false/>\n")
        case .date(let date):
            append("<date>\(try text(date: date))</date>\n")
        case .data(let bytes):
            append("<data>\n")
            appendBase64(bytes, indent: indent)
            appendTabs(indent)
            append("</data>\n")
        case .array(let values):
            try writing.enterContainer()
            defer { writing.leaveContainer() }
            guard !values.isEmpty else { return append("<array/>\n") }
            append("<array>\n")
            for index in values.indices {
                writing.push(.index(index))
                try write(values[index], indent: indent + 1)
                writing.pop()
            }
            appendTabs(indent)
            append("</array>\n")
        case .dictionary(let entries):
            try writing.enterContainer()
            defer { writing.leaveContainer() }
            guard !entries.isEmpty else { return append("<dict/>\n") }
            try writing.checkKeys(entries)
            append("<dict>\n")
            for (key, member) in entries {
                writing.push(.key(key))
                appendTabs(indent + 1)
                append("<key>")
                try appendEscaped(key, in: "key")
                append("</key>\n")
                try write(member, indent: indent + 1)
                writing.pop()
            }
            appendTabs(indent)
            append("</dict>\n")
        }
    }

    // MARK: Text

    /// The shortest text that reads back as `value`, in Apple's spelling: `1`
    /// rather than `1.0` for whole numbers, but `0.0` for zero; `nan`,
    /// `+infinity` and `-infinity`.
    private static func text(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-infinity" : "+infinity" }
        // Apple writes 0.0 for both zeros; the sign is kept here, so that the value reads back the same.
        if value == 0 { return value.sign == .minus ? "-0.0" : "0.0" }
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// The earliest and the latest-but-one second a four-digit year can
    /// write, in seconds since 1970: 0000-01-01 and 10000-01-01, UTC.
    private static let writableSeconds = -62_167_219_200.0..<253_402_300_800.0

    /// `YYYY-MM-DDTHH:MM:SSZ` for `date` (seconds since 2001), the fraction of a second dropped as Apple drops it.
    private func text(date: Double) throws(Diagnostic) -> String {
        let seconds = (date + ISO8601.referenceDateOffset).rounded(.down)
        guard Self.writableSeconds.contains(seconds) else {
            throw writing.cannotEncode("An XML property list can hold dates from the year 0000 to 9999 but the "
                + "date is \(date) seconds from 2001-01-01; write the property list as binary instead.")
        }
        return ISO8601.format(seconds)
    }

    /// Appends `string` with `&`, `<` and `>` escaped, as Apple escapes them,
    /// and besides a carriage return as `&#13;`: XML readers turn a bare one
    /// into a line feed. Throws for the characters XML 1.0 cannot carry at
    /// all: the control characters but tab, line feed and carriage return,
    /// and U+FFFE and U+FFFF.
    private mutating func appendEscaped(_ string: String, in element: String) throws(Diagnostic) {
        var string = string
        let forbidden = string.withUTF8 { Self.appendEscaped($0, to: &output) }
        if let forbidden {
            let hex = String(forbidden, radix: 16, uppercase: true)
            throw writing.cannotEncode("XML 1.0 cannot carry the character U+"
                + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ", which the \(element) holds; write "
                + "the property list as binary or JSON instead.")
        }
    }

    /// Appends the UTF-8 `text` escaped as `appendEscaped(_:in:)` describes;
    /// returns the first character XML cannot carry, if any, having stopped there.
    private static func appendEscaped(_ text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) -> UInt32? {
        var runStart = 0
        var index = 0
        while index < text.count {
            let start = index
            let byte = text[index]
            index += 1
            guard needsAttention(byte) else { continue }
            let escape: StaticString
            switch byte {
            case UInt8(ascii: "&"): escape = "&amp;"
            case UInt8(ascii: "<"): escape = "&lt;"
            case UInt8(ascii: ">"): escape = "&gt;"
            case UInt8(ascii: "\r"): escape = "&#13;"
            case 0xEF:
                // U+FFFE and U+FFFF are EF BF BE and EF BF BF; the other characters that start with EF pass.
                guard index + 1 < text.count, text[index] == 0xBF, text[index + 1] & 0xFE == 0xBE else { continue }
                return text[index + 1] == 0xBE ? 0xFFFE : 0xFFFF
            default:
                return UInt32(byte)
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<start]))
            output.append(contentsOf: UnsafeBufferPointer(start: escape.utf8Start, count: escape.utf8CodeUnitCount))
            runStart = index
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...]))
        return nil
    }

    /// True for the bytes `appendEscaped` must look at: markup, control characters but tab and line feed,
    /// and the first byte of U+FFFE and U+FFFF.
    private static func needsAttention(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), 0xEF: true
        case 0x09, 0x0A: false
        default: byte < 0x20
        }
    }

    // MARK: Bytes

    /// The base64 alphabet, by value.
    private static let base64Digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends `bytes` in base64 on lines of their own, as CoreFoundation
    /// does: each line indented like `<data>` (at most 8 tabs) and 76
    /// characters wide less 8 for each tab, padding on the last line.
    private mutating func appendBase64(_ bytes: [UInt8], indent: Int) {
        let tabs = min(indent, 8)
        let bytesPerLine = (76 - 8 * tabs) / 4 * 3
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = min(lineStart + bytesPerLine, bytes.count)
            appendTabs(tabs)
            var group = lineStart
            while group < lineEnd {
                let count = min(3, lineEnd - group)
                var bits = UInt32(bytes[group]) << 16
                if count > 1 { bits |= UInt32(bytes[group + 1]) << 8 }
                if count > 2 { bits |= UInt32(bytes[group + 2]) }
                for position in 0..<4 {
                    output.append(position <= count
                        ? Self.base64Digits[Int(bits >> (18 - 6 * UInt32(position)) & 0x3F)]
                        : UInt8(ascii: "="))
                }
                group += 3
            }
            output.append(UInt8(ascii: "\n"))
            lineStart = lineEnd
        }
    }

    /// Appends `count` tabs of indentation.
    private mutating func appendTabs(_ count: Int) {
        for _ in 0..<count { output.append(UInt8(ascii: "\t")) }
    }

    /// Appends the UTF-8 bytes of `text`.
    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }
}
