/// What names one delivered notification: its app and its request
/// identifier. Two apps may each have a notification `dose-1` shown; each is
/// replaced, removed, answered and opened apart from the other — by the
/// server, and by the front ends that show, answer and open them.
package struct NotificationKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The app the notification is addressed to.
    package var app: String
    /// The notification's request identifier, unique within its app.
    package var identifier: String

    /// The key of `app`'s notification `identifier`.
    package init(app: String, identifier: String) {
        self.app = app
        self.identifier = identifier
    }

    /// True when `lhs` comes first: by app, then by identifier.
    package static func < (lhs: NotificationKey, rhs: NotificationKey) -> Bool {
        (lhs.app, lhs.identifier) < (rhs.app, rhs.identifier)
    }

    /// `"identifier" of app`, as messages name it (`"identifier"` alone when
    /// the app is not known, as for a front end's entry kept before keys named apps).
    package var description: String { app.isEmpty ? "\"\(identifier)\"" : "\"\(identifier)\" of \(app)" }
}
