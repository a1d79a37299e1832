import TidingsBase
import TidingsManifest
import TidingsProtocol

/// What a front end shows for a notification: the default content unless
/// hidden, the extension's view at its size, the header title, the action
/// buttons and the media button.
package struct Presentation: Sendable {
    package var notification: UserNotification
    /// The app the notification is addressed to.
    package var app: String
    /// The content extension serving it, when one does and it did not fail.
    package var extensionIdentifier: String?
    /// The title in the header: the app's registered name (else its bundle
    /// identifier), or the extension's title when its manifest allows it.
    package var header: String
    /// True when only the extension's view shows (UNNotificationExtensionDefaultContentHidden).
    package var defaultContentHidden: Bool
    /// The width the front end gave, in points.
    package var contentWidth: Double
    /// width × UNNotificationExtensionInitialContentSizeRatio: the height while the extension loads.
    package var initialContentHeight: Double?
    /// The height now: the extension's preferred height, else the initial one.
    package var contentHeight: Double?
    /// The extension's view; nil without an extension, or for a banner (in
    /// the answer to a call that closed the interface or the notification,
    /// and in the event telling of it, the view as it was last drawn).
    package var view: ViewState?
    /// The action buttons: the category's, or those the extension set.
    package var actions: [NotificationAction]
    /// The media button the extension asked for; of type none (no button)
    /// when it gave an empty frame, as iOS draws none for an empty `mediaPlayPauseButtonFrame`.
    package var mediaButton: InstanceContext.MediaButton?
    package var mediaPlaying: Bool
    /// Touches reach the extension's view (UNNotificationExtensionUserInteractionEnabled).
    package var userInteractionEnabled: Bool
    /// Its expanded interface is open: the extension's view shows (a
    /// banner, without it, shows the default content, title and actions).
    package var expanded: Bool
    /// The notification is no longer shown.
    package var dismissed: Bool
    /// What the app and its category say about showing it, and its group.
    package var settings: PresentationSettings
    /// The text input the extension asks for (its own button title and placeholder); nil when none.
    package var textInput: TextInputRequest? = nil
    /// Delivered quietly (provisional authorization): listed in the
    /// notification centre, with no banner and no sound.
    package var quiet = false
    /// How it is presented: a banner, in the list, its sound, its badge
    /// (all four unless its app, in the foreground, chose).
    package var presentationOptions: PresentationOptions = .all

    /// The body shown when previews are hidden and the category gives no
    /// placeholder (Apple's is the localized word "Notification").
    package static let defaultHiddenPreviewsBody = "Notification"

    /// True when the app's previews are hidden: the text shows as the
    /// category allows, and neither the extension's view nor attachments show.
    package var previewsHidden: Bool { settings.app.showPreviews == .never }

    /// The default content (title, subtitle, body) when it shows. With
    /// previews hidden the body is the category's hidden-previews placeholder
    /// (its `%u` the group's count), and the title and subtitle show only
    /// when the category's hiddenPreviewsShowTitle / ShowSubtitle options say so.
    package var defaultContent: (title: String, subtitle: String, body: String)? {
        guard !defaultContentHidden || previewsHidden else { return nil }
        let content = notification.content
        guard previewsHidden else { return (content.title, content.subtitle, content.body) }
        let options = settings.category?.options ?? []
        let placeholder = settings.category?.hiddenPreviewsBodyPlaceholder ?? Self.defaultHiddenPreviewsBody
        return (options.contains(.hiddenPreviewsShowTitle) ? content.title : "",
                options.contains(.hiddenPreviewsShowSubtitle) ? content.subtitle : "",
                settings.group.text(placeholder))
    }

    /// The summary of the notification's group: its category's summary format
    /// (categorySummaryFormat) with the group's count and summary arguments.
    package var summary: String {
        settings.group.text(settings.category?.summaryFormat ?? settings.group.defaultSummaryFormat)
    }
}

/// A response the app receives: from the user directly, or forwarded by the
/// extension. The whole response, as UNNotificationResponse: the
/// notification (its request and full content), the action, the user's text.
package struct ForwardedResponse: Sendable, Equatable {
    /// The app that receives it.
    package var app: String
    /// The notification responded to, as it was delivered.
    package var notification: UserNotification
    /// The action: an identifier, or the default or dismiss action's.
    package var actionIdentifier: String
    /// The user's text, for a text-input action.
    package var userText: String?
    /// True when the response brings the app to the foreground, as iOS
    /// launches it: the default action (the user opened the notification)
    /// and an action with the `foreground` option.
    package var opensApp: Bool

    /// `app`'s response to `notification` with `actionIdentifier` (and
    /// `userText`); it opens the app when `opensApp` says so, by default for
    /// the default action only.
    package init(app: String, notification: UserNotification, actionIdentifier: String, userText: String?,
                 opensApp: Bool? = nil) {
        self.app = app
        self.notification = notification
        self.actionIdentifier = actionIdentifier
        self.userText = userText
        self.opensApp = opensApp ?? (actionIdentifier == ActionIdentifier.default)
    }

    /// The identifier of the notification responded to.
    package var notificationIdentifier: String { notification.identifier }
}

/// The result of delivering a notification.
package struct Delivery: Sendable {
    package var presentation: Presentation
    /// What the service stage did (skipped, with the reason, when it did not run).
    package var service: StageReport
    /// The attachments the service extension created that the notification shows.
    package var createdAttachments: [AttachmentStore.Admission]
    /// Why it was routed as it was, what the extension did wrong, what failed.
    package var diagnostics: [Diagnostic]
    /// What the extension logged.
    package var log: [LogLine]
    /// Responses sent to the app meanwhile (the extension performed the default action).
    package var forwarded: [ForwardedResponse]
    /// `presented`, or what the delivery's decider said instead when it
    /// presents it neither as a banner nor in the list (nothing then shows).
    package var display: DisplayKind = .presented

    /// True when the extension failed and the default content shows instead.
    package var extensionFailed: Bool { diagnostics.containsError }
}

/// The result of a response.
package struct ResponseOutcome: Sendable {
    /// Who received the response.
    package enum Receiver: String, Sendable {
        /// The content extension's response handler.
        case `extension`
        /// The app, straight away (no extension, or one without a response handler, or one that failed).
        case app
        /// Nobody: a dismissal of a category without customDismissAction.
        case nobody
    }

    package var response: ResponseRequest
    package var receiver: Receiver
    /// The extension's answer, when it gave a valid one in time.
    package var option: ResponseOption?
    package var presentation: Presentation
    /// What the app received, if anything.
    package var forwarded: [ForwardedResponse]
    package var diagnostics: [Diagnostic]
    package var log: [LogLine]
}

/// Something front ends may want to hear of, whoever caused it: a
/// notification delivered, a view that changed, a notification dismissed, a
/// response sent to the app, a problem noticed after the call it belongs to
/// had returned.
package enum HostEvent: Sendable {
    /// A problem noticed after the call it belongs to had returned (a late
    /// completion, say), with the app whose extension it concerns when known.
    case diagnostic(Diagnostic, app: String?)
    /// A notification was delivered: its presentation once its content
    /// extension answered (marked dismissed when the extension closed it at once).
    case delivered(Presentation)
    /// What a notification shows changed other than in the answer to the
    /// call about it: its expanded interface opened or closed, the extension
    /// changed its view on its own, or a thread-mate delivered while its
    /// interface is open changed it. The presentation now.
    case presentationChanged(Presentation)
    /// A notification left the screen.
    case dismissed(identifier: String, app: String, reason: DismissReason)
    /// The app received a response: from the user directly, or forwarded by the extension.
    case forwarded(ForwardedResponse)
    /// An extension completed a response after its deadline, when the host
    /// had applied dismissAndForwardAction (or a service request after its
    /// grace period, when the original content was shown): reported (the
    /// diagnostic says so), never a fault.
    case lateCompletion(LateCompletion, Diagnostic)
}

/// Why a notification left the screen.
package enum DismissReason: String, Sendable {
    /// A response closed it (the extension's answer, or the response went to the app).
    case response
    /// The extension closed it (dismiss, or performing the default action).
    case `extension`
    /// The app or a front end removed it.
    case removed
    /// A new delivery of its request identifier took its place.
    case replaced
    /// The oldest kept when a delivery went past the most the host keeps, it
    /// made room (as a notification centre lets old notifications go).
    case expired
}
