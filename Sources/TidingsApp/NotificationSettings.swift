/// Whether a setting applies and is on (`UNNotificationSetting`).
public enum NotificationSetting: String, Sendable, Hashable {
    /// The setting does not apply to the app.
    case notSupported
    /// It is off.
    case disabled
    /// It is on.
    case enabled
}

/// How alerts are shown (`UNAlertStyle`).
public enum AlertStyle: String, Sendable, Hashable {
    /// Not at all.
    case none
    /// As banners that go away by themselves.
    case banner
    /// As alerts that stay until the user acts.
    case alert
}

/// When previews are shown (`UNShowPreviewsSetting`).
public enum ShowPreviewsSetting: String, Sendable, Hashable {
    /// Always.
    case always
    /// Only while the device is unlocked (the protocol's `whenUnlocked`).
    case whenAuthenticated = "whenUnlocked"
    /// Never: the category's placeholder instead.
    case never
}

/// The app's notification settings (`UNNotificationSettings`), as `authorization.settings` answers them.
public struct NotificationSettings: Sendable, Hashable {
    /// Where the app's authorization stands.
    public var authorizationStatus: AuthorizationStatus
    /// Alerts.
    public var alertSetting: NotificationSetting
    /// Sounds.
    public var soundSetting: NotificationSetting
    /// Badges.
    public var badgeSetting: NotificationSetting
    /// The lock screen.
    public var lockScreenSetting: NotificationSetting
    /// The notification list.
    public var notificationCenterSetting: NotificationSetting
    /// Critical alerts.
    public var criticalAlertSetting: NotificationSetting
    /// Announcement by Siri.
    public var announcementSetting: NotificationSetting
    /// Time-sensitive notifications.
    public var timeSensitiveSetting: NotificationSetting
    /// The scheduled summary.
    public var scheduledDeliverySetting: NotificationSetting
    /// Direct messages.
    public var directMessagesSetting: NotificationSetting
    /// How alerts are shown.
    public var alertStyle: AlertStyle
    /// When previews are shown.
    public var showPreviewsSetting: ShowPreviewsSetting
    /// Whether the app shows its own notification settings.
    public var providesAppNotificationSettings: Bool

    /// Reads the settings from the host's answer; unknown names read as the most cautious value.
    init(json: JSONValue) {
        func setting(_ key: String) -> NotificationSetting {
            json[key]?.stringValue.flatMap(NotificationSetting.init(rawValue:)) ?? .notSupported
        }
        authorizationStatus = json["authorizationStatus"]?.stringValue.flatMap(AuthorizationStatus.init(name:))
            ?? .notDetermined
        alertSetting = setting("alertSetting")
        soundSetting = setting("soundSetting")
        badgeSetting = setting("badgeSetting")
        lockScreenSetting = setting("lockScreenSetting")
        notificationCenterSetting = setting("notificationCenterSetting")
        criticalAlertSetting = setting("criticalAlertSetting")
        announcementSetting = setting("announcementSetting")
        timeSensitiveSetting = setting("timeSensitiveSetting")
        scheduledDeliverySetting = setting("scheduledDeliverySetting")
        directMessagesSetting = setting("directMessagesSetting")
        alertStyle = json["alertStyle"]?.stringValue.flatMap(AlertStyle.init(rawValue:)) ?? .none
        showPreviewsSetting = json["showPreviewsSetting"]?.stringValue.flatMap(ShowPreviewsSetting.init(rawValue:))
            ?? .always
        providesAppNotificationSettings = json["providesAppNotificationSettings"]?.boolValue ?? false
    }
}
