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

        /// Each option's name in a category file.
        static let names: [(Options, String)] = [
            (.authenticationRequired, "authenticationRequired"), (.destructive, "destructive"), (.foreground, "foreground"),
        ]
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

    /// An action titled `title`.
    public init(identifier: String, title: String, options: Options = [], textInput: TextInput? = nil) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
    }

    /// As `categories.register` takes it.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "identifier": .string(identifier), "title": .string(title),
            "options": .array(Options.names.filter { options.contains($0.0) }.map { .string($0.1) }),
        ]
        if let textInput {
            members["textInput"] = ["buttonTitle": .string(textInput.buttonTitle),
                                    "placeholder": .string(textInput.placeholder)]
        }
        return .object(members)
    }

    /// Reads an action as `categories.list` gives it.
    init(json: JSONValue) {
        identifier = json["identifier"]?.stringValue ?? ""
        title = json["title"]?.stringValue ?? identifier
        let names = json["options"]?.strings ?? []
        options = Options(Options.names.filter { names.contains($0.1) }.map(\.0))
        textInput = json["textInput"].map { input in
            TextInput(buttonTitle: input["buttonTitle"]?.stringValue ?? "", placeholder: input["placeholder"]?.stringValue ?? "")
        }
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

        /// Each option's name in a category file.
        static let names: [(Options, String)] = [
            (.customDismissAction, "customDismissAction"), (.allowInCarPlay, "allowInCarPlay"),
            (.hiddenPreviewsShowTitle, "hiddenPreviewsShowTitle"), (.hiddenPreviewsShowSubtitle, "hiddenPreviewsShowSubtitle"),
        ]
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

    /// As `categories.register` takes it.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "identifier": .string(identifier), "actions": .array(actions.map(\.json)),
            "intentIdentifiers": .array(intentIdentifiers.map(JSONValue.string)),
            "options": .array(Options.names.filter { options.contains($0.0) }.map { .string($0.1) }),
        ]
        if let hiddenPreviewsBodyPlaceholder { members["hiddenPreviewsBodyPlaceholder"] = .string(hiddenPreviewsBodyPlaceholder) }
        if let categorySummaryFormat { members["categorySummaryFormat"] = .string(categorySummaryFormat) }
        return .object(members)
    }

    /// Reads a category as `categories.list` gives it.
    init(json: JSONValue) {
        identifier = json["identifier"]?.stringValue ?? ""
        actions = (json["actions"]?.arrayValue ?? []).map(NotificationAction.init(json:))
        intentIdentifiers = json["intentIdentifiers"]?.strings ?? []
        hiddenPreviewsBodyPlaceholder = json["hiddenPreviewsBodyPlaceholder"]?.stringValue
        categorySummaryFormat = json["categorySummaryFormat"]?.stringValue
        let names = json["options"]?.strings ?? []
        options = Options(Options.names.filter { names.contains($0.1) }.map(\.0))
    }
}
