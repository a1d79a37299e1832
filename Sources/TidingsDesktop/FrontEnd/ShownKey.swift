/// What names a notification on the front end's side: its app and its
/// identifier. Two apps may both have `dose-1` delivered, so everything the
/// front end shows, answers or opens a window for is keyed by the two.
package struct ShownKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The app; empty for an entry an older `desktop.json` kept (it named identifiers only)
    /// until a delivery or a re-list says whose it is (`ShownNotifications.adopt`).
    package var app: String
    /// The notification's identifier, as its app gave it.
    package var identifier: String

    /// The notification `identifier` of `app`.
    package init(app: String, identifier: String) {
        self.app = app
        self.identifier = identifier
    }

    /// The key of an entry kept without its app (an older `desktop.json`) with this identifier.
    package var legacy: ShownKey { ShownKey(app: "", identifier: identifier) }

    /// By app, then identifier (the order `desktop.json` is written in).
    package static func < (left: ShownKey, right: ShownKey) -> Bool {
        (left.app, left.identifier) < (right.app, right.identifier)
    }

    /// `identifier` of `app`, for the log.
    package var description: String { app.isEmpty ? identifier : "\(identifier) of \(app)" }
}
