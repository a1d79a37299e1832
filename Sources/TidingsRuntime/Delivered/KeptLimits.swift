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
