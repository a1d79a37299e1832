import TidingsBase

/// An action's icon (`UNNotificationActionIcon`: `{"systemImageName"}` or
/// `{"templateImageName"}` in the presentation's action) as a freedesktop
/// icon name, the key a server with `action-icons` reads as an icon.
///
/// A system image is an SF Symbol's name: the few an app's buttons use most
/// become the freedesktop icon theme's names for the same thing
/// (`checkmark` "object-select", `xmark` "window-close", …); another is sent
/// as it is, so a Linux app may name a theme icon directly. A template
/// image is one of the app's own images: the specification names icons,
/// not files, so its name is sent as it is, for the app to install the
/// image in the icon theme under that name (`hicolor/scalable/actions/NAME.svg`).
enum ActionIcon {
    /// SF Symbols' names and the freedesktop icon theme's names for the same image.
    static let themeNames: [String: String] = [
        "checkmark": "object-select", "checkmark.circle": "object-select",
        "xmark": "window-close", "xmark.circle": "window-close",
        "trash": "user-trash", "bell": "preferences-system-notifications",
        "bell.slash": "notifications-disabled", "clock": "alarm", "alarm": "alarm",
        "calendar": "x-office-calendar", "pencil": "document-edit",
        "arrowshape.turn.up.left": "mail-reply-sender", "square.and.arrow.up": "document-send",
        "star": "starred", "heart": "emblem-favorite", "gear": "preferences-system",
    ]

    /// The icon name of `action`'s icon; nil when it has none, or its name is no name (`DesktopText.name`).
    static func name(of action: JSON) -> String? {
        let icon = action["icon"]
        if let system = DesktopText.name(icon?["systemImageName"]?.stringValue) { return themeNames[system] ?? system }
        return DesktopText.name(icon?["templateImageName"]?.stringValue)
    }
}
