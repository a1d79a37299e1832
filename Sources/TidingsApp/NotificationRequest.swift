import FoundationEssentials

/// A notification to deliver, now or when its trigger fires (`UNNotificationRequest`).
public struct NotificationRequest: Sendable {
    /// Its identifier: a request added under a pending or delivered one's replaces it.
    public var identifier: String
    /// What it says.
    public var content: NotificationContent
    /// When it is delivered; nil: at once.
    public var trigger: (any NotificationTrigger)?
    /// When a pending request fires next (`nextTriggerDate()`), as the host
    /// answered `requests.pending`; nil for a new request, a region, or a date that never comes.
    public internal(set) var nextTriggerDate: Date?

    /// A request of `content` under `identifier`, delivered when `trigger` fires (nil: now).
    public init(identifier: String, content: NotificationContent, trigger: (any NotificationTrigger)?) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
    }

    /// The request payload `notifications.deliver` and `requests.add` take.
    var json: JSONValue {
        var members: [String: JSONValue] = ["identifier": .string(identifier), "content": content.json]
        if let trigger { members["trigger"] = trigger.protocolJSON }
        return .object(members)
    }
}

/// A delivered notification (`UNNotification`).
public struct UserNotification: Sendable {
    /// When it was delivered.
    public var date: Date
    /// The request it delivered: its identifier, content and trigger.
    public var request: NotificationRequest

    /// Reads a notification as the host gives it (`notifications.list`,
    /// `app.willPresent`, inbox entries).
    init(json: JSONValue) {
        date = json["date"]?.stringValue.flatMap(parseDate) ?? Date(timeIntervalSince1970: 0)
        request = NotificationRequest(identifier: json["identifier"]?.stringValue ?? "",
                                      content: NotificationContent(json: json),
                                      trigger: json["trigger"].flatMap(decodeTrigger))
    }
}

/// The user's answer to a notification (`UNNotificationResponse`, and
/// `UNTextInputNotificationResponse`'s text), forwarded to the app.
public struct NotificationResponse: Sendable {
    /// The action of the user's opening a notification.
    public static let defaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
    /// The action of the user's dismissing a notification (categories with `customDismissAction`).
    public static let dismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"
    /// The action of a front end's "Settings" button, which the center hands to
    /// ``UserNotificationCenterDelegate/userNotificationCenter(_:openSettingsFor:)``
    /// instead of `didReceive` (iOS has no such response: its Settings app calls the delegate).
    public static let openSettingsActionIdentifier = "tidings.settings"

    /// The notification answered.
    public var notification: UserNotification
    /// The action: one of the category's, or one of the two above.
    public var actionIdentifier: String
    /// The user's text, for a text-input action.
    public var userText: String?
    /// The response's id in the app's inbox: the same each time the response
    /// is handed (again after the app ended before the delegate's completion
    /// handler was called), never another response's, across restarts of the
    /// host too. De-duplicate by it what a response does outside the app's
    /// own state (Apple's response has no such id; on iOS it is handed once).
    public var inboxIdentifier: Int64
}

/// An ISO 8601 date as the host writes them; nil when it is not one.
func parseDate(_ text: String) -> Date? {
    try? Date.ISO8601FormatStyle().parse(text)
}
