/// A notification as `org.freedesktop.impl.portal.Notification.AddNotification`
/// hands it over (its `a{sv}`), checked: every key of the portal's versions
/// 1 and 2 that Tidings maps, each of the type the specification gives and
/// within `PortalLimits`. Keys it does not know are named in `ignored`.
package struct PortalNotification: Equatable, Sendable {
    /// A button: its label, the app's action and the action's target.
    package struct Button: Equatable, Sendable {
        /// What the button says.
        package var label: String
        /// The app's action (`app.take`), handed back in ActionInvoked.
        package var action: String
        /// The action's parameter, handed back in ActionInvoked's `av`.
        package var target: BusValue?
    }

    /// `title`.
    package var title = ""
    /// `body`, or `markup-body` with its markup taken out.
    package var body = ""
    /// `icon`: a serialized GIcon.
    package var icon: PortalIcon?
    /// `priority`: `low`, `normal`, `high` or `urgent`.
    package var priority: String?
    /// `default-action`: the app's action run when the notification itself is clicked.
    package var defaultAction: String?
    /// `default-action-target`.
    package var defaultActionTarget: BusValue?
    /// `buttons`, in order.
    package var buttons: [Button] = []
    /// `category` (version 2): a category of the app's, or one of the portal's (`im.received`, …).
    package var category: String?
    /// `display-hint` (version 2): `transient`, `tray`, `persistent`, … kept, not acted on.
    package var displayHints: [String] = []
    /// `sound` (version 2): true for `default`, false for `silent`, nil when absent or of another form.
    package var sound: Bool?
    /// The keys not mapped (unknown, or of a form Tidings does not take), for the log.
    package var ignored: [String] = []
}

/// How much a portal notification may carry: the portal's callers are
/// other people's apps, and what is past these bounds is refused.
package enum PortalLimits {
    /// The longest app id and notification id, in bytes (a bus name's bound).
    package static let identifier = 255
    /// The longest title, body, label or action name, in bytes.
    package static let text = 16 * 1024
    /// The most buttons (as many as the front end offers: `ActionTable.actionLimit`).
    package static let buttons = 10
    /// The largest icon given as bytes.
    package static let iconBytes = 4 * 1024 * 1024
    /// The most display hints.
    package static let displayHints = 16
    /// The largest target, as the JSON it is kept as, in bytes.
    package static let target = 4 * 1024
}

/// Why a portal call was refused: the D-Bus error the caller gets.
package struct PortalRefusal: Error, Equatable, Sendable {
    /// What was wrong.
    package var sentence: String
    /// The error as the portal's caller receives it.
    package var busError: BusError { BusError(BusError.callFailed, name: "org.freedesktop.DBus.Error.InvalidArgs", sentence) }
}
