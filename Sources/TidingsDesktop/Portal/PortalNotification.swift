/// A notification as `org.freedesktop.impl.portal.Notification.AddNotification`
/// hands it over (its `a{sv}`), checked: every key of the portal's versions
/// 1 and 2 that Tidings maps, each of the type the specification gives and
/// within `PortalLimits`. Keys it does not know are named in `ignored`.
struct PortalNotification: Equatable, Sendable {
    /// A button: its label, the app's action and the action's target.
    struct Button: Equatable, Sendable {
        /// What the button says.
        var label: String
        /// The app's action (`app.take`), handed back in ActionInvoked.
        var action: String
        /// The action's parameter, handed back in ActionInvoked's `av`.
        var target: BusValue?
    }

    /// `title`.
    var title = ""
    /// `body`, or `markup-body` with its markup taken out.
    var body = ""
    /// `icon`: a serialized GIcon.
    var icon: PortalIcon?
    /// `priority`: `low`, `normal`, `high` or `urgent`.
    var priority: String?
    /// `default-action`: the app's action run when the notification itself is clicked.
    var defaultAction: String?
    /// `default-action-target`.
    var defaultActionTarget: BusValue?
    /// `buttons`, in order.
    var buttons: [Button] = []
    /// `category` (version 2): a category of the app's, or one of the portal's (`im.received`, …).
    var category: String?
    /// `display-hint` (version 2): `transient`, `tray`, `persistent`, … kept, not acted on.
    var displayHints: [String] = []
    /// `sound` (version 2): true for `default`, false for `silent`, nil when absent or of another form.
    var sound: Bool?
    /// The keys not mapped (unknown, or of a form Tidings does not take), for the log.
    var ignored: [String] = []
}

/// How much a portal notification may carry: the portal's callers are
/// other people's apps, and what is past these bounds is refused.
enum PortalLimits {
    /// The longest app id and notification id, in bytes (a bus name's bound).
    static let identifier = 255
    /// The longest title, body, label or action name, in bytes.
    static let text = 16 * 1024
    /// The most buttons (as many as the front end offers: `ActionTable.actionLimit`).
    static let buttons = 10
    /// The largest icon given as bytes.
    static let iconBytes = 4 * 1024 * 1024
    /// The most display hints.
    static let displayHints = 16
    /// The largest target, as the JSON it is kept as, in bytes.
    static let target = 4 * 1024
}

/// Why a portal call was refused: the D-Bus error the caller gets.
struct PortalRefusal: Error, Equatable, Sendable {
    /// What was wrong.
    var sentence: String
    /// The error as the portal's caller receives it.
    var busError: BusError { BusError(BusError.callFailed, name: "org.freedesktop.DBus.Error.InvalidArgs", sentence) }
}
