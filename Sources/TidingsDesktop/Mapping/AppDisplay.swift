import TidingsBase

/// How the app appears on the desktop: what apps.list says of it.
package struct AppDisplay: Hashable, Sendable {
    /// The app id: the `desktop-entry` hint.
    package var identifier: String
    /// Its display name (the id when it has none).
    package var name: String
    /// An icon name or `file://` URI; "" for none.
    package var icon: String
    /// Whether the app has its own notification settings
    /// (`providesAppNotificationSettings`): its notifications then offer
    /// "Settings", the response `tidings.settings` (the delegate's `openSettingsFor`).
    package var providesSettings: Bool

    /// The app `identifier`, named `name` (the identifier when nil or empty),
    /// with `icon`: an icon name, a `file://` URI, or an absolute path (made a
    /// `file://` URI, as Notify's `app_icon` takes it).
    package init(identifier: String, name: String? = nil, icon: String? = nil, providesSettings: Bool = false) {
        self.identifier = identifier
        self.providesSettings = providesSettings
        self.name = name.flatMap { $0.isEmpty ? nil : $0 } ?? identifier
        let icon = icon ?? ""
        self.icon = icon.hasPrefix("/") ? FileURL.url(of: icon) : icon
    }
}
