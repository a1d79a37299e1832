extension String {
    /// The longest prefix of the text that is at most `limit` bytes of
    /// UTF-8, cut on a character's boundary (a character is never split).
    package func cut(toUTF8Bytes limit: Int) -> String {
        guard utf8.count > limit else { return self }
        var kept = ""
        for character in self {
            guard kept.utf8.count + character.utf8.count <= limit else { break }
            kept.append(character)
        }
        return kept
    }
}
