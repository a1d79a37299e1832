/// Apple's localized-format substitution, for `*-loc-key` / `*-loc-args` and
/// for a category's summary format and hidden-previews placeholder.
package enum LocalizedFormat {
    /// Replaces each conversion with the next argument, or with the n-th
    /// for `%n$…`; `%%` is a percent sign. The conversions are those
    /// `conversions` names, each with optional `l` or `ll` lengths: `%@` (an
    /// object) alone by default, as loc-args take; `"@uid"` adds numbers
    /// (`%u`, `%d`, `%i`, an argument given as its text), as a summary format
    /// takes. Anything else after a `%` stays as it is.
    package static func substitute(_ format: String, _ arguments: [String], conversions: String = "@") -> String {
        // Bytes, not characters: every byte the format's syntax uses is ASCII.
        let allowed = Array(conversions.utf8)
        var format = format
        let result = format.withUTF8 { bytes -> [UInt8] in
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count + 32)
            var next = 0
            var index = 0
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "%") else {
                    result.append(bytes[index])
                    index += 1
                    continue
                }
                var cursor = index + 1
                if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "%") {
                    result.append(UInt8(ascii: "%"))
                    index = cursor + 1
                    continue
                }
                var position: Int?
                if let dollar = bytes[cursor...].firstIndex(of: UInt8(ascii: "$")),
                   let given = Int(String(decoding: bytes[cursor..<dollar], as: UTF8.self)) {
                    position = given
                    cursor = dollar + 1
                }
                while cursor < bytes.count, bytes[cursor] == UInt8(ascii: "l") { cursor += 1 }
                guard cursor < bytes.count, allowed.contains(bytes[cursor]) else {
                    result.append(UInt8(ascii: "%"))
                    index += 1
                    continue
                }
                let argument = position.map { $0 - 1 } ?? next
                if position == nil { next += 1 }
                if arguments.indices.contains(argument) { result.append(contentsOf: arguments[argument].utf8) }
                index = cursor + 1
            }
            return result
        }
        return String(decoding: result, as: UTF8.self)
    }
}
