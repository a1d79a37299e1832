import TidingsBase
import TidingsManifest

/// A property list for people (an indented tree, keys in their order) and
/// for programs (JSON, with dates as ISO 8601 and data as base64 text).
enum ManifestText {
    /// The whole manifest: its file and format, then the tree.
    static func render(_ document: PropertyListDocument, file: String, terminal: Terminal) -> String {
        terminal.bold(file) + "  (\(document.format.rawValue) property list)\n" + render(document.value, terminal: terminal)
    }

    /// A value: a scalar on its own line, a container as an indented tree.
    static func render(_ value: PropertyList, terminal: Terminal) -> String {
        switch value {
        case .array, .dictionary: lines(value, depth: 1, terminal: terminal)
        default: scalar(value) + "\n"
        }
    }

    private static func lines(_ value: PropertyList, depth: Int, terminal: Terminal) -> String {
        let indent = String(repeating: "  ", count: depth)
        let children: [(String, PropertyList)] = switch value {
        case .dictionary(let entries): entries
        case .array(let elements): elements.enumerated().map { ("\($0.offset)", $0.element) }
        default: []
        }
        if children.isEmpty { return indent + terminal.dim(value.typeDescription == "an array" ? "(empty array)" : "(empty dictionary)") + "\n" }
        let width = children.map(\.0.count).max() ?? 0
        var text = ""
        for (name, child) in children {
            switch child {
            case .array, .dictionary:
                text += indent + name + "\n" + lines(child, depth: depth + 1, terminal: terminal)
            default:
                text += indent + name.rightPadded(to: width + 2) + scalar(child) + terminal.dim("  " + typeName(child)) + "\n"
            }
        }
        return text
    }

    /// A scalar as text: strings bare, dates ISO 8601, data as its size.
    private static func scalar(_ value: PropertyList) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .real(let number): NumberText.short(number)
        case .bool(let flag): flag ? "true" : "false"
        case .date(let seconds): date(seconds)
        case .data(let bytes): "<\(bytes.count) bytes>"
        case .array, .dictionary: ""
        }
    }

    private static func typeName(_ value: PropertyList) -> String {
        switch value {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .bool: "bool"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dict"
        }
    }

    /// A property list date (seconds since 2001) in ISO 8601, or the seconds when out of its range.
    private static func date(_ seconds: Double) -> String {
        let unix = seconds + 978_307_200
        guard unix.isFinite, unix > -62_135_596_800, unix < 253_402_300_800 else { return "\(seconds) s after 2001" }
        return ISO8601.format(unix)
    }

    /// The value as JSON for programs.
    static func json(_ value: PropertyList) -> JSON {
        switch value {
        case .string(let text): .string(text)
        case .integer(let number): .integer(number)
        case .real(let number): number.isFinite ? .double(number) : .string(String(number))
        case .bool(let flag): .bool(flag)
        case .date(let seconds): .string(date(seconds))
        case .data(let bytes): .string(Base64.encode(bytes))
        case .array(let elements): .array(elements.map(json))
        case .dictionary(let entries): .object(entries.map { ($0.0, json($0.1)) })
        }
    }

    /// The document as JSON: format, value and warnings.
    static func json(_ document: PropertyListDocument) -> JSON {
        .object([("format", .string(document.format.rawValue)), ("value", json(document.value)),
                 ("warnings", .array(document.warnings.map(\.json)))])
    }
}
