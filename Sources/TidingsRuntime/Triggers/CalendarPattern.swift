import TidingsBase

/// The wall-clock times a `DateMatching` matches, with the components left
/// out filled in (see `DateMatching.nextDate(after:in:)`): a day predicate
/// and, within a matching day, a range of hours, minutes and seconds.
struct CalendarPattern: Sendable {
    private var year: Int?
    private var month: Int?
    private var day: Int?
    private var weekday: Int?
    private var weekdayOrdinal: Int?
    private var weekOfMonth: Int?
    private var weekOfYear: Int?
    /// When only larger components than the day are given: which first day the day is.
    private var firstDay: FirstDay?
    private var hours: ClosedRange<Int>
    private var minutes: ClosedRange<Int>
    private var seconds: ClosedRange<Int>

    /// The day a pattern without day components takes: the first of the smallest period given.
    private enum FirstDay {
        /// 1 January (only the era or the year given).
        case ofYear
        /// The 1st (the month given).
        case ofMonth
        /// The week's first day in the month: its Sunday or the 1st.
        case ofWeekInMonth
        /// The week's Sunday.
        case ofWeek
    }

    /// The years searched past the first one before giving up: the Gregorian
    /// calendar (leap years and weekdays alike) repeats every 400 years.
    static let cycleYears = 400

    /// The pattern of `matching`; nil when it can never match a date to come
    /// (BC, or a day no month of the given ones has).
    init?(_ matching: DateMatching) {
        if matching.era == 0 { return nil }
        (year, month, day, weekday) = (matching.year, matching.month, matching.day, matching.weekday)
        (weekdayOrdinal, weekOfMonth, weekOfYear) = (matching.weekdayOrdinal, matching.weekOfMonth, matching.weekOfYear)
        if let day {
            let longest = month.map { CivilDate.daysIn(month: $0, of: 2000) } ?? 31
            guard day <= longest else { return nil }
        }
        let timeGiven = matching.hour != nil || matching.minute != nil || matching.second != nil
        let dayGiven = day != nil || weekday != nil || weekdayOrdinal != nil
        if !timeGiven && !dayGiven {
            if weekOfMonth != nil { firstDay = .ofWeekInMonth }
            else if weekOfYear != nil { firstDay = .ofWeek }
            else if month != nil { firstDay = .ofMonth }
            else if year != nil || matching.era != nil { firstDay = .ofYear }
        }
        let nothingGiven = DateMatching.componentNames.allSatisfy { matching[component: $0] == nil }
        // A component left out is free when a smaller one is given, its smallest value otherwise.
        let smallerThanHour = matching.minute != nil || matching.second != nil
        hours = matching.hour.map { $0...$0 } ?? (smallerThanHour || nothingGiven ? 0...23 : 0...0)
        minutes = matching.minute.map { $0...$0 } ?? (matching.second != nil || nothingGiven ? 0...59 : 0...0)
        seconds = matching.second.map { $0...$0 } ?? (nothingGiven ? 0...59 : 0...0)
    }

    /// The first wall time (seconds since 1970-01-01 00:00:00 on the wall
    /// clock) at or after `start` that matches, before the year `cycleYears`
    /// after `start`'s; nil when there is none.
    func firstWall(atOrAfter start: Int64) -> Int64? {
        let (startDays, startSecond) = CivilDate.split(start)
        let first = CivilDate(daysSince1970: startDays)
        let lastYear = min(year ?? Int.max, first.year + Self.cycleYears)
        var (currentYear, currentMonth, fromDay, fromSecond) = (first.year, first.month, first.day, startSecond)
        while currentYear <= lastYear {
            if let year, currentYear < year {
                (currentYear, currentMonth, fromDay, fromSecond) = (year, 1, 1, 0)
                continue
            }
            if let month, currentMonth != month {
                if currentMonth > month { currentYear += 1 }
                (currentMonth, fromDay, fromSecond) = (month, 1, 0)
                continue
            }
            if let found = firstWall(inYear: currentYear, month: currentMonth, fromDay: fromDay, fromSecond: fromSecond) {
                return found
            }
            (fromDay, fromSecond) = (1, 0)
            if currentMonth == 12 { (currentYear, currentMonth) = (currentYear + 1, 1) } else { currentMonth += 1 }
        }
        return nil
    }

    /// The first matching wall time in `year`-`month` from `fromDay` at `fromSecond` on.
    private func firstWall(inYear year: Int, month: Int, fromDay: Int, fromSecond: Int) -> Int64? {
        let firstOfMonth = CivilDate(year: year, month: month, day: 1)
        let monthStart = firstOfMonth.daysSince1970
        let firstWeekday = CivilDate.weekday(daysSince1970: monthStart)
        let length = CivilDate.daysIn(month: month, of: year)
        let days = day.map { $0 >= fromDay && $0 <= length ? $0..<$0 + 1 : 0..<0 } ?? fromDay..<length + 1
        for day in days {
            guard matches(year: year, month: month, day: day, weekday: (firstWeekday - 1 + day - 1) % 7 + 1,
                          firstWeekday: firstWeekday)
            else { continue }
            if let second = firstSecond(atOrAfter: day == fromDay ? fromSecond : 0) {
                return (monthStart + Int64(day - 1)) * 86400 + Int64(second)
            }
        }
        return nil
    }

    /// True when the day matches the day components (its year and month already do).
    private func matches(year: Int, month: Int, day: Int, weekday: Int, firstWeekday: Int) -> Bool {
        if let wanted = self.weekday, wanted != weekday { return false }
        if let weekdayOrdinal, weekdayOrdinal != (day - 1) / 7 + 1 { return false }
        if let weekOfMonth, weekOfMonth != (day - 1 + firstWeekday - 1) / 7 + 1 { return false }
        if let weekOfYear, weekOfYear != Self.weekOfYear(year: year, month: month, day: day, weekday: weekday) { return false }
        switch firstDay {
        case .ofYear: return month == 1 && day == 1
        case .ofMonth: return day == 1
        case .ofWeekInMonth: return weekday == 1 || day == 1
        case .ofWeek: return weekday == 1
        case nil: return true
        }
    }

    /// The week of the year of a day, weeks beginning on Sunday: week 1 holds
    /// 1 January, so the last days of December are in week 1 of the next year
    /// when their week holds its 1 January.
    static func weekOfYear(year: Int, month: Int, day: Int, weekday: Int) -> Int {
        let date = CivilDate(year: year, month: month, day: day)
        let dayOfYear = date.dayOfYear
        let daysInYear = CivilDate.isLeapYear(year) ? 366 : 365
        if dayOfYear + (7 - weekday) > daysInYear { return 1 }
        let januaryFirstWeekday = CivilDate.weekday(daysSince1970: date.daysSince1970 - Int64(dayOfYear - 1))
        return (dayOfYear - 1 + januaryFirstWeekday - 1) / 7 + 1
    }

    /// The first matching second of a day at or after `start` (0 … 86399).
    private func firstSecond(atOrAfter start: Int) -> Int? {
        let (startHour, startMinute, startSecond) = (start / 3600, start / 60 % 60, start % 60)
        var hour = max(startHour, hours.lowerBound)
        while hour <= hours.upperBound {
            var minute = max(hour == startHour ? startMinute : 0, minutes.lowerBound)
            while minute <= minutes.upperBound {
                let second = max(hour == startHour && minute == startMinute ? startSecond : 0, seconds.lowerBound)
                if second <= seconds.upperBound { return hour * 3600 + minute * 60 + second }
                minute += 1
            }
            hour += 1
        }
        return nil
    }
}
