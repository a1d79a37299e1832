import TidingsBase

/// The portal's ActionInvoked for a response Tidings forwarded: the
/// portal's app id and id, and the app's action with its target, read back
/// from the notification's `userInfo` marker (`PortalDelivery.marker`).
package struct PortalInvocation: Equatable, Sendable {
    /// The portal's app id ("" for a host app).
    package var appID: String
    /// The portal's id of the notification.
    package var id: String
    /// The app's action.
    package var action: String
    /// Its target: ActionInvoked's `av` holds it, or nothing.
    package var target: BusValue?

    /// An invocation of `action` (with `target`) on the portal's `id` of `appID`.
    package init(appID: String, id: String, action: String, target: BusValue?) {
        self.appID = appID
        self.id = id
        self.action = action
        self.target = target
    }

    /// The action without its `app.` prefix when it is one the app exports
    /// on `org.freedesktop.Application` (GApplication's actions); nil otherwise.
    package var exportedAction: String? {
        guard action.hasPrefix("app."), action.count > 4 else { return nil }
        return String(action.dropFirst(4))
    }

    /// True when a forwarded `notification` came from the portal (its `userInfo` has the marker).
    package static func isPortal(_ notification: JSON?) -> Bool {
        notification?["userInfo"]?[PortalDelivery.marker]?["id"]?.stringValue != nil
    }

    /// The invocation for the response to `notification` with `actionIdentifier`;
    /// nil when nothing is to be sent: a dismissal, the default action of a
    /// notification without `default-action`, a notification not the portal's
    /// or a marker not as the front end wrote it.
    package init?(notification: JSON?, actionIdentifier: String) {
        guard let marker = notification?["userInfo"]?[PortalDelivery.marker],
              let appID = marker["appID"]?.stringValue, let id = marker["id"]?.stringValue else { return nil }
        self.appID = appID
        self.id = id
        let chosen: JSON?
        switch actionIdentifier {
        case "com.apple.UNNotificationDismissActionIdentifier":
            return nil
        case "com.apple.UNNotificationDefaultActionIdentifier":
            chosen = marker["defaultAction"]
        default:
            if actionIdentifier.hasPrefix("button-"), let index = Int(actionIdentifier.dropFirst("button-".count)),
               let buttons = marker["buttons"]?.arrayValue, buttons.indices.contains(index) {
                chosen = buttons[index]
            } else {
                // An action of the app's own category (the portal's `category` named it).
                chosen = .object([("action", .string(actionIdentifier))])
            }
        }
        guard let action = chosen?["action"]?.stringValue, !action.isEmpty else { return nil }
        self.action = action
        target = chosen?["target"].flatMap { PortalTarget.value($0) }
    }
}
