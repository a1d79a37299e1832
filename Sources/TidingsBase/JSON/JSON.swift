/// A JSON value that keeps the order of object members, as written.
///
/// Integers that fit in 64 bits stay exact (`integer`); every other number is
/// a `double`. Objects are ordered lists of members, because manifests,
/// payloads and output are read by people, and order is part of what they
/// wrote.
package enum JSON: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    package static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .integer(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let values): hasher.combine(values)
        case .object(let members):
            for (key, value) in members {
                hasher.combine(key)
                hasher.combine(value)
            }
        }
    }

    /// The member named `key` of an object (the first, if repeated); nil otherwise.
    package subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        // By position: neither a member's name nor another member's value is copied on the way.
        for index in members.indices where members[index].0 == key { return members[index].1 }
        return nil
    }

    /// The string, when this is a string.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as a Double, when this is a number.
    package var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The number as an exact integer, when this is an integral number.
    package var integerValue: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value):
            guard value.rounded() == value, let exact = Int64(exactly: value) else { return nil }
            return exact
        default: return nil
        }
    }

    /// The Boolean, when this is one.
    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    package var objectMembers: [(String, JSON)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements, when this is an array.
    package var arrayValue: [JSON]? {
        if case .array(let values) = self { return values }
        return nil
    }

    /// A short English name of the value's type, for messages: "a string", "an object".
    package var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
