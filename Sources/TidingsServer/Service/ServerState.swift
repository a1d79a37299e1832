import TidingsRuntime

/// Where a server keeps what must survive a restart: each app's registered
/// categories, and the notifications delivered and not yet dismissed.
///
/// Every method returns once the change is safe from the server's own
/// death (`kill -9` included), before the call that made it is answered.
package protocol ServerState: Sendable {
    /// `app` registered `categories`, replacing those it had.
    func recordCategories(_ categories: [NotificationCategory], of app: String)
    /// `notification` was delivered to `app` at `width`, replacing one of its identifier.
    func recordDelivery(of notification: UserNotification, to app: String, width: Double)
    /// The notifications `identifiers` left the screen.
    func recordRemoval(of identifiers: [String])
}
