/// What invoking one of the desktop notification's action keys means.
package enum DesktopAction: Hashable, Sendable {
    /// `notifications.respond` with this action identifier ("default" for the default action).
    case respond(String)
    /// A text-input action: `notifications.respond` with the action and the text of
    /// NotificationReplied (inline reply).
    case reply(String)
    /// A text-input action on a server without inline reply: the interface's
    /// window opens with the action's field, where the text is typed.
    case typeIn(String)
    /// `notifications.open`: show the content extension's expanded interface.
    case openInterface
    /// `authorization.decide` for the app that asked: true is Allow, false Don't Allow.
    case authorize(Bool)
}
