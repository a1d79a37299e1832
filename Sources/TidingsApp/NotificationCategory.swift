import TidingsBase
import TidingsProtocol

/// An action's image (`UNNotificationActionIcon`): a system symbol or one
/// of the app's template images, by name. Carried to front ends with the
/// category (`icon` in `categories.register`). The desktop front end shows
/// it on a notification server that advertises `action-icons` (KDE Plasma's
/// kind; not dunst or mako, which show the title): the button is the icon
/// of that name in the icon theme, a few SF Symbols (`checkmark`, `xmark`,
/// `trash`, …) becoming the theme's names for them, a template image its
/// name as it is (install it in the icon theme under that name).
public struct NotificationActionIcon: Sendable, Hashable {
    /// Which kind of image it names.
    enum Kind: Sendable, Hashable {
        case system, template
    }

    /// Which kind of image it names.
    let kind: Kind
    /// The image's name.
    let name: String

    /// A system symbol (`init(systemImageName:)`), such as `"checkmark"`.
    public init(systemImageName: String) {
        kind = .system
        name = systemImageName
    }

    /// One of the app's template images (`init(templateImageName:)`).
    public init(templateImageName: String) {
        kind = .template
        name = templateImageName
    }

    /// The icon `icon` of the protocol's model is.
    init(_ icon: TidingsProtocol.NotificationAction.Icon) {
        switch icon {
        case .system(let name): self.init(systemImageName: name)
        case .template(let name): self.init(templateImageName: name)
        }
    }

    /// The icon as the protocol's model holds it.
    var model: TidingsProtocol.NotificationAction.Icon {
        switch kind {
        case .system: .system(name)
        case .template: .template(name)
        }
    }
}

/// A button of a notification (`UNNotificationAction`, and `UNTextInputNotificationAction` with ``textInput``).
public struct NotificationAction: Sendable, Hashable {
    /// How an action behaves (`UNNotificationActionOptions`).
    public struct Options: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: Int
        /// Makes options of `rawValue`.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Only on an unlocked device.
        public static let authenticationRequired = Options(rawValue: 1 << 0)
        /// Shown as destructive.
        public static let destructive = Options(rawValue: 1 << 1)
        /// Brings the app forward.
        public static let foreground = Options(rawValue: 1 << 2)
    }

    /// The text field of a text-input action.
    public struct TextInput: Sendable, Hashable {
        /// The send button's title.
        public var buttonTitle: String
        /// The field's placeholder.
        public var placeholder: String
        /// A text field with a button titled `buttonTitle`.
        public init(buttonTitle: String, placeholder: String) {
            self.buttonTitle = buttonTitle
            self.placeholder = placeholder
        }
    }

    /// Its identifier, which the response carries.
    public var identifier: String
    /// Its title.
    public var title: String
    /// How it behaves.
    public var options: Options
    /// The text field, for an action asking for text.
    public var textInput: TextInput?
    /// Its image (`icon`); nil for none.
    public var icon: NotificationActionIcon?

    /// An action titled `title` (`init(identifier:title:options:icon:)`).
    public init(identifier: String, title: String, options: Options = [], icon: NotificationActionIcon? = nil,
                textInput: TextInput? = nil) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.icon = icon
        self.textInput = textInput
    }

    /// The action `action` of the protocol's model is.
    init(_ action: TidingsProtocol.NotificationAction) {
        self.init(identifier: action.identifier, title: action.title, options: Options(rawValue: Int(action.options.rawValue)),
                  icon: action.icon.map(NotificationActionIcon.init),
                  textInput: action.textInput.map { TextInput(buttonTitle: $0.buttonTitle, placeholder: $0.placeholder) })
    }

    /// The action as the protocol's model holds it (the options Apple defines, the others left out).
    var model: TidingsProtocol.NotificationAction {
        TidingsProtocol.NotificationAction(
            identifier: identifier, title: title,
            options: TidingsProtocol.NotificationAction.Options(rawValue: UInt32(truncatingIfNeeded: options.rawValue)),
            textInput: textInput.map { .init(buttonTitle: $0.buttonTitle, placeholder: $0.placeholder) },
            icon: icon?.model)
    }
}

/// A kind of notification with its actions (`UNNotificationCategory`).
public struct NotificationCategory: Sendable, Hashable {
    /// How a category behaves (`UNNotificationCategoryOptions`).
    public struct Options: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: Int
        /// Makes options of `rawValue`.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Dismissing a notification sends the app a response.
        public static let customDismissAction = Options(rawValue: 1 << 0)
        /// Shown in CarPlay.
        public static let allowInCarPlay = Options(rawValue: 1 << 1)
        /// Its title shown when previews are hidden.
        public static let hiddenPreviewsShowTitle = Options(rawValue: 1 << 2)
        /// Its subtitle shown when previews are hidden.
        public static let hiddenPreviewsShowSubtitle = Options(rawValue: 1 << 3)
    }

    /// Its identifier, which a notification's `categoryIdentifier` names.
    public var identifier: String
    /// Its actions, in order.
    public var actions: [NotificationAction]
    /// Siri intents it relates to.
    public var intentIdentifiers: [String]
    /// The body shown when previews are hidden.
    public var hiddenPreviewsBodyPlaceholder: String?
    /// The summary's format.
    public var categorySummaryFormat: String?
    /// How it behaves.
    public var options: Options

    /// A category of `actions`.
    public init(identifier: String, actions: [NotificationAction], intentIdentifiers: [String] = [],
                hiddenPreviewsBodyPlaceholder: String? = nil, categorySummaryFormat: String? = nil,
                options: Options = []) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.hiddenPreviewsBodyPlaceholder = hiddenPreviewsBodyPlaceholder
        self.categorySummaryFormat = categorySummaryFormat
        self.options = options
    }

    /// The category `category` of the protocol's model is.
    init(_ category: TidingsProtocol.NotificationCategory) {
        self.init(identifier: category.identifier, actions: category.actions.map(NotificationAction.init),
                  intentIdentifiers: category.intentIdentifiers,
                  hiddenPreviewsBodyPlaceholder: category.hiddenPreviewsBodyPlaceholder,
                  categorySummaryFormat: category.summaryFormat, options: Options(rawValue: Int(category.options.rawValue)))
    }

    /// The category as the protocol's model holds it (the options Apple defines, the others left out).
    var model: TidingsProtocol.NotificationCategory {
        TidingsProtocol.NotificationCategory(
            identifier: identifier, actions: actions.map(\.model),
            options: TidingsProtocol.NotificationCategory.Options(rawValue: UInt32(truncatingIfNeeded: options.rawValue)),
            intentIdentifiers: intentIdentifiers, hiddenPreviewsBodyPlaceholder: hiddenPreviewsBodyPlaceholder,
            summaryFormat: categorySummaryFormat)
    }

    /// As `categories.register` takes it: the protocol's model's JSON.
    var json: JSONValue { JSONValue(model.json) }

    /// Reads a category as `categories.list` gives it, with the protocol's
    /// reader; nil when it is not one.
    init?(json: JSONValue) {
        guard let category = TidingsProtocol.NotificationCategory.read(json.wire).category else { return nil }
        self.init(category)
    }
}
