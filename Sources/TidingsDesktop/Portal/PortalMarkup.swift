/// `markup-body`'s markup taken out: the portal allows `<b>`, `<i>`, `<a href>`
/// and the five XML entities; Tidings' body is plain text (the front end
/// escapes it again for a server that shows markup).
package enum PortalMarkup {
    /// `markup` without its tags, its entities replaced by their characters.
    package static func plain(_ markup: String) -> String {
        var text = ""
        var inTag = false
        for character in markup {
            switch character {
            case "<": inTag = true
            case ">" where inTag: inTag = false
            default: if !inTag { text.append(character) }
            }
        }
        // `&amp;` last, so that `&amp;lt;` becomes `&lt;`, as the markup meant.
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            text = text.replacing(entity, with: character)
        }
        return text
    }
}
