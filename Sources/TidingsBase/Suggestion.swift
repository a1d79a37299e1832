/// "Did you mean …?" for misspelt names: keys, commands, identifiers.
package enum Suggestion {
    /// The candidate closest to `word` by edit distance, when it is close
    /// enough to be a likely misspelling (at most a third of its length, and
    /// at most `limit` edits).
    package static func closest(to word: String, among candidates: some Sequence<String>, limit: Int = 4) -> String? {
        let bound = min(limit, max(1, word.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let distance = editDistance(word, candidate)
            if distance <= bound, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// The Levenshtein distance between two strings, by Unicode scalar.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
