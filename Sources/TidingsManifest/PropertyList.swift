import TidingsBase

/// A property list value, as Info.plist files hold them.
///
/// Dictionaries keep their keys in the order the file gave them, so that a
/// manifest can be printed and, later, edited without reordering it.
package enum PropertyList: Hashable, Sendable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    /// A date, in seconds since 2001-01-01 00:00:00 UTC (Apple's reference date).
    case date(Double)
    case data([UInt8])
    case array([PropertyList])
    case dictionary([(String, PropertyList)])

    package static func == (lhs: PropertyList, rhs: PropertyList) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.real(a), .real(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case let (.date(a), .date(b)): a == b
        case let (.data(a), .data(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.dictionary(a), .dictionary(b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let value): hasher.combine(value)
        case .integer(let value): hasher.combine(value)
        case .real(let value): hasher.combine(value)
        case .bool(let value): hasher.combine(value)
        case .date(let value): hasher.combine(value)
        case .data(let value): hasher.combine(value)
        case .array(let values): hasher.combine(values)
        case .dictionary(let entries):
            for (key, value) in entries {
                hasher.combine(key)
                hasher.combine(value)
            }
        }
    }

    /// The value for `key` in a dictionary; nil for other values or a missing key.
    package subscript(key: String) -> PropertyList? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.first { $0.0 == key }?.1
    }

    /// The entries, when this is a dictionary.
    package var dictionaryEntries: [(String, PropertyList)]? {
        if case .dictionary(let entries) = self { return entries }
        return nil
    }

    /// A short English name of the value's type, for messages: "a string", "a dictionary".
    package var typeDescription: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a real number"
        case .bool: "a Boolean"
        case .date: "a date"
        case .data: "data"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}

/// The three encodings a manifest may arrive in.
package enum PropertyListFormat: String, Sendable, CaseIterable {
    /// Apple's XML property list (`<?xml …?><plist>`), as Xcode writes source manifests.
    case xml
    /// Apple's binary property list (`bplist00`), as built iOS bundles carry.
    case binary
    /// JSON with the same keys.
    case json
}

/// A decoded property list and what the decoder noticed along the way.
package struct PropertyListDocument: Sendable {
    package var value: PropertyList
    package var format: PropertyListFormat
    /// Warnings that did not stop decoding (a repeated key, say).
    package var warnings: [Diagnostic]

    package init(value: PropertyList, format: PropertyListFormat, warnings: [Diagnostic] = []) {
        self.value = value
        self.format = format
        self.warnings = warnings
    }
}
