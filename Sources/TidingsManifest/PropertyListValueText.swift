import TidingsBase

/// A property list value written on a command line with its type, as
/// PlistBuddy takes it: `string Hello`, `bool true`, `integer 3`, `real 0.75`,
/// `array`, `dict`, or `array '["a", "b"]'` with JSON for a container's content.
package enum PropertyListValueText {
    /// The types a value may be given as.
    package enum ValueType: String, Sendable, CaseIterable {
        case string
        case bool
        case integer
        case real
        case date
        case array
        case dict
    }

    /// The value of `type` that `text` writes; a container without text is empty.
    package static func value(of type: ValueType, _ text: String?) throws(Diagnostic) -> PropertyList {
        func required() throws(Diagnostic) -> String {
            guard let text else { throw .error(.editInvalidValue, "A \(type.rawValue) needs a value.") }
            return text
        }
        switch type {
        case .string:
            return .string(try required())
        case .bool:
            let text = try required().lowercased()
            if ["true", "yes", "1"].contains(text) { return .bool(true) }
            if ["false", "no", "0"].contains(text) { return .bool(false) }
            throw .error(.editInvalidValue, "A bool is true or false (or yes, no, 1, 0); \"\(text)\" is not one.")
        case .integer:
            let text = try required()
            guard let integer = Int64(text) else {
                throw .error(.editInvalidValue, "An integer is whole digits, optionally signed; \"\(text)\" is not one.")
            }
            return .integer(integer)
        case .real:
            let text = try required()
            guard let real = Double(text), real.isFinite else {
                throw .error(.editInvalidValue, "A real is a finite number such as 0.75; \"\(text)\" is not one.")
            }
            return .real(real)
        case .date:
            let text = try required()
            guard let seconds = ISO8601.parse(text) else {
                throw .error(.editInvalidValue, "A date is ISO 8601, such as 2026-11-21T09:30:00Z; \"\(text)\" is not one.")
            }
            return .date(seconds - 978_307_200)
        case .array, .dict:
            guard let text else { return type == .array ? .array([]) : .dictionary([]) }
            let json: JSON
            do {
                json = try JSON.parse(Array(text.utf8))
            } catch {
                throw .error(.editInvalidValue, "The content of a \(type.rawValue) is JSON; this is not: \(error.message)")
            }
            let value = try plist(json)
            switch (type, value) {
            case (.array, .array), (.dict, .dictionary): return value
            default: throw .error(.editInvalidValue, "The JSON given is not a\(type == .array ? "n array" : "n object").")
            }
        }
    }

    /// `json` as a property list: objects keep their order; null has no counterpart.
    private static func plist(_ json: JSON) throws(Diagnostic) -> PropertyList {
        switch json {
        case .null: throw .error(.editInvalidValue, "A property list has no null.")
        case .bool(let value): return .bool(value)
        case .integer(let value): return .integer(value)
        case .double(let value): return .real(value)
        case .string(let value): return .string(value)
        case .array(let values):
            var elements: [PropertyList] = []
            for value in values { elements.append(try plist(value)) }
            return .array(elements)
        case .object(let members):
            var entries: [(String, PropertyList)] = []
            for (key, value) in members { entries.append((key, try plist(value))) }
            return .dictionary(entries)
        }
    }
}
