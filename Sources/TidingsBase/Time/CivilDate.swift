/// A day of the proleptic Gregorian calendar (the Gregorian rules carried
/// back before 1582 and on without end), counted from 1 January 1970.
///
/// Year 0 is 1 BC, year -1 is 2 BC (astronomical numbering). Conversions
/// are exact for every day an `Int64` of seconds can reach.
package struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year: 0 is 1 BC, −1 is 2 BC.
    package var year: Int
    /// 1 (January) … 12 (December).
    package var month: Int
    /// 1 … 31.
    package var day: Int

    /// The date of `year`-`month`-`day`; the fields are taken as given (see `isValid`).
    package init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1 January 1970 (before it when negative).
    package init(daysSince1970 days: Int64) {
        // Howard Hinnant's civil_from_days: eras of 400 years from 1 March 0000.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    }

    /// The days from 1 January 1970 to this date (negative before it).
    package var daysSince1970: Int64 {
        let year = Int64(month <= 2 ? self.year - 1 : self.year)
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 1 (Sunday) … 7 (Saturday), as Foundation numbers weekdays.
    package var weekday: Int { Self.weekday(daysSince1970: daysSince1970) }

    /// "2026-03-29".
    package var description: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(abs(value))
            return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    /// True when `lhs` comes before `rhs`.
    package static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The weekday (1 Sunday … 7 Saturday) of the day `days` after 1 January 1970, a Thursday.
    package static func weekday(daysSince1970 days: Int64) -> Int {
        Int((days % 7 + 7 + 4) % 7) + 1
    }

    /// The day holding the second `seconds` after 1970's first (of UTC or
    /// of a wall clock), as days since 1970, and the seconds into that day.
    package static func split(_ seconds: Int64) -> (days: Int64, secondOfDay: Int) {
        let remainder = seconds % 86400
        return remainder < 0 ? (seconds / 86400 - 1, Int(remainder + 86400)) : (seconds / 86400, Int(remainder))
    }

    /// True for a Gregorian leap year: divisible by 4, but not by 100 unless by 400.
    package static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days of `month` (1 … 12) in `year`.
    package static func daysIn(month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
