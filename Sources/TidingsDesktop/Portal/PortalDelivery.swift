import TidingsBase

/// What a portal notification becomes in Tidings: the app it is delivered
/// to, the request payload (`notifications.deliver`), and the category its
/// buttons need. The portal's own names (app id, id, actions, targets) ride
/// in the payload's `userInfo` under `PortalDelivery.marker`, so that the
/// person's answer goes back as the portal's ActionInvoked even after
/// either process restarted.
package struct PortalDelivery: Equatable, Sendable {
    /// The `userInfo` key that marks a notification the portal delivered.
    package static let marker = "tidings.portal"
    /// The app of a portal notification whose app id is empty: a host app
    /// the portal cannot name (xdg-desktop-portal 1.16 gives every unsandboxed
    /// app the empty id). They share it, as they share the portal's ("", id) key.
    package static let hostApp = "org.freedesktop.portal.host"
    /// The prefix of the categories made for buttons.
    package static let categoryPrefix = "tidings.portal."
    /// The identifier of button `index`'s action in its category.
    package static func buttonAction(_ index: Int) -> String { "button-\(index)" }

    /// The Tidings app: the portal's app id, or `hostApp` for the empty one.
    package var app: String
    /// The notification's identifier: the portal's id.
    package var identifier: String
    /// The request payload.
    package var payload: JSON
    /// The file a bytes icon was written to, delivered as its attachment (moved into the server's store).
    package var iconPath: String?
    /// The category the buttons need registered for `app`, when there are buttons
    /// and the portal's `category` names none of the app's.
    package var category: JSON?

    /// The delivery of `notification`, added by the portal as `appID`'s `id`;
    /// `appCategories` are the categories `app` registered (the portal's
    /// `category` routes to one of them), `iconPath` the file a bytes icon was written to.
    package init(appID: String, id: String, _ notification: PortalNotification, appCategories: Set<String>, iconPath: String?) {
        app = appID.isEmpty ? Self.hostApp : appID
        identifier = id
        self.iconPath = iconPath
        var marker: [(String, JSON)] = [("appID", .string(appID)), ("id", .string(id))]
        if let action = notification.defaultAction {
            marker.append(("defaultAction", Self.action(action, notification.defaultActionTarget)))
        }
        marker.append(("buttons", .array(notification.buttons.map { Self.action($0.action, $0.target) })))
        if case .themed(let names)? = notification.icon { marker.append(("icon", .array(names.map(JSON.string)))) }
        if let category = notification.category { marker.append(("category", .string(category))) }
        if !notification.displayHints.isEmpty { marker.append(("displayHints", .array(notification.displayHints.map(JSON.string)))) }

        var content: [(String, JSON)] = [("title", .string(notification.title)), ("body", .string(notification.body))]
        if let level = Self.interruptionLevel(notification.priority) { content.append(("interruptionLevel", .string(level))) }
        if notification.sound != false { content.append(("sound", .string("default"))) }
        if let named = notification.category, appCategories.contains(named) {
            content.append(("categoryIdentifier", .string(named)))
        } else if !notification.buttons.isEmpty {
            let identifier = Self.categoryIdentifier(notification.buttons.map(\.label))
            content.append(("categoryIdentifier", .string(identifier)))
            category = .object([
                ("identifier", .string(identifier)),
                ("actions", .array(notification.buttons.enumerated().map { index, button in
                    .object([("identifier", .string(Self.buttonAction(index))), ("title", .string(button.label))])
                })),
            ])
        }
        if let iconPath { content.append(("attachments", .array([.object([("identifier", .string("icon")), ("path", .string(iconPath))])]))) }
        content.append(("userInfo", .object([(Self.marker, .object(marker))])))
        payload = .object([("identifier", .string(id)), ("content", .object(content))])
    }

    /// The first theme icon name a portal notification (as delivered, its
    /// `userInfo` marker) carries, checked again (the `userInfo` is anyone's
    /// to write); nil for none.
    package static func themedIcon(of notification: JSON?) -> String? {
        guard let name = notification?["userInfo"]?[marker]?["icon"]?.arrayValue?.first?.stringValue,
              DesktopText.name(name) == name, !name.contains("/") else { return nil }
        return name
    }

    /// The interruption level of a portal priority: low is passive, high
    /// time-sensitive, urgent critical; normal (or none) the default, active.
    package static func interruptionLevel(_ priority: String?) -> String? {
        switch priority {
        case "low": "passive"
        case "normal": "active"
        case "high": "time-sensitive"
        case "urgent": "critical"
        default: nil
        }
    }

    /// The category of buttons labelled `labels`: one per set of labels (FNV-1a of them), so that
    /// notifications with the same buttons share it.
    package static func categoryIdentifier(_ labels: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in labels.joined(separator: "\u{1F}").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return categoryPrefix + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// An action and its target, as the marker keeps them.
    private static func action(_ name: String, _ target: BusValue?) -> JSON {
        var members: [(String, JSON)] = [("action", .string(name))]
        if let target { members.append(("target", PortalTarget.json(target))) }
        return .object(members)
    }
}
