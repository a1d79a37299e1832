/// What delivered a notification's request (UNNotificationTrigger and its
/// subclasses), as it was when the notification was delivered: read it as
/// `notification.request.trigger`.
///
///     switch notification.request.trigger {
///     case .calendar(let components, _)?: show("Your \(components.hour ?? 0):00 reminder")
///     case .push?: show("From the server")
///     default: break
///     }
public enum NotificationTrigger: Sendable, Equatable {
    /// The notification came as an APNs payload (UNPushNotificationTrigger).
    case push
    /// Seconds after the request was added; when repeating, between firings
    /// (UNTimeIntervalNotificationTrigger).
    case timeInterval(Double, repeats: Bool)
    /// The dates the components match (UNCalendarNotificationTrigger).
    case calendar(TriggerDateComponents, repeats: Bool)
    /// The device entering or leaving a region (UNLocationNotificationTrigger).
    case location(CircularRegion, repeats: Bool)

    /// Whether it fires again after firing (`repeats`; false for a push).
    public var repeats: Bool {
        switch self {
        case .push: false
        case .timeInterval(_, let repeats), .calendar(_, let repeats), .location(_, let repeats): repeats
        }
    }

    /// A time-interval trigger's seconds (`timeInterval`); nil for another kind.
    public var timeInterval: Double? {
        if case .timeInterval(let seconds, _) = self { seconds } else { nil }
    }

    /// A calendar trigger's components (`dateComponents`); nil for another kind.
    public var dateComponents: TriggerDateComponents? {
        if case .calendar(let components, _) = self { components } else { nil }
    }

    /// A location trigger's region (`region`); nil for another kind.
    public var region: CircularRegion? {
        if case .location(let region, _) = self { region } else { nil }
    }
}

/// The date components a calendar trigger matches (DateComponents), in the
/// Gregorian calendar: nil for a component not given.
public struct TriggerDateComponents: Sendable, Equatable {
    /// 1 for AD, 0 for BC.
    public var era: Int?
    /// The year, such as 2027.
    public var year: Int?
    /// 1 … 12.
    public var month: Int?
    /// 1 … 31.
    public var day: Int?
    /// 0 … 23.
    public var hour: Int?
    /// 0 … 59.
    public var minute: Int?
    /// 0 … 59.
    public var second: Int?
    /// 1 (Sunday) … 7 (Saturday).
    public var weekday: Int?
    /// Which of the month's `weekday`s: 1 the first … 5 the fifth.
    public var weekdayOrdinal: Int?
    /// 1 … 6.
    public var weekOfMonth: Int?
    /// 1 … 53.
    public var weekOfYear: Int?
    /// The time zone matched in, by name ("Europe/Paris"); nil for the user's.
    public var timeZone: String?

    /// Components; by default none (every second matches).
    public init(era: Int? = nil, year: Int? = nil, month: Int? = nil, day: Int? = nil, hour: Int? = nil,
                minute: Int? = nil, second: Int? = nil, weekday: Int? = nil, weekdayOrdinal: Int? = nil,
                weekOfMonth: Int? = nil, weekOfYear: Int? = nil, timeZone: String? = nil) {
        self.era = era
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.weekday = weekday
        self.weekdayOrdinal = weekdayOrdinal
        self.weekOfMonth = weekOfMonth
        self.weekOfYear = weekOfYear
        self.timeZone = timeZone
    }
}

/// A circle on the Earth's surface (CLCircularRegion) and the crossings of
/// its edge a location trigger fires on.
public struct CircularRegion: Sendable, Equatable {
    /// Names the region (CLRegion.identifier).
    public var identifier: String
    /// The centre's latitude and longitude in degrees (`center`).
    public var latitude: Double, longitude: Double
    /// The radius in metres.
    public var radius: Double
    /// Fires when the device enters the region.
    public var notifyOnEntry: Bool
    /// Fires when the device leaves the region.
    public var notifyOnExit: Bool

    /// A region of `identifier` centred on `latitude`, `longitude`, `radius` metres across from its centre.
    public init(identifier: String, latitude: Double, longitude: Double, radius: Double,
                notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
        self.identifier = identifier
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }
}
