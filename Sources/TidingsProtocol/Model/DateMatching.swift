import TidingsBase

/// The date components a calendar trigger matches (the DateComponents of
/// UNCalendarNotificationTrigger): any subset, in the Gregorian calendar
/// and a time zone (the user's unless `timeZone` names one).
///
/// A component left out below the largest one given takes its smallest
/// value, and one above it matches any value (`minute: 30` alone: every
/// hour at half past; `hour: 8` alone: 08:00:00 each day; `month: 3`
/// alone: 1 March at midnight). Docs/reference/calendar-matching.md has
/// the whole of the rules.
///
/// As JSON, an object of the components given: `era`, `year`, `month`,
/// `day`, `hour`, `minute`, `second`, `weekday` (1 Sunday … 7 Saturday),
/// `weekdayOrdinal`, `weekOfMonth`, `weekOfYear`, and `timeZone` (a zone
/// name such as "Europe/Paris").
package struct DateMatching: Sendable, Equatable {
    /// 1 for AD, 0 for BC.
    package var era: Int?
    package var year: Int?
    /// 1 … 12.
    package var month: Int?
    /// 1 … 31.
    package var day: Int?
    /// 0 … 23.
    package var hour: Int?
    /// 0 … 59.
    package var minute: Int?
    /// 0 … 59.
    package var second: Int?
    /// 1 (Sunday) … 7 (Saturday).
    package var weekday: Int?
    /// Which of the month's weekdays of `weekday`: 1 the first … 5 the fifth.
    package var weekdayOrdinal: Int?
    /// The week of the month, 1 … 6 (weeks begin on Sunday; the first holds the 1st).
    package var weekOfMonth: Int?
    /// The week of the year, 1 … 53 (weeks begin on Sunday; the first holds 1 January).
    package var weekOfYear: Int?
    /// The time zone the components are matched in, by name; nil for the user's.
    package var timeZone: String?

    /// No components: matches nothing (as Foundation's `Calendar.nextDate`), so never fires.
    package init() {}

    /// The components `json` (the property) wrote, read back without the
    /// checks an app's are read with (`NotificationTrigger.read`): for what
    /// the host kept and reads again often — a pending calendar request's
    /// components, when it fires or the clock changes. Nil when `json` is
    /// not an object.
    package init?(written json: JSON) {
        guard let members = json.objectMembers else { return nil }
        for (name, value) in members {
            if name == "timeZone" {
                timeZone = value.stringValue
            } else if let number = value.integerValue.flatMap({ Int(exactly: $0) }) {
                self[component: name] = number
            }
        }
    }

    /// The names of the components, in the order JSON lists them.
    package static let componentNames = ["era", "year", "month", "day", "hour", "minute", "second",
                                         "weekday", "weekdayOrdinal", "weekOfMonth", "weekOfYear"]

    /// The component of `name` (one of `componentNames`).
    package subscript(component name: String) -> Int? {
        get {
            switch name {
            case "era": era
            case "year": year
            case "month": month
            case "day": day
            case "hour": hour
            case "minute": minute
            case "second": second
            case "weekday": weekday
            case "weekdayOrdinal": weekdayOrdinal
            case "weekOfMonth": weekOfMonth
            case "weekOfYear": weekOfYear
            default: nil
            }
        }
        set {
            switch name {
            case "era": era = newValue
            case "year": year = newValue
            case "month": month = newValue
            case "day": day = newValue
            case "hour": hour = newValue
            case "minute": minute = newValue
            case "second": second = newValue
            case "weekday": weekday = newValue
            case "weekdayOrdinal": weekdayOrdinal = newValue
            case "weekOfMonth": weekOfMonth = newValue
            case "weekOfYear": weekOfYear = newValue
            default: break
            }
        }
    }

    /// The components as JSON (see the type's summary).
    package var json: JSON {
        var members: [(String, JSON)] = Self.componentNames.compactMap { name in
            self[component: name].map { (name, .integer(Int64($0))) }
        }
        if let timeZone { members.append(("timeZone", .string(timeZone))) }
        return .object(members)
    }
}
