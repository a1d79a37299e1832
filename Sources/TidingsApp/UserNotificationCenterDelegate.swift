/// What the app does with notifications that reach it
/// (`UNUserNotificationCenterDelegate`, and the app delegate's background wake).
///
/// Every method has a default, as Apple's are optional. Each event comes in
/// Apple's two shapes: the completion-handler method, which the center calls,
/// and the `async` one, which the completion-handler method's default runs
/// (calling the handler when it returns). Implement one of the two.
public protocol UserNotificationCenterDelegate: AnyObject, Sendable {
    /// A notification arrives while the app is in the foreground
    /// (`userNotificationCenter(_:willPresent:withCompletionHandler:)`): call
    /// `completionHandler` with how to present it (none: not presented). The
    /// host waits a short while (1 s by default) and presents nothing without
    /// an answer. By default: runs the `async` method.
    func userNotificationCenter(_ center: UserNotificationCenter, willPresent notification: UserNotification,
                                withCompletionHandler completionHandler: @escaping @Sendable (PresentationOptions) -> Void)
    /// How to present a notification arriving in the foreground, the `async`
    /// shape of the method above. By default: not presented (`[]`), as on iOS
    /// without the method.
    func userNotificationCenter(_ center: UserNotificationCenter,
                                willPresent notification: UserNotification) async -> PresentationOptions
    /// The user answered a notification (an action, opening it, or a custom
    /// dismissal), `userNotificationCenter(_:didReceive:withCompletionHandler:)`.
    /// The response stays in the app's inbox until `completionHandler` is
    /// called: one not called (the app ended first, or dropped the handler)
    /// is handed again, to the next center of the app, with the same
    /// ``NotificationResponse/inboxIdentifier``. Responses are handed one at a
    /// time, the next once the handler is called or dropped. By default: runs
    /// the `async` method and calls the handler when it returns.
    func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse,
                                withCompletionHandler completionHandler: @escaping @Sendable () -> Void)
    /// The user answered a notification, the `async` shape of the method
    /// above: the response is taken from the inbox once this returns. By
    /// default: does nothing (the response is taken).
    func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse) async
    /// The user asked for the app's notification settings from a
    /// notification (`userNotificationCenter(_:openSettingsFor:)`): a
    /// response of action ``NotificationResponse/openSettingsActionIdentifier``,
    /// a front end's "Settings" action for an app that asked for
    /// ``AuthorizationOptions/providesAppNotificationSettings``. Such a
    /// response is taken when this returns and never reaches `didReceive`;
    /// the notification stays. A front end sends it with `notifications.respond`
    /// (the desktop front end's "Settings" button). By default: does nothing.
    func userNotificationCenter(_ center: UserNotificationCenter, openSettingsFor notification: UserNotification?) async
    /// A background notification (`content-available`) woke the app
    /// (`application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`);
    /// taken from its inbox once this returns. By default: does nothing.
    func didReceiveBackgroundNotification(_ notification: UserNotification) async
    /// The app is registered for remote notifications and this is where its
    /// server pushes to
    /// (`application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`):
    /// hand `deviceToken` (its ``DeviceToken/json``) to the app's server.
    /// Called once per ``UserNotificationCenter/registerForRemoteNotifications()``
    /// whose registration has its endpoint, else when the endpoint arrives,
    /// and again whenever the endpoint changes (another distributor, a
    /// distributor that registered anew). By default: does nothing.
    func didRegisterForRemoteNotifications(withDeviceToken deviceToken: DeviceToken) async
    /// Registering for remote notifications failed, or the registration
    /// ended (`application(_:didFailToRegisterForRemoteNotificationsWithError:)`):
    /// ``UserNotificationError/Code/noPushDistributor`` (no UnifiedPush
    /// distributor on the bus: the message says what to install),
    /// ``UserNotificationError/Code/noPushFrontEnd`` (no `tidings desktop`
    /// runs yet; the endpoint comes once one does),
    /// ``UserNotificationError/Code/pushRegistrationFailed`` (the distributor
    /// refused) or ``UserNotificationError/Code/pushUnregistered`` (the
    /// distributor ended it). By default: does nothing.
    func didFailToRegisterForRemoteNotifications(withError error: UserNotificationError) async
}

extension UserNotificationCenterDelegate {
    /// Runs the `async` `willPresent` method and calls `completionHandler` with its options.
    public func userNotificationCenter(_ center: UserNotificationCenter, willPresent notification: UserNotification,
                                       withCompletionHandler completionHandler: @escaping @Sendable (PresentationOptions) -> Void) {
        // On the center's own executor: an unstructured task inherits no preference.
        Task(executorPreference: center.executor) {
            completionHandler(await self.userNotificationCenter(center, willPresent: notification))
        }
    }

    /// Presents nothing in the foreground.
    public func userNotificationCenter(_ center: UserNotificationCenter,
                                       willPresent notification: UserNotification) async -> PresentationOptions {
        []
    }

    /// Runs the `async` `didReceive` method and calls `completionHandler` when it returns.
    public func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse,
                                       withCompletionHandler completionHandler: @escaping @Sendable () -> Void) {
        Task(executorPreference: center.executor) {
            await self.userNotificationCenter(center, didReceive: response)
            completionHandler()
        }
    }

    /// Does nothing: the response is taken from the inbox.
    public func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse) async {}

    /// Does nothing.
    public func userNotificationCenter(_ center: UserNotificationCenter, openSettingsFor notification: UserNotification?) async {}

    /// Ignores background notifications (they are still taken from the inbox).
    public func didReceiveBackgroundNotification(_ notification: UserNotification) async {}

    /// Does nothing.
    public func didRegisterForRemoteNotifications(withDeviceToken deviceToken: DeviceToken) async {}

    /// Does nothing.
    public func didFailToRegisterForRemoteNotifications(withError error: UserNotificationError) async {}
}
