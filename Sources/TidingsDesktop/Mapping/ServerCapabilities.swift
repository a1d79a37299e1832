/// What the desktop's notification server can show: its GetCapabilities.
///
/// Names it does not know are kept (`names`) but mean nothing to the mapping.
/// Inline reply is `inline-reply`, the name KDE Plasma and swaync advertise
/// with the `NotificationReplied` signal; no other spelling is in use.
package struct ServerCapabilities: Hashable, Sendable {
    /// Every capability the server advertised.
    package var names: Set<String>

    /// The capabilities `names`, as GetCapabilities answers them.
    package init(_ names: [String]) {
        self.names = Set(names)
    }

    /// `actions`: it shows action buttons and reports ActionInvoked.
    package var actions: Bool { names.contains("actions") }
    /// `action-icons`: it reads action keys as icon names (with the
    /// `action-icons` hint), showing an action as its icon.
    package var actionIcons: Bool { names.contains("action-icons") }
    /// `body`: it shows the body text.
    package var body: Bool { names.contains("body") }
    /// `body-markup`: it takes the body's markup (`b`, `i`, `u`, `a`, `img`).
    package var bodyMarkup: Bool { names.contains("body-markup") }
    /// `body-images`: it shows `img` elements of the body.
    package var bodyImages: Bool { names.contains("body-images") }
    /// `inline-reply`: it takes a reply in the notification and reports NotificationReplied.
    package var inlineReply: Bool { names.contains("inline-reply") }
    /// `persistence`: it keeps notifications until the user dismisses them.
    package var persistence: Bool { names.contains("persistence") }
    /// `sound`: it plays the sound hints.
    package var sound: Bool { names.contains("sound") }
}
