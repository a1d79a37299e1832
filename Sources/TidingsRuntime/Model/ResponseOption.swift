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
