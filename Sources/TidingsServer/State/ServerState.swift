import TidingsBase
import TidingsRuntime

/// Where a server keeps what must survive a restart: each app's registered
/// categories, and the notifications delivered and not yet dismissed.
///
/// Every `record…` method returns once the change is safe from the server's
/// own death (`kill -9` included), before the call that made it is answered.
package protocol ServerState: Sendable {
    /// What was kept when the server started.
    var kept: KeptState { get }
    /// `app` registered `categories`, replacing those it had.
    func recordCategories(_ categories: [NotificationCategory], of app: String)
    /// `notification` was delivered to `app` at `width`, replacing one of its identifier.
    func recordDelivery(of notification: UserNotification, to app: String, width: Double)
    /// The notifications `identifiers` left the screen.
    func recordRemoval(of identifiers: [String])
}

/// What a server kept from before it started.
package struct KeptState: Sendable {
    /// Each app's categories.
    package var categories: [(app: String, categories: [NotificationCategory])] = []
    /// The notifications delivered and not dismissed, in the order they were delivered.
    package var delivered: [(app: String, notification: UserNotification, width: Double)] = []
    /// What was repaired or could not be read back.
    package var diagnostics: [Diagnostic] = []

    /// Nothing kept.
    package init() {}
}
