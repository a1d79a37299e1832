/// A kind of notification an app registers, with its actions (UNNotificationCategory).
package struct NotificationCategory: Sendable, Equatable {
    /// Category options, with Apple's raw values (UNNotificationCategoryOptions).
    package struct Options: OptionSet, Sendable, Hashable {
        package var rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Send the dismiss action to the app (and its extension) when the user dismisses.
        package static let customDismissAction = Options(rawValue: 1)
        package static let allowInCarPlay = Options(rawValue: 2)
        package static let hiddenPreviewsShowTitle = Options(rawValue: 4)
        package static let hiddenPreviewsShowSubtitle = Options(rawValue: 8)
        /// Let Siri announce the notification: deprecated in iOS 15 (the
        /// user's announcement setting decides), still accepted, with no effect.
        package static let allowAnnouncement = Options(rawValue: 16)

        /// Each option with the name payloads and output use.
        package static let names: [(String, Options)] = [
            ("customDismissAction", .customDismissAction), ("allowInCarPlay", .allowInCarPlay),
            ("hiddenPreviewsShowTitle", .hiddenPreviewsShowTitle),
            ("hiddenPreviewsShowSubtitle", .hiddenPreviewsShowSubtitle), ("allowAnnouncement", .allowAnnouncement),
        ]
    }

    package var identifier: String
    /// The actions, in display order.
    package var actions: [NotificationAction]
    package var options: Options
    package var intentIdentifiers: [String]
    /// Shown in place of the body when previews are hidden; may contain `%u`.
    package var hiddenPreviewsBodyPlaceholder: String?
    /// The summary of a group of the category's notifications (categorySummaryFormat):
    /// `%u` becomes the group's count, `%@` its summary arguments; nil for the system's.
    package var summaryFormat: String?

    package init(identifier: String, actions: [NotificationAction] = [], options: Options = [],
                 intentIdentifiers: [String] = [], hiddenPreviewsBodyPlaceholder: String? = nil,
                 summaryFormat: String? = nil) {
        self.identifier = identifier
        self.actions = actions
        self.options = options
        self.intentIdentifiers = intentIdentifiers
        self.hiddenPreviewsBodyPlaceholder = hiddenPreviewsBodyPlaceholder
        self.summaryFormat = summaryFormat
    }
}

/// A button shown with a notification (UNNotificationAction, UNTextInputNotificationAction).
package struct NotificationAction: Sendable, Equatable {
    /// Action options, with Apple's raw values (UNNotificationActionOptions).
    package struct Options: OptionSet, Sendable, Hashable {
        package var rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let authenticationRequired = Options(rawValue: 1)
        package static let destructive = Options(rawValue: 2)
        package static let foreground = Options(rawValue: 4)

        /// Each option with the name payloads and output use.
        package static let names: [(String, Options)] = [
            ("authenticationRequired", .authenticationRequired), ("destructive", .destructive),
            ("foreground", .foreground),
        ]
    }

    /// What a text-input action adds: the send button's title and a placeholder.
    package struct TextInput: Sendable, Equatable {
        package var buttonTitle: String
        package var placeholder: String

        package init(buttonTitle: String, placeholder: String) {
            self.buttonTitle = buttonTitle
            self.placeholder = placeholder
        }
    }

    /// An action's icon (UNNotificationActionIcon, iOS 15): an image the front end draws by name.
    package enum Icon: Sendable, Equatable {
        /// A system symbol (`systemImageName`), such as "calendar.badge.plus".
        case system(String)
        /// A template image of the app's (`templateImageName`).
        case template(String)
    }

    package var identifier: String
    package var title: String
    package var options: Options
    /// Present for a text-input action.
    package var textInput: TextInput?
    /// The button's icon; nil for none.
    package var icon: Icon?

    package init(identifier: String, title: String, options: Options = [], textInput: TextInput? = nil,
                 icon: Icon? = nil) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
        self.icon = icon
    }
}
