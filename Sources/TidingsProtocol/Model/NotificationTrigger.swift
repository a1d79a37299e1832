import TidingsBase

/// What makes a request deliver its notification (UNNotificationTrigger):
/// the time since it was added, a date and time of day, the device entering
/// or leaving a region, or, for remote notifications, the push that carried it.
///
/// As JSON, what `requests.add` takes in a request's `trigger` and what a
/// notification object carries:
///
///     {"timeInterval": 90, "repeats": false}
///     {"dateMatching": {"hour": 8, "minute": 30}, "repeats": true}
///     {"region": {"identifier": "office", "latitude": 48.85, "longitude": 2.35,
///                 "radius": 100, "notifyOnEntry": true, "notifyOnExit": false}, "repeats": false}
///     {"push": true}
package enum NotificationTrigger: Sendable, Equatable {
    /// The notification came as an APNs payload (UNPushNotificationTrigger); apps never make one.
    case push
    /// After a number of seconds (UNTimeIntervalNotificationTrigger).
    case timeInterval(seconds: Double, repeats: Bool)
    /// At the dates a set of date components matches (UNCalendarNotificationTrigger).
    case calendar(DateMatching, repeats: Bool)
    /// When the device enters or leaves a region (UNLocationNotificationTrigger).
    case location(CircularRegion, repeats: Bool)

    /// Whether it fires again after firing (false for a push).
    package var repeats: Bool {
        switch self {
        case .push: false
        case .timeInterval(_, let repeats), .calendar(_, let repeats), .location(_, let repeats): repeats
        }
    }

    /// The shortest interval a repeating time-interval trigger may have, in seconds, as on iOS.
    package static let shortestRepeatingInterval = 60.0
    /// The longest interval a time-interval trigger may have, in seconds
    /// (about 317 years): its fire date, from the wall clock or the elapsed
    /// one, then fits the scheduler's nanoseconds and a four-digit year.
    package static let longestInterval = 10_000_000_000.0

    /// The trigger as JSON (see the type's summary).
    package var json: JSON {
        switch self {
        case .push:
            .object([("push", .bool(true))])
        case .timeInterval(let seconds, let repeats):
            .object([("timeInterval", .double(seconds)), ("repeats", .bool(repeats))])
        case .calendar(let matching, let repeats):
            .object([("dateMatching", matching.json), ("repeats", .bool(repeats))])
        case .location(let region, let repeats):
            .object([("region", region.json), ("repeats", .bool(repeats))])
        }
    }
}

/// A circle on the Earth's surface (CLCircularRegion) and which crossings
/// of its edge a location trigger fires on.
package struct CircularRegion: Sendable, Equatable {
    /// Names the region; unique among an app's regions only by convention.
    package var identifier: String
    /// The centre's latitude in degrees, -90 … 90.
    package var latitude: Double
    /// The centre's longitude in degrees, -180 … 180.
    package var longitude: Double
    /// The radius in metres, more than 0.
    package var radius: Double
    /// Fire when the device enters the region.
    package var notifyOnEntry: Bool
    /// Fire when the device leaves the region.
    package var notifyOnExit: Bool

    /// A region of `identifier` centred on `latitude`, `longitude`, `radius`
    /// metres across from its centre, firing on the crossings given.
    package init(identifier: String, latitude: Double, longitude: Double, radius: Double,
                 notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
        self.identifier = identifier
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    /// The region as JSON: `identifier`, `latitude`, `longitude`, `radius`, `notifyOnEntry`, `notifyOnExit`.
    package var json: JSON {
        .object([("identifier", .string(identifier)), ("latitude", .double(latitude)),
                 ("longitude", .double(longitude)), ("radius", .double(radius)),
                 ("notifyOnEntry", .bool(notifyOnEntry)), ("notifyOnExit", .bool(notifyOnExit))])
    }
}
