/// How an extension answers a response (UNNotificationContentExtensionResponseOption).
public enum ContentExtensionResponseOption: Int32, Sendable {
    /// Keep showing the notification; the extension handled the action.
    case doNotDismiss = 0
    /// Close the notification; the extension handled the action.
    case dismiss = 1
    /// Close the notification and forward the action to the app.
    case dismissAndForwardAction = 2
}

/// The media button's style (UNNotificationContentExtensionMediaPlayPauseButtonType).
public enum MediaPlayPauseButtonType: Int32, Sendable {
    /// No button.
    case none = 0
    /// Always visible; toggles between play and pause.
    case `default` = 1
    /// Over the content; hidden while playing.
    case overlay = 2
}
