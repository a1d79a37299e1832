import TidingsBase

/// One Tidings presentation (the `presentation` object of the protocol:
/// notifications.presentation / notification.delivered / presentation.changed)
/// as the desktop's notification server shows it.
///
/// Pure: it reads the JSON only, and whatever the JSON holds (a member
/// missing, of the wrong type, or huge) it maps something, capped and
/// stripped of control characters. What each part becomes is told by
/// `PresentationContent` (summary, body, image), `PresentationHints`
/// (urgency, sound, quiet) and `ActionTable` (actions).
package struct DesktopPresentation: Hashable, Sendable {
    /// Notify's arguments; `replacesID` 0 (the front end sets it).
    package var notification: DesktopNotification
    /// What each action key of `notification.actions` means, "default" included
    /// (and the inline-reply key the server reports back, if any).
    package var actions: [String: DesktopAction]
    /// What this server could not show of it, one plain sentence each (the
    /// front end logs each kind once).
    package var degradations: [String]

    /// The presentation mapped for a server with `capabilities`.
    ///
    /// `presentation` is the presentation object, or an object holding one
    /// as `presentation` beside the `notification` (the params of
    /// `notification.delivered`, the answer of `notifications.deliver`): only
    /// then are the notification's attachments known, and its first image
    /// shown on a banner (the presentation itself carries the view's images only).
    package init(presentation: JSON, app: AppDisplay, capabilities: ServerCapabilities) {
        var attachments: JSON?
        var presentation = presentation
        if let inner = presentation["presentation"], inner.objectMembers != nil {
            attachments = presentation["notification"]?["attachments"]
            presentation = inner
        }
        let content = PresentationContent(presentation, attachments: attachments, app: app, capabilities: capabilities)
        var hints = PresentationHints(presentation, app: app, capabilities: capabilities)
        hints.setImage(content.imagePath)
        let table = ActionTable(presentation, capabilities: capabilities, settings: app.providesSettings)
        var notification = DesktopNotification(appName: DesktopText.line(app.name, limit: DesktopText.labelLimit),
                                               summary: content.summary, body: content.body, actions: table.actions,
                                               hints: hints.hints.merging(table.hints) { first, _ in first })
        notification.appIcon = DesktopText.name(app.icon) ?? ""
        self.notification = notification
        self.actions = table.meanings
        self.degradations = content.degradations + hints.degradations + table.degradations
    }
}
