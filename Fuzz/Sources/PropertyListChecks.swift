import TidingsBase
import TidingsManifest

/// The property-list readers (the format is told by the content, so one check
/// serves the XML, binary and JSON targets; each has its own seeds), manifest
/// validation, and the writers' promise: whatever they write reads back,
/// through `PropertyList.decode`, as an equal value in the format asked for
/// (NaN aside; XML dates in whole seconds), or they throw.
enum PropertyListChecks {
    static func check(_ bytes: [UInt8]) {
        guard let document = try? PropertyList.decode(bytes) else { return }
        _ = Manifest.validate(document.value)
        for format in PropertyListFormat.allCases {
            guard let written = try? PropertyListEncoding.encode(document.value, as: format) else { continue }
            guard let again = try? PropertyList.decode(written) else {
                preconditionFailure("what the \(format) writer wrote does not read back")
            }
            precondition(again.format == format, "what the \(format) writer wrote reads as \(again.format)")
            precondition(matches(again.value, document.value, format), "what the \(format) writer wrote reads back as another value")
        }
    }

    /// True when `read` is what writing `original` in `format` promises to read back.
    private static func matches(_ read: PropertyList, _ original: PropertyList, _ format: PropertyListFormat) -> Bool {
        switch (read, original) {
        case let (.real(a), .real(b)): a == b || a.isNaN && b.isNaN
        case let (.date(a), .date(b)) where format == .xml:
            a == (b + ISO8601.referenceDateOffset).rounded(.down) - ISO8601.referenceDateOffset
        case let (.date(a), .date(b)): a == b || a.isNaN && b.isNaN
        case let (.array(a), .array(b)):
            a.count == b.count && zip(a, b).allSatisfy { matches($0, $1, format) }
        case let (.dictionary(a), .dictionary(b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && matches($0.1, $1.1, format) }
        default: read == original
        }
    }
}
