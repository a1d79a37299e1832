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
        var result = ""
        var next = 0
        var characters = format[...]
        while let percent = characters.firstIndex(of: "%") {
            result += characters[..<percent]
            characters = characters[characters.index(after: percent)...]
            if characters.first == "%" {
                result += "%"
                characters = characters.dropFirst()
                continue
            }
            var specification = characters
            var position: Int?
            if let dollar = specification.firstIndex(of: "$"), let given = Int(specification[..<dollar]) {
                position = given
                specification = specification[specification.index(after: dollar)...]
            }
            specification = specification.drop { $0 == "l" }
            guard let conversion = specification.first, conversions.contains(conversion) else {
                result += "%"
                continue
            }
            let index = position.map { $0 - 1 } ?? next
            if position == nil { next += 1 }
            result += arguments.indices.contains(index) ? arguments[index] : ""
            characters = specification.dropFirst()
        }
        return result + characters
    }
}
