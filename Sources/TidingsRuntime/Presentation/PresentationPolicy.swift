/// How an app's notifications may show, as the user's authorization of the
/// app says (UNAuthorizationStatus): what the host asks, app by app, before
/// it presents a notification (`NotificationHost.Configuration.presentationPolicy`).
package enum PresentationPolicy: Sendable, Equatable {
    /// Shown as its content asks (authorized, or an app the host delivers without asking).
    case present
    /// Listed quietly: no banner, no sound (provisional authorization); the
    /// presentation says `quiet`.
    case quiet
    /// Not shown and its badge not set (denied); a background notification
    /// still reaches the app.
    case deny
}
