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

    /// The edit distance between two strings, by Unicode scalar, counting an
    /// insertion, a deletion, a substitution or a swap of neighbours as one
    /// edit (optimal string alignment), since swapped letters are the
    /// commonest typing slip.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
