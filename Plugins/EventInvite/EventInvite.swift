// EventInvite: the event-invitation content extension from Apple's guide
// "Customizing the Appearance of Notifications", written against TidingsSDK.
//
// It shows the event's title, date, location and message from the
// notification's userInfo and the first attachment as the event's image.
// Accepting shows "Going!" in green, declining "Not Going." in red; both then
// close the notification. A comment (a text-input action) and opening the
// notification are forwarded to the app.
import TidingsSDK

final class EventInviteViewController: NotificationContentExtension, NotificationResponseHandling {
    private let context: NotificationExtensionContext

    init(context: NotificationExtensionContext) {
        self.context = context
    }

    func didReceive(_ notification: DeliveredNotification) {
        let content = notification.content
        context.setText(content.userInfoString("title") ?? content.title, of: "eventTitle")
        context.setText(content.userInfoString("date") ?? "", of: "eventDate")
        context.setText(content.userInfoString("location") ?? "", of: "eventLocation")
        context.setText(content.userInfoString("message") ?? content.body, of: "eventMessage")
        if let image = content.attachments.first {
            context.setImage(attachment: image.identifier, of: "eventImage")
            context.setHidden(false, of: "eventImage")
            context.setPreferredContentHeight(320)
        } else {
            context.setPreferredContentHeight(160)
        }
    }

    func didReceive(_ response: NotificationResponse,
                    completionHandler completion: @escaping @Sendable (ContentExtensionResponseOption) -> Void) {
        switch response.actionIdentifier {
        case "accept":
            show("Going!", in: .systemGreen)
            completion(.dismiss)
        case "decline":
            show("Not Going.", in: .systemRed)
            completion(.dismiss)
        case "comment":
            let text = response.userText ?? ""
            show("Comment sent: \(text)", in: .systemBlue)
            context.log("forwarding a comment of \(text.count) characters to the app")
            completion(.dismissAndForwardAction)
        case NotificationResponse.dismissActionIdentifier:
            completion(.dismiss)
        default:
            // The default action (the user opened the notification) and any
            // action this extension does not know belong to the app.
            completion(.dismissAndForwardAction)
        }
    }

    private func show(_ answer: String, in color: Color) {
        context.setText(answer, of: "eventResponse")
        context.setTextColor(color, of: "eventResponse")
        context.setHidden(false, of: "eventResponse")
    }
}

/// The entry function the host looks up in this library.
@c(tidings_extension_entry)
public func tidingsExtensionEntry(_ hostVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    NotificationExtensionEntry.descriptor(for: EventInviteViewController.self, hostVersion: hostVersion, host: host)
}
