import TidingsProtocol
/// One delivery, as shown. A delivery is told apart from a later one of the
/// same app and request identifier by its identity.
package final class DeliveredNotification: Sendable {
    /// The notification delivered.
    package let notification: UserNotification
    /// The app it is addressed to.
    package let app: String
    /// The content width, in points.
    package let width: Double
    /// The content extension whose interface opens for it; nil when none serves it.
    package let target: RouteTarget?
    /// Its place in the order of deliveries (`DeliveredSet.takeNumber()`).
    package let number: UInt64
    /// Delivered quietly (provisional authorization): listed, no banner, no sound.
    package let quiet: Bool
    /// How it is presented (all options unless its app, in the foreground, chose).
    package let options: PresentationOptions

    /// A delivery of `notification` to `app` at `width`, whose expanded
    /// interface `target` serves, `number` in the order of deliveries;
    /// `quiet` when its app's policy lists it without a banner, presented with `options`.
    package init(notification: UserNotification, app: String, width: Double, target: RouteTarget?, number: UInt64,
                 quiet: Bool = false, options: PresentationOptions = .all) {
        self.notification = notification
        self.app = app
        self.width = width
        self.target = target
        self.number = number
        self.quiet = quiet
        self.options = options
    }

    /// Its request identifier.
    package var identifier: String { notification.identifier }

    /// Its app and request identifier, which name it among those shown.
    package var key: NotificationKey { NotificationKey(app: app, identifier: notification.identifier) }

    /// True when `other` is of the same app, of the same (non-empty)
    /// thread, and served by the same extension: a thread-mate, whose open
    /// interface it is passed to.
    func isThreadMate(of other: DeliveredNotification) -> Bool {
        let thread = notification.content.threadIdentifier
        return !thread.isEmpty && thread == other.notification.content.threadIdentifier && app == other.app
            && target != nil && target?.manifest.bundleIdentifier == other.target?.manifest.bundleIdentifier
    }
}
