/// What iOS does with a notification, as its content asks: show it, hand it
/// to the app in the background, or only set the app's badge — or, the app's
/// notifications being denied, nothing. A shown or badge-only one with
/// `content-available` 1 also wakes the app (`PayloadDelivery.wakesApp`).
package enum DisplayKind: String, Sendable {
    /// Shown: a banner, its content extension, its actions (and the badge set, when it has one).
    case presented
    /// A background notification (`content-available` 1 with no alert,
    /// sound or badge): handed to the app with its `userInfo`, never shown,
    /// no extension code run.
    case background
    /// A badge-only notification (a badge with no alert and no sound): sets
    /// the app's badge, never shown.
    case badge
    /// Not shown and its badge not set: the user denied the app's
    /// notifications (`PresentationPolicy.deny`). No extension code runs.
    case denied
    /// Not presented because its app is in the foreground: the app's
    /// delegate answered options without a banner or the list, or the app
    /// has no delegate, or it did not answer in time. Never what the content
    /// asks (`of(_:)`); a `PresentationDecider` decides it.
    case foreground

    /// What `content` asks for. An alert is a title, subtitle or body (after localization).
    package static func of(_ content: NotificationContent) -> DisplayKind {
        let alert = !content.title.isEmpty || !content.subtitle.isEmpty || !content.body.isEmpty
        guard !alert, content.sound == nil else { return .presented }
        if content.badge != nil { return .badge }
        return content.contentAvailable ? .background : .presented
    }
}
