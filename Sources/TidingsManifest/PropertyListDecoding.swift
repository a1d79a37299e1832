import TidingsBase

extension PropertyList {
    /// Decodes a property list, telling the format by its first bytes: `bplist`
    /// is binary; otherwise, after an optional byte order mark (UTF-8, or
    /// UTF-16 which is transcoded) and white space, `<` is XML and `{` or `[`
    /// is JSON.
    ///
    /// - Parameter file: the file the bytes came from, for diagnostics.
    /// - Throws: a `plist.*` diagnostic (or a JSON one) naming what is wrong and where.
    package static func decode(_ bytes: [UInt8], file: String? = nil) throws(Diagnostic) -> PropertyListDocument {
        let subject = file ?? "The input"
        guard !bytes.isEmpty else {
            throw .error(.plistUnknownFormat, "\(subject) is empty.", at: .init(file: file))
        }
        if bytes.starts(with: "bplist".utf8) { return try BinaryPropertyListReader.read(bytes, file: file) }
        let text = try utf8Text(bytes, file: file)
        let bodyStart = text.starts(with: byteOrderMark) ? byteOrderMark.count : 0
        let first = text[bodyStart...].first { !XMLPropertyListReader.isWhitespace($0) }
        switch first {
        case UInt8(ascii: "<"):
            return try XMLPropertyListReader.read(text, file: file)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let json = try JSON.parse(bodyStart == 0 ? text : Array(text[bodyStart...]), file: file)
            var converter = JSONConverter(file: file)
            let value = try converter.convert(json)
            return PropertyListDocument(value: value, format: .json, warnings: converter.warnings)
        default:
            throw .error(.plistUnknownFormat, "\(subject) is neither an XML, a binary nor a JSON property list.",
                         at: .init(file: file))
        }
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `bytes` as UTF-8: transcoded when they start with a UTF-16 byte order mark, unchanged otherwise.
    static func utf8Text(_ bytes: [UInt8], file: String?) throws(Diagnostic) -> [UInt8] {
        let bigEndian = bytes.starts(with: [0xFE, 0xFF])
        guard bigEndian || bytes.starts(with: [0xFF, 0xFE]) else { return bytes }
        guard bytes.count % 2 == 0,
              let text = PropertyListReading.utf16String(bytes[2...], bigEndian: bigEndian)
        else {
            throw .error(.plistSyntax, "\(file ?? "The input") starts with a UTF-16 byte order mark but is not "
                + "valid UTF-16.", at: .init(file: file))
        }
        return Array(text.utf8)
    }
}

/// Turns a JSON value into a property list: objects become dictionaries in
/// the same order, numbers integers or reals. JSON null has no equivalent.
private struct JSONConverter {
    let file: String?
    private var path = PropertyListPath()
    private(set) var warnings: [Diagnostic] = []

    init(file: String?) {
        self.file = file
    }

    mutating func convert(_ json: JSON) throws(Diagnostic) -> PropertyList {
        switch json {
        case .null:
            throw .error(.plistJSONNull, "JSON null has no property list equivalent.",
                         at: .init(file: file, path: path.pointer))
        case .bool(let value): return .bool(value)
        case .integer(let value): return .integer(value)
        case .double(let value): return .real(value)
        case .string(let value): return .string(value)
        case .array(let elements):
            var values: [PropertyList] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                path.push(.index(values.count))
                values.append(try convert(element))
                path.pop()
            }
            return .array(values)
        case .object(let members):
            var entries = PropertyListEntries()
            for (key, member) in members {
                path.push(.key(key))
                if !entries.insert(key, try convert(member)) {
                    warnings.append(PropertyListReading.duplicateKey(key, at: .init(file: file, path: path.pointer)))
                }
                path.pop()
            }
            return .dictionary(entries.entries)
        }
    }
}

extension Diagnostic.Code {
    /// Bytes are neither an XML, a binary nor a JSON property list, or there are none.
    package static let plistUnknownFormat = Self("plist.unknown-format")
    /// A JSON manifest holds null, which property lists cannot represent.
    package static let plistJSONNull = Self("plist.json-null")
}
