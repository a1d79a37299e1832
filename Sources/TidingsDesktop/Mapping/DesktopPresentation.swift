// STUB: replaced by MAPPING at merge
import TidingsBase

/// One Tidings presentation as the desktop's notification server shows it.
package struct DesktopPresentation: Hashable, Sendable {
    /// Notify's arguments; `replacesID` 0 (the front end sets it).
    package var notification: DesktopNotification
    /// What each action key of `notification.actions` means, "default" included.
    package var actions: [String: DesktopAction]
    /// What this server could not show of it, one plain sentence each.
    package var degradations: [String]

    /// The presentation mapped for a server with `capabilities`.
    package init(presentation: JSON, app: AppDisplay, capabilities: ServerCapabilities) {
        let content = presentation["defaultContent"]
        notification = DesktopNotification(appName: app.name, summary: content?["title"]?.stringValue ?? "",
                                           body: content?["body"]?.stringValue ?? "")
        notification.hints["desktop-entry"] = .string(app.identifier)
        if presentation["expanded"]?.boolValue == true, let view = presentation["view"] {
            notification.body = Self.texts(of: view).joined(separator: "\n")
        }
        notification.actions = [.init(key: "default", label: "Open")]
        actions = ["default": .respond("default")]
        for action in presentation["actions"]?.arrayValue ?? [] {
            guard let key = action["identifier"]?.stringValue else { continue }
            notification.actions.append(.init(key: key, label: action["title"]?.stringValue ?? key))
            actions[key] = .respond(key)
        }
        if presentation["extension"]?.stringValue != nil, presentation["expanded"]?.boolValue != true {
            notification.actions.append(.init(key: "tidings-open", label: "Open"))
            actions["tidings-open"] = .openInterface
        }
        degradations = []
    }

    /// The texts of the view's labels that show, in order.
    private static func texts(of element: JSON) -> [String] {
        guard element["hidden"]?.boolValue != true else { return [] }
        let own = element["type"]?.stringValue == "label" ? [element["text"]?.stringValue ?? ""].filter { !$0.isEmpty } : []
        return own + (element["children"]?.arrayValue ?? []).flatMap(texts)
    }

    /// The prompt for an `authorization.requested` event's params (Allow / Don't Allow).
    package init(authorizationRequest: JSON, app: AppDisplay, capabilities: ServerCapabilities) {
        notification = DesktopNotification(appName: app.name, summary: "\(app.name) would like to send notifications",
                                           actions: [.init(key: "allow", label: "Allow"), .init(key: "deny", label: "Don't Allow")])
        actions = ["allow": .authorize(true), "deny": .authorize(false)]
        degradations = []
    }
}
