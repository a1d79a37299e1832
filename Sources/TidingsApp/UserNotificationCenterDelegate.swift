/// What the app does with notifications that reach it
/// (`UNUserNotificationCenterDelegate`, and the app delegate's background wake).
public protocol UserNotificationCenterDelegate: AnyObject, Sendable {
    /// A notification arrives while the app is in the foreground: how to
    /// present it (none: not presented). The host waits a short while
    /// (1 s by default) and presents nothing without an answer.
    func willPresent(_ notification: UserNotification) async -> PresentationOptions
    /// The user answered a notification (an action, opening it, or a custom
    /// dismissal): the response forwarded to the app, taken from its inbox
    /// once this returns.
    func didReceive(_ response: NotificationResponse) async
    /// A background notification (`content-available`) woke the app
    /// (`application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`);
    /// taken from its inbox once this returns. Does nothing unless implemented.
    func didReceiveBackgroundNotification(_ notification: UserNotification) async
}

extension UserNotificationCenterDelegate {
    /// Ignores background notifications (they are still taken from the inbox).
    public func didReceiveBackgroundNotification(_ notification: UserNotification) async {}
}
