/// What makes a scheduled request deliver (`UNNotificationTrigger`): one of
/// ``TimeIntervalNotificationTrigger``, ``CalendarNotificationTrigger`` and
/// ``LocationNotificationTrigger``.
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
    public var protocolJSON: JSONValue { ["timeInterval": .double(timeInterval), "repeats": .bool(repeats)] }
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
    /// The time zone's name (`Europe/Berlin`); the user's zone when nil.
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

    /// Each numeric component's protocol name and key path.
    static var fields: [(String, WritableKeyPath<TriggerDateComponents, Int?>)] {
        [("era", \.era), ("year", \.year), ("month", \.month), ("day", \.day), ("hour", \.hour),
         ("minute", \.minute), ("second", \.second), ("weekday", \.weekday), ("weekdayOrdinal", \.weekdayOrdinal),
         ("weekOfMonth", \.weekOfMonth), ("weekOfYear", \.weekOfYear)]
    }

    /// The components set, as `dateMatching` takes them.
    var json: JSONValue {
        var members: [String: JSONValue] = [:]
        for (name, path) in Self.fields { if let value = self[keyPath: path] { members[name] = .integer(Int64(value)) } }
        if let timeZone { members["timeZone"] = .string(timeZone) }
        return .object(members)
    }

    /// Reads `dateMatching`.
    init(json: JSONValue) {
        for (name, path) in Self.fields { self[keyPath: path] = json[name]?.integerValue.map { Int($0) } }
        timeZone = json["timeZone"]?.stringValue
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
    public var protocolJSON: JSONValue { ["dateMatching": dateComponents.json, "repeats": .bool(repeats)] }
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
        ["region": ["identifier": .string(region.identifier), "latitude": .double(region.latitude),
                    "longitude": .double(region.longitude), "radius": .double(region.radius),
                    "notifyOnEntry": .bool(region.notifyOnEntry), "notifyOnExit": .bool(region.notifyOnExit)],
         "repeats": .bool(repeats)]
    }
}

/// Reads a trigger as `requests.pending` gives it; nil for one of another kind.
func decodeTrigger(_ json: JSONValue) -> (any NotificationTrigger)? {
    let repeats = json["repeats"]?.boolValue ?? false
    if let interval = json["timeInterval"]?.doubleValue {
        return TimeIntervalNotificationTrigger(timeInterval: interval, repeats: repeats)
    }
    if let components = json["dateMatching"] {
        return CalendarNotificationTrigger(dateMatching: TriggerDateComponents(json: components), repeats: repeats)
    }
    if let region = json["region"] {
        return LocationNotificationTrigger(region: CircularRegion(
            identifier: region["identifier"]?.stringValue ?? "", latitude: region["latitude"]?.doubleValue ?? 0,
            longitude: region["longitude"]?.doubleValue ?? 0, radius: region["radius"]?.doubleValue ?? 0,
            notifyOnEntry: region["notifyOnEntry"]?.boolValue ?? true,
            notifyOnExit: region["notifyOnExit"]?.boolValue ?? true), repeats: repeats)
    }
    return nil
}
