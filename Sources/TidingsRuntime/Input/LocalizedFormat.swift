/// Apple's localized-format substitution for `*-loc-key` / `*-loc-args`.
package enum LocalizedFormat {
    /// Replaces `%@` with the next argument and `%n$@` with the n-th; `%%` is a percent sign.
    package static func substitute(_ format: String, _ arguments: [String]) -> String {
        var result = ""
        var next = 0
        var characters = format[...]
        while let percent = characters.firstIndex(of: "%") {
            result += characters[..<percent]
            characters = characters[characters.index(after: percent)...]
            if characters.first == "%" {
                result += "%"
                characters = characters.dropFirst()
            } else if characters.first == "@" {
                result += next < arguments.count ? arguments[next] : ""
                next += 1
                characters = characters.dropFirst()
            } else if let dollar = characters.firstIndex(of: "$"),
                      let position = Int(characters[..<dollar]), characters[characters.index(after: dollar)...].first == "@" {
                result += position >= 1 && position <= arguments.count ? arguments[position - 1] : ""
                characters = characters[characters.index(dollar, offsetBy: 2)...]
            } else {
                result += "%"
            }
        }
        return result + characters
    }
}
