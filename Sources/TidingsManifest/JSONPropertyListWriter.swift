import TidingsBase

/// Writes property lists as JSON, the reverse of the mapping `PropertyList.decode`
/// reads: dictionaries become objects with their keys in order, integers
/// integers, reals numbers with a fraction or an exponent (`1.0`, `1e+16`) so
/// that they read back as reals, Booleans and strings themselves.
///
/// JSON has no dates and no data, nor NaN and infinities; and the decoder
/// takes a text for JSON only when it starts with `{` or `[`. Those throw.
struct JSONPropertyListWriter {
    /// The path to the value being converted, and the checks every writer makes.
    private var writing = PropertyListWriting()

    /// The UTF-8 JSON text of `value`, indented by two spaces, ending with a line feed.
    static func write(_ value: PropertyList) throws(Diagnostic) -> [UInt8] {
        var writer = JSONPropertyListWriter()
        switch value {
        case .array, .dictionary: break
        default:
            throw writer.writing.cannotEncode("A JSON property list holds a dictionary or an array at the top, "
                + "but this one is \(value.typeDescription); write it as XML or binary instead.")
        }
        let json = try writer.convert(value)
        var bytes: [UInt8] = []
        json.serialize(into: &bytes, pretty: true)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The JSON value of `value`.
    private mutating func convert(_ value: PropertyList) throws(Diagnostic) -> JSON {
        switch value {
        case .string(let string): return .string(string)
        case .integer(let integer): return .integer(integer)
        case .real(let real):
            guard real.isFinite else {
                throw writing.cannotEncode("JSON cannot hold the real number \(real); write the property list as "
                    + "XML or binary instead.")
            }
            return .double(real)
        case .bool(let bool): return .bool(bool)
        case .date, .data:
            throw writing.cannotEncode("JSON cannot hold \(value.typeDescription); write the property list as XML "
                + "or binary instead.")
        case .array(let values):
            try writing.enterContainer()
            defer { writing.leaveContainer() }
            var elements: [JSON] = []
            elements.reserveCapacity(values.count)
            for index in values.indices {
                writing.push(.index(index))
                elements.append(try convert(values[index]))
                writing.pop()
            }
            return .array(elements)
        case .dictionary(let entries):
            try writing.enterContainer()
            defer { writing.leaveContainer() }
            try writing.checkKeys(entries)
            var members: [(String, JSON)] = []
            members.reserveCapacity(entries.count)
            for (key, member) in entries {
                writing.push(.key(key))
                members.append((key, try convert(member)))
                writing.pop()
            }
            return .object(members)
        }
    }
}
