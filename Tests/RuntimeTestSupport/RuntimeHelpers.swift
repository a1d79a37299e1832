// What the runtime's and the isolation layer's tests share: notifications
// made in one call, and views and diagnostics read back.
import TidingsBase
import TidingsRuntime

/// A request-form notification.
package func notification(_ identifier: String, category: String, thread: String = "", title: String = "Title",
                  body: String = "Body", userInfo: [(String, JSON)] = [],
                  attachments: [NotificationAttachment] = []) -> UserNotification {
    var content = NotificationContent()
    content.title = title
    content.body = body
    content.categoryIdentifier = category
    content.threadIdentifier = thread
    content.userInfo = userInfo
    content.attachments = attachments
    return UserNotification(identifier: identifier, date: 1_800_000_000, content: content)
}

extension ViewState {
    /// The text of label `identifier`, the title of a button, the text of a text field.
    package func text(of identifier: String) -> String? {
        switch node(identifier)?.content {
        case .label(let text, _, _)?, .button(let text, _)?, .textField(let text, _, _)?: text
        default: nil
        }
    }

    /// The colour of label `identifier`, if set.
    package func color(of identifier: String) -> String? {
        guard case .label(_, let color, _) = node(identifier)?.content else { return nil }
        return color?.description
    }
}

extension Array where Element == Diagnostic {
    /// The codes, as strings.
    package var codes: [String] { map(\.code.rawValue) }
}

extension NotificationHost {
    /// Delivers `notification` with its expanded interface opened at once,
    /// as a front end that always shows the extension's view does.
    package func deliverOpened(_ notification: UserNotification, to app: String, width: Double? = nil) -> Delivery {
        deliver(notification, to: app, width: width, opening: true)
    }
}
