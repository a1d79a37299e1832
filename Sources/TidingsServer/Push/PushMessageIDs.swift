import TidingsBase

/// The ids of the push messages a registration has accepted, the last
/// `limit` of them (1,024 by default), so that a message the distributor
/// hands again — a retry, a replay — is delivered once. Kept with the
/// registration, across restarts. A message without an id is never remembered.
package struct PushMessageIDs: Sendable, Equatable {
    /// How many ids are remembered unless told otherwise.
    package static let defaultLimit = 1_024

    /// The ids remembered, oldest first.
    package private(set) var ids: [String]
    /// The same ids, for looking up.
    private var known: Set<String>
    /// The most remembered; one more forgets the oldest.
    package let limit: Int

    /// The ids `ids` (oldest first; beyond `limit`, the latest kept).
    package init(_ ids: [String] = [], limit: Int = defaultLimit) {
        self.limit = max(1, limit)
        var kept: [String] = []
        var known: Set<String> = []
        for id in ids.suffix(self.limit) where known.insert(id).inserted { kept.append(id) }
        self.ids = kept
        self.known = known
    }

    /// Whether `id` was accepted before.
    package func contains(_ id: String) -> Bool { known.contains(id) }

    /// Remembers `id`, forgetting the oldest beyond the limit; false when it was remembered already.
    @discardableResult
    package mutating func insert(_ id: String) -> Bool {
        guard known.insert(id).inserted else { return false }
        ids.append(id)
        if ids.count > limit {
            known.remove(ids.removeFirst())
        }
        return true
    }

    /// The ids as the registrations file keeps them, oldest first.
    package var json: JSON { .array(ids.map(JSON.string)) }
}
