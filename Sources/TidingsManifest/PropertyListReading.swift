import TidingsBase

/// What the XML, binary and JSON readers share: where a value sits, how a
/// dictionary absorbs a repeated key, how deep a file may nest.
enum PropertyListReading {
    /// The deepest nesting of arrays and dictionaries a reader accepts.
    static let maximumDepth = 256

    /// The error for a file nested deeper than `maximumDepth`.
    static func tooDeep(at location: Diagnostic.Location) -> Diagnostic {
        .error(.plistTooDeep, "Expected at most \(maximumDepth) nested arrays and dictionaries but found more.",
               at: location)
    }

    /// The warning for a key given twice in one dictionary.
    static func duplicateKey(_ key: String, at location: Diagnostic.Location) -> Diagnostic {
        .warning(.plistDuplicateKey,
                 "The key \"\(key)\" appears more than once in the dictionary; the last value is used.", at: location)
    }

    /// The text of UTF-16 code units stored as bytes, or nil when they are not valid UTF-16.
    static func utf16String(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String? {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        return String(validating: units, as: UTF16.self)
    }
}

/// The keys and array indices that lead from the root of a property list to a value.
struct PropertyListPath {
    enum Component {
        case key(String)
        case index(Int)
    }

    private var components: [Component] = []

    mutating func push(_ component: Component) { components.append(component) }
    mutating func pop() { components.removeLast() }

    /// True at the root.
    var isEmpty: Bool { components.isEmpty }

    /// `NSExtension.NSExtensionAttributes.UNNotificationExtensionCategory`, with
    /// array indices as numbers.
    var dotted: String {
        components.map { component in
            switch component {
            case .key(let key): key
            case .index(let index): String(index)
            }
        }.joined(separator: ".")
    }

    /// The JSON pointer (RFC 6901) of the value: `/NSExtension/NSExtensionAttributes`.
    var pointer: String {
        components.map { component in
            switch component {
            case .key(let key):
                "/" + key.replacing("~", with: "~0").replacing("/", with: "~1")
            case .index(let index): "/\(index)"
            }
        }.joined()
    }
}

/// The entries of a dictionary being read, in file order. A repeated key
/// keeps the position of its first occurrence and takes its last value, as
/// CoreFoundation does.
struct PropertyListEntries {
    private(set) var entries: [(String, PropertyList)] = []
    /// Positions by key, built once the dictionary outgrows a linear search.
    private var positions: [String: Int] = [:]
    private static let linearSearchLimit = 16

    /// Adds an entry; returns false when `key` was already there, and its value was replaced.
    mutating func insert(_ key: String, _ value: PropertyList) -> Bool {
        if let existing = position(of: key) {
            entries[existing].1 = value
            return false
        }
        entries.append((key, value))
        if entries.count > Self.linearSearchLimit {
            if positions.isEmpty {
                for (position, entry) in entries.enumerated() { positions[entry.0] = position }
            } else {
                positions[key] = entries.count - 1
            }
        }
        return true
    }

    private func position(of key: String) -> Int? {
        entries.count > Self.linearSearchLimit ? positions[key] : entries.firstIndex { $0.0 == key }
    }
}

extension Diagnostic.Code {
    /// A property list nests arrays and dictionaries deeper than readers accept.
    package static let plistTooDeep = Self("plist.too-deep")
    /// A dictionary in a property list gives the same key twice; the last value is used.
    package static let plistDuplicateKey = Self("plist.duplicate-key")
}
