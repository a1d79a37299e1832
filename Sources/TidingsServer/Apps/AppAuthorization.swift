import TidingsBase
import TidingsRuntime

/// What the user decided about an app's notifications
/// (UNAuthorizationStatus, Apple's 0…4) and the options it was granted
/// (UNAuthorizationOptions): kept in the server's state, one record per app.
package struct AppAuthorization: Sendable, Equatable {
    /// UNAuthorizationStatus, by the names of Apple's cases.
    package enum Status: String, Sendable, CaseIterable {
        /// The app has not asked, or the user has not answered.
        case notDetermined
        /// The user turned the app's notifications off.
        case denied
        /// The user allowed them.
        case authorized
        /// Granted without asking, delivered quietly until the user keeps or turns them off.
        case provisional
        /// An App Clip's (granted for a while); never decided here, read back when kept.
        case ephemeral
    }

    /// UNAuthorizationOptions, by the names of Apple's members.
    package enum Option: String, Sendable, CaseIterable, Comparable {
        /// Set the app's badge.
        case badge
        /// Play sounds.
        case sound
        /// Show alerts (banners, the notification centre).
        case alert
        /// Show in CarPlay (no equivalent here; kept as granted).
        case carPlay
        /// Play critical alerts' sounds.
        case criticalAlert
        /// The app has its own notification settings screen.
        case providesAppNotificationSettings
        /// Deliver quietly without asking (provisional authorization).
        case provisional

        /// Options order as Apple lists them.
        package static func < (left: Option, right: Option) -> Bool {
            allCases.firstIndex(of: left)! < allCases.firstIndex(of: right)!
        }
    }

    /// The decision.
    package var status: Status
    /// The options the app asked for and was granted (kept when denied, to
    /// be granted again if the user allows it later).
    package var options: Set<Option>

    /// `status` with `options`.
    package init(status: Status, options: Set<Option> = []) {
        self.status = status
        self.options = options
    }

    /// Not determined: what an app that never asked has.
    package static let notDetermined = AppAuthorization(status: .notDetermined)

    /// True when its notifications may be presented at all (authorized, provisional, ephemeral).
    package var granted: Bool {
        status == .authorized || status == .provisional || status == .ephemeral
    }

    /// The options as JSON names, in Apple's order.
    package var optionNames: JSON {
        .array(options.sorted().map { .string($0.rawValue) })
    }

    /// Its journal record: `{"authorization": APP, "status": S, "options": [names]}`.
    func record(of app: String) -> JSON {
        .object([("authorization", .string(app)), ("status", .string(status.rawValue)), ("options", optionNames)])
    }

    /// The authorization a journal record holds; nil when it is not one.
    init?(record: JSON) {
        guard let status = record["status"]?.stringValue.flatMap(Status.init(rawValue:)),
              let names = record["options"]?.arrayValue else { return nil }
        self.init(status: status, options: Set(names.compactMap { $0.stringValue.flatMap(Option.init(rawValue:)) }))
    }

    /// UNNotificationSettings as JSON, as this authorization makes them:
    /// `unasked` is how an app that never asked is delivered, `previews` the
    /// app's registered show-previews setting. Each setting is
    /// `notSupported`, `disabled` or `enabled`: what Linux has no equivalent
    /// of (announcements, scheduled delivery, direct messages) is not
    /// supported; an app that never asked and is delivered has the rest
    /// enabled; a provisional one is listed only; an authorized one has what
    /// it was granted.
    func settings(unasked: UnaskedApps, previews: ShowPreviews) -> JSON {
        let asked = status != .notDetermined
        let delivering = granted || (!asked && unasked == .deliver)
        let alerting = delivering && status != .provisional
        func setting(_ option: Option) -> JSON {
            .string(alerting && (!asked || options.contains(option)) ? "enabled" : "disabled")
        }
        func enabled(_ on: Bool) -> JSON { .string(on ? "enabled" : "disabled") }
        let notSupported = JSON.string("notSupported")
        return .object([
            ("authorizationStatus", .string(status.rawValue)),
            ("alertSetting", setting(.alert)),
            ("soundSetting", setting(.sound)),
            ("badgeSetting", setting(.badge)),
            ("lockScreenSetting", enabled(alerting)),
            ("notificationCenterSetting", enabled(delivering)),
            ("criticalAlertSetting", enabled(alerting && options.contains(.criticalAlert))),
            ("announcementSetting", notSupported),
            ("timeSensitiveSetting", enabled(alerting)),
            ("scheduledDeliverySetting", notSupported),
            ("directMessagesSetting", notSupported),
            ("alertStyle", .string(alerting && (!asked || options.contains(.alert)) ? "banner" : "none")),
            ("showPreviewsSetting", .string(previews == .never ? "never" : "always")),
            ("providesAppNotificationSettings", .bool(options.contains(.providesAppNotificationSettings))),
        ])
    }

    /// Whether the app's badge shows: authorized with `badge` (a
    /// provisional app's notifications are listed only, unbadged); `unasked` decides for one that never asked.
    func showsBadge(unasked: UnaskedApps) -> Bool {
        switch status {
        case .notDetermined: unasked == .deliver
        case .denied, .provisional: false
        case .authorized, .ephemeral: options.contains(.badge)
        }
    }

    /// How its notifications may show; `unasked` decides for an app that never asked.
    func policy(unasked: UnaskedApps) -> PresentationPolicy {
        switch status {
        case .notDetermined: unasked == .deliver ? .present : .deny
        case .denied: .deny
        case .provisional: .quiet
        case .authorized, .ephemeral: .present
        }
    }
}

/// How the server delivers an app that never asked for authorization
/// (`tidings serve --unasked-apps`): Linux apps predate the prompt.
package enum UnaskedApps: String, Sendable, CaseIterable {
    /// As authorized (the default).
    case deliver
    /// As denied.
    case deny
}
