/// A notification as an extension receives it (UNNotification): copied out of
/// the host's borrowed C structs, so it may be kept.
public struct DeliveredNotification: Sendable {
    /// The request identifier.
    public let identifier: String
    /// Delivery time in seconds since 1970-01-01 UTC.
    public let date: Double
    /// What the notification says: title, body, category, userInfo, attachments.
    public let content: NotificationContent
    /// What delivered it, from the host's `tidings.trigger/1`; nil for a
    /// request delivered at once and from a host without the interface.
    let trigger: NotificationTrigger?

    /// The request the notification was delivered for (UNNotification.request):
    /// its identifier, content and trigger.
    public var request: NotificationRequest {
        NotificationRequest(identifier: identifier, content: content, trigger: trigger)
    }
}

/// A request for a notification (UNNotificationRequest), as delivered.
public struct NotificationRequest: Sendable {
    /// The request identifier.
    public let identifier: String
    /// What the notification says.
    public let content: NotificationContent
    /// What delivered it: `.push` for a remote notification, the trigger of
    /// a request the app scheduled; nil for a request delivered at once, and
    /// from a host that does not tell (one without `tidings.trigger/1`).
    public let trigger: NotificationTrigger?
}

/// What a notification says (UNNotificationContent). A service extension
/// changes a copy (UNMutableNotificationContent) and hands it back.
public struct NotificationContent: Sendable {
    /// The title ("" for none).
    public var title: String
    /// The subtitle ("" for none).
    public var subtitle: String
    /// The body ("" for none).
    public var body: String
    /// The category, which chooses the content extension and the actions ("" for none).
    public var categoryIdentifier: String
    /// The thread it is grouped in ("" for none).
    public var threadIdentifier: String
    /// The identifier of the app's content it is about, for the app's scene; nil for none.
    public var targetContentIdentifier: String?
    /// The sound's name ("default" for the default sound); nil for silence.
    public var sound: String?
    /// The badge; nil when the notification leaves it as it is.
    public var badge: Int64?
    /// How urgently it asks for attention, with Apple's raw values (passive 0 … critical 3).
    public var interruptionLevel: Int32
    /// Between 0 and 1.
    public var relevanceScore: Double
    /// The userInfo dictionary's top-level entries, in the payload's order.
    public var userInfo: [UserInfoEntry]
    /// The attachments; the first is shown as the thumbnail.
    public var attachments: [NotificationAttachment]

    // From the host's `tidings.content/1`; their defaults from a host without it.

    /// The launch image's name; "" for none.
    public var launchImageName = ""
    /// The summary argument (`%@`; "" for none) and the items it counts (`%u`; 0 counts as 1).
    public var summaryArgument = "", summaryArgumentCount = 0
    /// The Focus filter criteria; nil for none.
    public var filterCriteria: String?
    /// A critical sound (it plays when muted) and its volume, 0…1 (nil: the system's).
    public var criticalSound = false, soundVolume: Double?

    /// The string value of the userInfo entry `key`, if there is one and it is a string.
    public func userInfoString(_ key: String) -> String? {
        userInfo.first { $0.key == key }?.string
    }
}

/// One top-level userInfo entry.
public struct UserInfoEntry: Sendable {
    /// The entry's key.
    public let key: String
    /// The value as JSON text.
    public let json: String
    /// The value when it is a string.
    public let string: String?

    /// An entry whose value is the string `value`.
    public init(key: String, string value: String) {
        self.key = key
        string = value
        var quoted = "\""
        for character in value.unicodeScalars {
            switch character {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: quoted.unicodeScalars.append(character)
            }
        }
        json = quoted + "\""
    }

    /// An entry whose value is the JSON text `json`.
    public init(key: String, json: String) {
        self.key = key
        self.json = json
        string = nil
    }
}

/// A media file attached to a notification (UNNotificationAttachment).
public struct NotificationAttachment: Sendable {
    /// The attachment's identifier, unique within the notification.
    public let identifier: String
    /// Its uniform type identifier, such as "public.png".
    public let type: String
    /// A file:// URL of the file in the host's store. Read it with
    /// `NotificationExtensionContext.openAttachment(_:)`.
    public let url: String
    /// Its size in bytes (0 from a version 1 host).
    public let size: UInt64
    /// Its thumbnail options.
    public let thumbnail: ThumbnailOptions
}

/// How an attachment's thumbnail is shown (UNNotificationAttachment's options).
public struct ThumbnailOptions: Sendable, Equatable {
    /// Hide the thumbnail.
    public var hidden: Bool
    /// The part shown, normalised to 0…1 (x, y, width, height); nil for the whole.
    public var clippingRect: (x: Double, y: Double, width: Double, height: Double)?
    /// The moment of a video or animation shown, in seconds; nil for the default.
    public var time: Double?

    /// Options; by default the whole thumbnail at the default moment.
    public init(hidden: Bool = false, clippingRect: (x: Double, y: Double, width: Double, height: Double)? = nil,
                time: Double? = nil) {
        self.hidden = hidden
        self.clippingRect = clippingRect
        self.time = time
    }

    /// True when both hide alike and show the same part at the same moment.
    public static func == (lhs: ThumbnailOptions, rhs: ThumbnailOptions) -> Bool {
        lhs.hidden == rhs.hidden && lhs.time == rhs.time
            && lhs.clippingRect.map { [$0.x, $0.y, $0.width, $0.height] }
            == rhs.clippingRect.map { [$0.x, $0.y, $0.width, $0.height] }
    }
}

/// The user's answer (UNNotificationResponse, UNTextInputNotificationResponse).
public struct NotificationResponse: Sendable {
    /// The identifier the host uses when the user opened the notification.
    public static let defaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
    /// The identifier the host uses when the user dismissed it (customDismissAction categories only).
    public static let dismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"

    /// The action the user chose: one of the category's (or the extension's)
    /// action identifiers, or `defaultActionIdentifier` (opened) or
    /// `dismissActionIdentifier` (dismissed).
    public let actionIdentifier: String
    /// What the user typed, for a text-input action.
    public let userText: String?
    /// The notification the user answered, as it was delivered.
    public let notification: DeliveredNotification
}

/// An action button an extension may show instead of the category's (UNNotificationAction).
public struct NotificationAction: Sendable {
    /// Action options, with Apple's raw values.
    public struct Options: OptionSet, Sendable {
        /// The options' bits, with Apple's raw values.
        public let rawValue: UInt32
        /// Creates options from Apple's raw value.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// The action needs the device unlocked.
        public static let authenticationRequired = Options(rawValue: 1)
        /// The action destroys something: drawn in red.
        public static let destructive = Options(rawValue: 2)
        /// The action opens the app.
        public static let foreground = Options(rawValue: 4)
    }

    /// The identifier the response carries when the user chooses it.
    public var identifier: String
    /// The button's title.
    public var title: String
    /// How it is drawn and what it needs.
    public var options: Options
    /// For a text-input action: the send button's title and the placeholder.
    public var textInput: (buttonTitle: String, placeholder: String)?

    /// A plain or text-input action.
    public init(identifier: String, title: String, options: Options = [],
                textInput: (buttonTitle: String, placeholder: String)? = nil) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
    }
}

/// A colour as 8-bit red, green, blue and alpha.
public struct Color: Sendable, Equatable {
    /// Packed as 0xRRGGBBAA.
    public let rgba: UInt32

    /// A colour from components between 0 and 255.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        rgba = UInt32(red) << 24 | UInt32(green) << 16 | UInt32(blue) << 8 | UInt32(alpha)
    }

    /// Apple's system green (#34C759).
    public static let systemGreen = Color(red: 0x34, green: 0xC7, blue: 0x59)
    /// Apple's system red (#FF3B30).
    public static let systemRed = Color(red: 0xFF, green: 0x3B, blue: 0x30)
    /// Apple's system blue (#007AFF).
    public static let systemBlue = Color(red: 0x00, green: 0x7A, blue: 0xFF)
}
