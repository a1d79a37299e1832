import TidingsBase
import TidingsRuntime

/// One thing an app's inbox keeps until the app's front end takes it: a
/// response the app received (the whole response, as UNNotificationResponse),
/// or a notification that woke the app (`content-available` 1: a background
/// one, never shown, or one also shown or badged).
package struct InboxEntry: Sendable, Equatable {
    /// What the app received.
    package enum Message: Sendable, Equatable {
        /// A response: the user's, sent straight to the app, or forwarded by the extension.
        case response(ForwardedResponse)
        /// A notification that woke the app (`content-available` 1), with its userInfo.
        case background(app: String, notification: UserNotification)
    }

    /// The entry's identifier: larger than every earlier entry's, across restarts too.
    package let identifier: UInt64
    /// When it was kept, in seconds since 1970.
    package let received: Double
    /// What the app received.
    package let message: Message

    /// The app it is for.
    package var app: String {
        switch message {
        case .response(let response): response.app
        case .background(let app, _): app
        }
    }

    /// The notification it carries.
    package var notification: UserNotification {
        switch message {
        case .response(let response): response.notification
        case .background(_, let notification): notification
        }
    }

    /// The event that pushes it to the app's subscribers.
    package var event: String {
        switch message {
        case .response: "response.forwarded"
        case .background: "notification.background"
        }
    }

    /// The entry as front ends read it: `{id, app, kind: response | background,
    /// received, notification: {identifier, date, …content, userInfo}}`, and
    /// for a response `actionIdentifier`, `userText` and `opensApp` (it brings the app forward).
    package var json: JSON {
        var members: [(String, JSON)] = [("id", .integer(Int64(clamping: identifier))), ("app", .string(app))]
        switch message {
        case .response(let response):
            members += [("kind", .string("response")), ("received", .string(ISO8601.format(received))),
                        ("notification", response.notification.json),
                        ("actionIdentifier", .string(response.actionIdentifier)),
                        ("userText", response.userText.map(JSON.string) ?? .null),
                        ("opensApp", .bool(response.opensApp))]
        case .background(_, let notification):
            members += [("kind", .string("background")), ("received", .string(ISO8601.format(received))),
                        ("notification", notification.json)]
        }
        return .object(members)
    }

    /// The entry as the state keeps it: `{"inboxed": APP, "id", "received",
    /// "notification": {...}}`, with `actionIdentifier`, `userText` and `opensApp` for a response.
    package var record: JSON {
        var members: [(String, JSON)] = [
            ("inboxed", .string(app)), ("id", .integer(Int64(clamping: identifier))), ("received", .double(received)),
            ("notification", NotificationRecord.json(notification)),
        ]
        if case .response(let response) = message {
            members.append(("actionIdentifier", .string(response.actionIdentifier)))
            if let text = response.userText { members.append(("userText", .string(text))) }
            members.append(("opensApp", .bool(response.opensApp)))
        }
        return .object(members)
    }

    /// An entry `identifier` of `message`, kept at `received`.
    package init(identifier: UInt64, received: Double, message: Message) {
        self.identifier = identifier
        self.received = received
        self.message = message
    }

    /// The entry the state kept as `record`; nil when it is not one `record` wrote.
    package init?(record: JSON) {
        guard let app = record["inboxed"]?.stringValue, let identifier = record["id"]?.integerValue,
              let number = UInt64(exactly: identifier), let received = record["received"]?.doubleValue,
              let notification = record["notification"].flatMap(NotificationRecord.notification)
        else { return nil }
        self.identifier = number
        self.received = received
        if let action = record["actionIdentifier"]?.stringValue {
            message = .response(ForwardedResponse(app: app, notification: notification, actionIdentifier: action,
                                                  userText: record["userText"]?.stringValue,
                                                  opensApp: record["opensApp"]?.boolValue))
        } else {
            message = .background(app: app, notification: notification)
        }
    }
}
