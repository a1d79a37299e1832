import TidingsBase
import TidingsProtocol

/// What makes a scheduled request deliver (`UNNotificationTrigger`): one of
/// ``TimeIntervalNotificationTrigger``, ``CalendarNotificationTrigger`` and
/// ``LocationNotificationTrigger``; a delivered remote notification's is a
/// ``PushNotificationTrigger``.
public protocol NotificationTrigger: Sendable {
    /// Whether it fires again after firing.
    var repeats: Bool { get }
    /// The trigger as `requests.add` takes it.
    var protocolJSON: JSONValue { get }
}

/// Fires after a time interval (`UNTimeIntervalNotificationTrigger`).
public struct TimeIntervalNotificationTrigger: NotificationTrigger, Hashable {
    /// Seconds from when it is added; more than 0, at least 60 when repeating.
    public var timeInterval: Double
    /// Whether it fires again each interval.
    public var repeats: Bool

    /// A trigger firing `timeInterval` seconds from now, and every such interval when `repeats`.
    public init(timeInterval: Double, repeats: Bool) {
        self.timeInterval = timeInterval
        self.repeats = repeats
    }

    /// `{"timeInterval": …, "repeats": …}`.
    public var protocolJSON: JSONValue {
        JSONValue(TidingsProtocol.NotificationTrigger.timeInterval(seconds: timeInterval, repeats: repeats).json)
    }
}

/// Date components to match (Foundation's `DateComponents`, as a calendar trigger takes
/// them): a component left nil matches any value.
public struct TriggerDateComponents: Sendable, Hashable {
    /// The era.
    public var era: Int?
    /// The year.
    public var year: Int?
    /// The month, 1 – 12.
    public var month: Int?
    /// The day of the month.
    public var day: Int?
    /// The hour, 0 – 23.
    public var hour: Int?
    /// The minute.
    public var minute: Int?
    /// The second.
    public var second: Int?
    /// The weekday, 1 Sunday … 7 Saturday.
    public var weekday: Int?
    /// Which of the month's weekdays (the second Tuesday: 2).
    public var weekdayOrdinal: Int?
    /// The week of the month.
    public var weekOfMonth: Int?
    /// The week of the year.
    public var weekOfYear: Int?
    /// The time zone's name (`Europe/Berlin`); when nil, the app's zone, as
    /// on the device: ``UserNotificationCenter/add(_:)`` sends the process's
    /// (`TZ`, else `/etc/localtime`'s name), which the host matches in.
    public var timeZone: String?

    /// Components with those given set.
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

    /// The components `matching` holds (what `dateMatching` carries, read by the protocol's model).
    init(_ matching: DateMatching) {
        self.init(era: matching.era, year: matching.year, month: matching.month, day: matching.day, hour: matching.hour,
                  minute: matching.minute, second: matching.second, weekday: matching.weekday,
                  weekdayOrdinal: matching.weekdayOrdinal, weekOfMonth: matching.weekOfMonth,
                  weekOfYear: matching.weekOfYear, timeZone: matching.timeZone)
    }

    /// The components as the protocol's model holds them (and writes them, as `dateMatching`).
    var matching: DateMatching {
        var matching = DateMatching()
        (matching.era, matching.year, matching.month, matching.day) = (era, year, month, day)
        (matching.hour, matching.minute, matching.second) = (hour, minute, second)
        (matching.weekday, matching.weekdayOrdinal) = (weekday, weekdayOrdinal)
        (matching.weekOfMonth, matching.weekOfYear, matching.timeZone) = (weekOfMonth, weekOfYear, timeZone)
        return matching
    }
}

/// Fires when the date matches components (`UNCalendarNotificationTrigger`).
public struct CalendarNotificationTrigger: NotificationTrigger, Hashable {
    /// The components the date must match.
    public var dateComponents: TriggerDateComponents
    /// Whether it fires at every match.
    public var repeats: Bool

    /// A trigger firing at the next date matching `dateComponents` (each one when `repeats`).
    public init(dateMatching dateComponents: TriggerDateComponents, repeats: Bool) {
        self.dateComponents = dateComponents
        self.repeats = repeats
    }

    /// `{"dateMatching": {…}, "repeats": …}`.
    public var protocolJSON: JSONValue {
        JSONValue(TidingsProtocol.NotificationTrigger.calendar(dateComponents.matching, repeats: repeats).json)
    }
}

/// A circle on the earth (`CLCircularRegion`).
public struct CircularRegion: Sendable, Hashable {
    /// Its identifier.
    public var identifier: String
    /// The centre's latitude, degrees.
    public var latitude: Double
    /// The centre's longitude, degrees.
    public var longitude: Double
    /// The radius, metres.
    public var radius: Double
    /// Whether entering it fires.
    public var notifyOnEntry: Bool
    /// Whether leaving it fires.
    public var notifyOnExit: Bool

    /// A region of `radius` metres around a centre, firing on entry, on exit, or both.
    public init(identifier: String, latitude: Double, longitude: Double, radius: Double,
                notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
        self.identifier = identifier
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    /// The region `region` of the protocol's model is.
    init(_ region: TidingsProtocol.CircularRegion) {
        self.init(identifier: region.identifier, latitude: region.latitude, longitude: region.longitude,
                  radius: region.radius, notifyOnEntry: region.notifyOnEntry, notifyOnExit: region.notifyOnExit)
    }

    /// The region as the protocol's model holds it.
    var model: TidingsProtocol.CircularRegion {
        TidingsProtocol.CircularRegion(identifier: identifier, latitude: latitude, longitude: longitude, radius: radius,
                                       notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit)
    }
}

/// Fires on entering or leaving a region (`UNLocationNotificationTrigger`);
/// the host learns the device's position from `location.update`.
public struct LocationNotificationTrigger: NotificationTrigger, Hashable {
    /// The region.
    public var region: CircularRegion
    /// Whether it fires at every crossing.
    public var repeats: Bool

    /// A trigger firing when the device crosses the edge of `region`.
    public init(region: CircularRegion, repeats: Bool) {
        self.region = region
        self.repeats = repeats
    }

    /// `{"region": {…}, "repeats": …}`.
    public var protocolJSON: JSONValue {
        JSONValue(TidingsProtocol.NotificationTrigger.location(region.model, repeats: repeats).json)
    }
}

/// What delivered a remote notification (`UNPushNotificationTrigger`): the
/// trigger of a notification delivered as an APNs payload (`{"push": true}`).
/// An app never makes one: a request added with it is refused by the host.
public struct PushNotificationTrigger: NotificationTrigger, Hashable {
    /// False: a push fires once.
    public var repeats: Bool { false }

    /// Made by the library only, for what the host delivered from a push.
    init() {}

    /// `{"push": true}`.
    public var protocolJSON: JSONValue {
        JSONValue(TidingsProtocol.NotificationTrigger.push.json)
    }
}

/// Reads a trigger as `requests.pending` and delivered notifications give
/// it, with the protocol's reader (what the host wrote: its zone is not
/// looked up here); nil for what is not a trigger.
func decodeTrigger(_ json: JSONValue) -> (any NotificationTrigger)? {
    switch TidingsProtocol.NotificationTrigger.read(json.wire, allowingPush: true, zoneExists: nil).trigger {
    case .timeInterval(let seconds, let repeats)?:
        TimeIntervalNotificationTrigger(timeInterval: seconds, repeats: repeats)
    case .calendar(let matching, let repeats)?:
        CalendarNotificationTrigger(dateMatching: TriggerDateComponents(matching), repeats: repeats)
    case .location(let region, let repeats)?:
        LocationNotificationTrigger(region: CircularRegion(region), repeats: repeats)
    case .push?:
        PushNotificationTrigger()
    case nil:
        nil
    }
}
