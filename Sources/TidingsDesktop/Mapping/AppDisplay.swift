// STUB: replaced by MAPPING at merge
/// How the app appears on the desktop: what apps.list says of it.
package struct AppDisplay: Hashable, Sendable {
    /// The app id: desktop-entry hint.
    package var identifier: String
    /// Its display name (the id when it has none).
    package var name: String
    /// Icon name or file:// URI; "" for none.
    package var icon: String
    /// The app `identifier`, shown as `name`, with `icon`.
    package init(identifier: String, name: String? = nil, icon: String? = nil) {
        self.identifier = identifier
        self.name = name ?? identifier
        self.icon = icon ?? ""
    }
}
