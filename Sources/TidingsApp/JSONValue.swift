import TidingsBase

/// A JSON value, as the host's protocol carries it: what `userInfo` holds,
/// and what ``UserNotificationCenter/call(_:_:)`` sends and answers. Numbers
/// without a fraction that fit in 64 bits stay exact integers, however large.
public enum JSONValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without a fraction.
    case integer(Int64)
    /// A number with a fraction.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as itself.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object; nil for a missing member or another kind of value.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, when the value is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an integer, when the value is a whole number that fits.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .double(let value) where value.rounded() == value: Int64(exactly: value)
        default: nil
        }
    }

    /// The number, when the value is one.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The Boolean, when the value is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when the value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when the value is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The value as the wire JSON carries it (an object's members by name, in order).
    var wire: JSON {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .integer(let value): .integer(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(\.wire))
        case .object(let members): .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value.wire) })
        }
    }

    /// The value the wire JSON `json` is (of an object's repeated members, the first).
    init(_ json: JSON) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .integer(let value): self = .integer(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array(let values): self = .array(values.map(JSONValue.init))
        case .object(let members):
            self = .object(Dictionary(members.map { ($0.0, JSONValue($0.1)) }, uniquingKeysWith: { first, _ in first }))
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// A string literal as a JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A Boolean literal as a JSON Boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal as a JSON number.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// An array literal as a JSON array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal as a JSON object.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
