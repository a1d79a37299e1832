import TidingsBase

extension DesktopPresentation {
    /// What an app may ask to do, in the prompt's words, in the order told.
    private static let optionWords: [(String, String)] = [
        ("alert", "alerts"), ("sound", "sounds"), ("badge", "badges"), ("criticalAlert", "critical alerts"),
    ]

    /// The prompt for an `authorization.requested` event's params (Allow / Don't Allow).
    ///
    /// As iOS asks: "‹name› would like to send you notifications", the body
    /// naming what the app asks for ("Notifications may include alerts,
    /// sounds and badges."), the actions `allow` ("Allow") and `deny` ("Don't
    /// Allow") and no default action (a click on the prompt decides nothing).
    /// Urgency 1, never expiring, and `resident` (kept after an action) where
    /// the server has `persistence`. The name is the event's `name`, else
    /// the app's display name.
    package init(authorizationRequest: JSON, app: AppDisplay, capabilities: ServerCapabilities) {
        let named = DesktopText.line(authorizationRequest["name"]?.stringValue ?? "", limit: DesktopText.labelLimit)
        let name = named.isEmpty ? DesktopText.line(app.name, limit: DesktopText.labelLimit) : named
        let asked = Set((authorizationRequest["options"]?.arrayValue ?? []).prefix(16).compactMap(\.stringValue))
        let words = Self.optionWords.filter { asked.contains($0.0) }.map(\.1)
        var body = ""
        if let last = words.last {
            body = "Notifications may include "
                + (words.count == 1 ? last : words.dropLast().joined(separator: ", ") + " and " + last) + "."
        }

        var degradations: [String] = []
        var table = ActionTable()
        if capabilities.actions {
            table.add(key: "allow", label: "Allow", meaning: .authorize(true))
            table.add(key: "deny", label: "Don't Allow", meaning: .authorize(false))
        } else {
            degradations.append(Degradation.noActionsToDecide)
        }
        var hints: [String: BusValue] = ["urgency": .byte(1)]
        if let entry = DesktopText.name(app.identifier) { hints["desktop-entry"] = .string(entry) }
        if capabilities.persistence {
            hints["resident"] = .bool(true)
        } else {
            degradations.append(Degradation.promptMayExpire)
        }
        if !capabilities.body, !body.isEmpty { degradations.append(Degradation.noBody) }

        var notification = DesktopNotification(
            appName: DesktopText.line(app.name, limit: DesktopText.labelLimit),
            summary: "\(name) would like to send you notifications", body: capabilities.body ? body : "",
            actions: table.actions, hints: hints, expireTimeout: 0)
        notification.appIcon = DesktopText.name(app.icon) ?? ""
        self.notification = notification
        self.actions = table.meanings
        self.degradations = degradations
    }
}
