/// The action identifiers the system defines (UNNotificationDefaultActionIdentifier and friends).
package enum ActionIdentifier {
    /// The user opened the notification.
    package static let `default` = "com.apple.UNNotificationDefaultActionIdentifier"
    /// The user explicitly dismissed it; sent only for categories with customDismissAction.
    package static let dismiss = "com.apple.UNNotificationDismissActionIdentifier"
    /// The user asked for the app's notification settings from the
    /// notification (a front end's "Settings"): the app's delegate's
    /// `openSettingsFor`. Tidings's own: iOS's Settings app calls the delegate.
    package static let settings = "tidings.settings"

    /// The action a front end names `name`: "default" (or "open") and
    /// "dismiss" stand for Apple's identifiers, unless the notification
    /// offers an action so named (`offered`); any other name is itself.
    package static func named(_ name: String, offered: [String]) -> String {
        if offered.contains(name) { return name }
        switch name {
        case "default", "open": return Self.default
        case "dismiss": return dismiss
        default: return name
        }
    }
}
