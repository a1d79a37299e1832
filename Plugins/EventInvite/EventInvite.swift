// EventInvite: the event-invitation content extension from Apple's guide
// "Customizing the Appearance of Notifications", written against TidingsSDK.
//
// It shows the event's title, date, location and message from the
// notification's userInfo and the first attachment as the event's image.
// Accepting shows "Going!" in green, declining "Not Going." in red; both then
// close the notification. A comment (a text-input action) is forwarded to
// the app; opening the notification (the default action) and dismissing it
// go to the app without passing here, as on iOS. When the invitation says comments
// are closed (userInfo "comments": "closed"), the Comment action is taken
// away (reading and setting notificationActions, which a host of ABI version
// 3 and later supports; an older host keeps it).
//
// Its view is interactive (UNNotificationExtensionUserInteractionEnabled):
// the "Add a comment" button asks the front end for text with the
// extension's own input view (a "Post" button and a placeholder, as the
// guide's custom text field becomes first responder), and the answer shows
// as the comment; the note field shows what the user submits in it.
import TidingsSDK

final class EventInviteViewController: NotificationContentExtension, NotificationResponseHandling,
    NotificationElementHandling
{
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
        if content.userInfoString("comments") == "closed" {
            let actions = context.notificationActions
            if !actions.isEmpty { context.notificationActions = actions.filter { $0.identifier != "comment" } }
        }
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
            show(fitting("Comment sent: \(text)"), in: .systemBlue)
            context.log("forwarding a comment of \(text.count) characters to the app")
            completion(.dismissAndForwardAction)
        default:
            // An action this extension does not know belongs to the app. (The
            // default and dismiss actions never come here: they go to the app.)
            completion(.dismissAndForwardAction)
        }
    }

    func didTapButton(_ element: String) {
        guard element == "addComment" else { return }
        if !context.requestTextInput(buttonTitle: "Post", placeholder: "Say something to the host") {
            context.log("the host did not show the comment entry")
        }
    }

    func didSubmitText(_ text: String, in element: String) {
        show(fitting("Note: \(text)"), in: .systemBlue)
    }

    func didReceiveTextInput(_ text: String) {
        show(fitting("Comment: \(text)"), in: .systemBlue)
        context.setText("Edit the comment", of: "addComment")
    }

    /// `text`, cut (at a character's end) to the length the host takes for a label.
    private func fitting(_ text: String) -> String {
        let limit = context.hostLimits?.maxTextBytes ?? 16_384
        var kept = ""
        for character in text {
            guard kept.utf8.count + character.utf8.count <= limit else { break }
            kept.append(character)
        }
        return kept
    }

    private func show(_ answer: String, in color: Color) {
        context.setText(answer, of: "eventResponse")
        context.setTextColor(color, of: "eventResponse")
        context.setHidden(false, of: "eventResponse")
    }
}

/// The entry function hosts of version 3 and later look up in this library.
@c(tidings_extension_entry_v3)
public func tidingsExtensionEntryV3(_ info: UnsafeRawPointer?) -> UnsafeRawPointer? {
    NotificationExtensionEntry.descriptor(for: EventInviteViewController.self, entryInfo: info)
}

/// The entry function older hosts look up in this library.
@c(tidings_extension_entry)
public func tidingsExtensionEntry(_ hostVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    NotificationExtensionEntry.descriptor(for: EventInviteViewController.self, hostVersion: hostVersion, host: host)
}
