/// The D-Bus specification's rules for a well-known bus name, which an app
/// identifier must follow to be the app's bus name (`com.example.events`).
package enum BusName {
    /// The longest name the bus accepts.
    static let maximumLength = 255

    /// True when `name` is a valid well-known bus name: at most 255
    /// characters; two or more elements separated by `.`, each one or more
    /// of `[A-Za-z0-9_-]` and not starting with a digit.
    package static func isWellKnown(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.first, !isDigit(first) else { return false }
            return element.allSatisfy { isDigit($0) || isLetter($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}
