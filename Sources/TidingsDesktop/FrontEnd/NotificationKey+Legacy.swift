import TidingsProtocol

extension NotificationKey {
    /// The key of an entry an older `desktop.json` kept without its app (it
    /// named identifiers only) with this identifier: its app is empty until
    /// a delivery or a re-list says whose it is (`ShownNotifications.adopt`).
    package var legacy: NotificationKey { NotificationKey(app: "", identifier: identifier) }
}
