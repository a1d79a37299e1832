/// The most notifications a host keeps shown: of each app, and in all. A
/// delivery beyond either expires the oldest of an app — its own app's
/// beyond `perApp`, the app showing the most beyond `total` — so that one
/// app's flood of notifications expires its own and never another app's.
package struct KeptLimits: Sendable, Equatable {
    /// The most kept of each app (at least 1); nil: no limit per app.
    package var perApp: Int?
    /// The most kept in all (at least 1); nil: no limit in all.
    package var total: Int?

    /// Limits of `perApp` per app and `total` in all; nil for none.
    package init(perApp: Int? = nil, total: Int? = nil) {
        self.perApp = perApp
        self.total = total
    }
}

extension KeptLimits {
    /// Of `lists` (each app's, in the order kept), the app whose oldest goes
    /// while more are kept in all than allowed: the app keeping the most — of
    /// two keeping as many, the one that kept one last (the flood, not an app
    /// that stayed quiet) — passing over an app whose oldest is the one being
    /// kept now (`newcomer`), so that a flood of apps with one each expires
    /// the flood's. Nil when no other can go. An app `arriving` is counted
    /// with one more kept, kept last: the newcomer, not in its list yet.
    package static func appToGiveUpItsOldest<Element>(of lists: [String: SequencedList<Element>],
                                                      keeping newcomer: UInt64, arriving: String? = nil) -> String? {
        var chosen: (app: String, count: Int, last: UInt64)?
        for (app, list) in lists {
            guard let oldest = list.first, oldest.key != newcomer else { continue }
            let (count, last) = app == arriving ? (list.count + 1, UInt64.max) : (list.count, list.lastKey ?? 0)
            if let current = chosen, count < current.count || (count == current.count && last <= current.last) {
                continue
            }
            chosen = (app, count, last)
        }
        return chosen?.app
    }
}
