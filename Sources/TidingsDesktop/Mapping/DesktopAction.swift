// STUB: replaced by MAPPING at merge
/// What invoking one of the desktop notification's action keys means.
package enum DesktopAction: Hashable, Sendable {
    /// `notifications.respond` with this action identifier ("default" for the default action).
    case respond(String)
    /// A text-input action: `notifications.respond` with the action and the text of NotificationReplied.
    case reply(String)
    /// `notifications.open`: show the content extension's expanded interface.
    case openInterface
    /// `authorization.decide` for the app that asked: true is Allow, false Don't Allow.
    case authorize(Bool)
}
