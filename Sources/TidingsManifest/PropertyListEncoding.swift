import TidingsBase

/// Writes property lists: the counterpart of `PropertyList.decode`, so that a
/// manifest can be edited and saved in the format it came in, or converted.
///
/// Whatever is written reads back, through `PropertyList.decode`, as an equal
/// value (NaN aside, which equals nothing) with its keys in the same order and
/// in the format asked for; a value the format cannot carry throws instead.
/// The one loss is deliberate: XML dates keep whole seconds, as Apple's
/// writer does.
package enum PropertyListEncoding {
    /// The bytes of `value` in `format`. JSON cannot hold dates or data: those throw a Diagnostic naming the key path.
    ///
    /// - XML is written as Xcode writes it: the XML declaration and Apple's
    ///   DOCTYPE, tab indentation, `<array/>` and `<dict/>` when empty, base64
    ///   lines as wide as CoreFoundation makes them, dates in whole seconds UTC.
    /// - Binary is `bplist00`, with equal strings, numbers, dates and data
    ///   stored once, object by object as Python's `plistlib` orders them.
    /// - JSON is indented by two spaces; reals always have a fraction or an
    ///   exponent, so they read back as reals.
    ///
    /// - Throws: `plist.cannot-encode` for a value the format cannot carry (a
    ///   date, data, a non-finite real or a top-level scalar in JSON; a
    ///   character XML 1.0 forbids; a date outside years 0000 to 9999 in XML)
    ///   or a key given twice in one dictionary; `plist.too-deep` for more than
    ///   256 nested arrays and dictionaries, which no reader would accept.
    package static func encode(_ value: PropertyList, as format: PropertyListFormat) throws(Diagnostic) -> [UInt8] {
        switch format {
        case .xml: try XMLPropertyListWriter.write(value)
        case .binary: try BinaryPropertyListWriter.write(value)
        case .json: try JSONPropertyListWriter.write(value)
        }
    }
}

/// What the writers share: where the value being written is, and the checks
/// every format makes, so that what is written reads back.
struct PropertyListWriting {
    /// The keys and indices that lead to the value being written.
    private var path = PropertyListPath()
    /// How many arrays and dictionaries enclose the value being written.
    private var depth = 0

    /// Notes that the value under `component` of the current container is being written.
    mutating func push(_ component: PropertyListPath.Component) { path.push(component) }
    /// Notes that the value last pushed is written.
    mutating func pop() { path.pop() }

    /// Starts writing an array or a dictionary; throws when readers would refuse one this deep.
    mutating func enterContainer() throws(Diagnostic) {
        guard depth < PropertyListReading.maximumDepth else {
            throw PropertyListReading.tooDeep(at: location)
        }
        depth += 1
    }

    /// Ends the container `enterContainer` started.
    mutating func leaveContainer() {
        depth -= 1
    }

    /// Throws when a key appears twice in `entries`: a reader would keep only
    /// the last value. Keys compare as readers compare them (as Swift strings).
    func checkKeys(_ entries: [(String, PropertyList)]) throws(Diagnostic) {
        guard entries.count > 1 else { return }
        var seen = Set<String>(minimumCapacity: entries.count)
        for (key, _) in entries where !seen.insert(key).inserted {
            throw cannotEncode("The dictionary gives the key \"\(key)\" more than once; a property list can hold "
                + "each key once.")
        }
    }

    /// A `plist.cannot-encode` error at the value being written.
    func cannotEncode(_ message: String) -> Diagnostic {
        .error(.plistCannotEncode, message, at: location)
    }

    /// The key path of the value being written; none at the top.
    private var location: Diagnostic.Location {
        Diagnostic.Location(path: path.isEmpty ? nil : path.dotted)
    }
}

extension Diagnostic.Code {
    /// A property list holds a value the format asked for cannot carry (a date in JSON, a control character in
    /// XML…), or a dictionary gives a key twice.
    package static let plistCannotEncode = Self("plist.cannot-encode")
}
