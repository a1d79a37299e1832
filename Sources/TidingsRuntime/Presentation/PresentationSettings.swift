import TidingsProtocol

/// What a presentation takes from its app and category besides the
/// notification and its extension: the app's registration (name, icon,
/// whether previews show), the registered category (its hidden-previews
/// placeholder and options, its summary format), and the group the
/// notification is shown in.
package struct PresentationSettings: Sendable {
    /// The app's registration; the default (no name, previews shown) when it has none.
    package var app: AppRegistration
    /// The category the app registered under the notification's category identifier.
    package var category: NotificationCategory?
    /// The notifications of its app and thread shown now.
    package var group: NotificationGroup

    /// Settings of `app`, `category` and `group`.
    package init(app: AppRegistration = AppRegistration(), category: NotificationCategory? = nil,
                 group: NotificationGroup) {
        self.app = app
        self.category = category
        self.group = group
    }
}
