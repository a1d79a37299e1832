/// What an app asks to be allowed (`UNAuthorizationOptions`).
public struct AuthorizationOptions: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int
    /// Makes options of `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Badges on the app's icon.
    public static let badge = AuthorizationOptions(rawValue: 1 << 0)
    /// Sounds.
    public static let sound = AuthorizationOptions(rawValue: 1 << 1)
    /// Alerts: banners and the list.
    public static let alert = AuthorizationOptions(rawValue: 1 << 2)
    /// Notifications in CarPlay.
    public static let carPlay = AuthorizationOptions(rawValue: 1 << 3)
    /// Critical alerts, which sound through Do Not Disturb.
    public static let criticalAlert = AuthorizationOptions(rawValue: 1 << 4)
    /// The app shows its own notification settings.
    public static let providesAppNotificationSettings = AuthorizationOptions(rawValue: 1 << 5)
    /// Provisional authorization: granted at once, notifications delivered quietly.
    public static let provisional = AuthorizationOptions(rawValue: 1 << 6)

    /// The protocol's name of each option, in the order of their bits.
    static let names: [(AuthorizationOptions, String)] = [
        (.badge, "badge"), (.sound, "sound"), (.alert, "alert"), (.carPlay, "carPlay"),
        (.criticalAlert, "criticalAlert"), (.providesAppNotificationSettings, "providesAppNotificationSettings"),
        (.provisional, "provisional"),
    ]

    /// The options as `authorization.request` takes them.
    var json: JSONValue { .array(Self.names.filter { contains($0.0) }.map { .string($0.1) }) }
}

/// Where an app's authorization stands (`UNAuthorizationStatus`).
public enum AuthorizationStatus: Int, Sendable, Hashable {
    /// The app has not asked yet, or the user has not answered.
    case notDetermined = 0
    /// The user does not allow the app's notifications.
    case denied = 1
    /// The user allows them.
    case authorized = 2
    /// Allowed provisionally: delivered quietly.
    case provisional = 3
    /// Allowed for a limited time (App Clips on iOS).
    case ephemeral = 4

    /// The status a protocol name says; nil for an unknown one.
    init?(name: String) {
        switch name {
        case "notDetermined": self = .notDetermined
        case "denied": self = .denied
        case "authorized": self = .authorized
        case "provisional": self = .provisional
        case "ephemeral": self = .ephemeral
        default: return nil
        }
    }
}

/// How a notification is presented while the app is in the foreground
/// (`UNNotificationPresentationOptions`), as the delegate's `willPresent` chooses.
public struct PresentationOptions: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int
    /// Makes options of `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Set the badge the notification carries.
    public static let badge = PresentationOptions(rawValue: 1 << 0)
    /// Play its sound.
    public static let sound = PresentationOptions(rawValue: 1 << 1)
    /// Keep it in the notification list.
    public static let list = PresentationOptions(rawValue: 1 << 2)
    /// Show it as a banner.
    public static let banner = PresentationOptions(rawValue: 1 << 3)

    /// The protocol's name of each option.
    static let names: [(PresentationOptions, String)] = [(.banner, "banner"), (.list, "list"), (.sound, "sound"), (.badge, "badge")]

    /// The options as the answer to `app.willPresent` carries them.
    var json: JSONValue { .array(Self.names.filter { contains($0.0) }.map { .string($0.1) }) }
}
