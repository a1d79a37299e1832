/// How a content extension answers a response, with Apple's raw values
/// (UNNotificationContentExtensionResponseOption).
package enum ResponseOption: Int32, Sendable, CaseIterable {
    /// Keep showing the notification; the extension handled the action.
    case doNotDismiss = 0
    /// Close the notification; the extension handled the action.
    case dismiss = 1
    /// Close the notification and forward the action to the app.
    case dismissAndForwardAction = 2

    /// Apple's spelling: `doNotDismiss`, `dismiss`, `dismissAndForwardAction`.
    package var name: String {
        switch self {
        case .doNotDismiss: "doNotDismiss"
        case .dismiss: "dismiss"
        case .dismissAndForwardAction: "dismissAndForwardAction"
        }
    }
}

/// The action identifiers the system defines (UNNotificationDefaultActionIdentifier and friends).
package enum ActionIdentifier {
    /// The user opened the notification.
    package static let `default` = "com.apple.UNNotificationDefaultActionIdentifier"
    /// The user explicitly dismissed it; sent only for categories with customDismissAction.
    package static let dismiss = "com.apple.UNNotificationDismissActionIdentifier"

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
