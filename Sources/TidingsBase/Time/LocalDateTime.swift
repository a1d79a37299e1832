/// A date and time on a wall clock, with no zone: what a clock in some
/// zone reads at some instant.
package struct LocalDateTime: Sendable, Hashable, CustomStringConvertible {
    /// The day.
    package var date: CivilDate
    /// Seconds since the day's midnight, 0 … 86399.
    package var secondOfDay: Int

    /// The date and time of `date` at `hour`:`minute`:`second`.
    package init(date: CivilDate, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.date = date
        secondOfDay = hour * 3600 + minute * 60 + second
    }

    /// The date and time `wallSeconds` after 1970-01-01 00:00:00 on the same clock.
    package init(wallSeconds: Int64) {
        let (days, second) = CivilDate.split(wallSeconds)
        date = CivilDate(daysSince1970: days)
        secondOfDay = second
    }

    /// The seconds from 1970-01-01 00:00:00 to this date and time on the same clock.
    package var wallSeconds: Int64 { date.daysSince1970 * 86400 + Int64(secondOfDay) }

    /// 0 … 23.
    package var hour: Int { secondOfDay / 3600 }
    /// 0 … 59.
    package var minute: Int { secondOfDay / 60 % 60 }
    /// 0 … 59.
    package var second: Int { secondOfDay % 60 }

    /// "2026-03-29 02:30:00".
    package var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(date) \(two(hour)):\(two(minute)):\(two(second))"
    }
}
