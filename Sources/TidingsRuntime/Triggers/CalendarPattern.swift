import TidingsBase
import TidingsProtocol

/// The wall-clock times a `DateMatching` matches, with the components left
/// out filled in as Foundation fills them (see `DateMatching.nextDate(after:in:)`):
/// which days match, and within a matching day, which hours, minutes and seconds.
struct CalendarPattern: Sendable {
    private var year: Int?
    private var month: Int?
    private var day: Int?
    private var weekday: Int?
    private var weekdayOrdinal: Int?
    private var weekOfMonth: Int?
    private var weekOfYear: Int?
    /// Which of the matching days count.
    private var days: DayChoice
    private var hours: ClosedRange<Int>
    private var minutes: ClosedRange<Int>
    private var seconds: ClosedRange<Int>

    /// Which of the days the day components match count.
    private enum DayChoice {
        /// Every one (no year or month above a day left out).
        case all
        /// The first of each month (the month is given, the day is not: `month: 9, weekday: 7` is September's first Saturday).
        case firstOfMonth
        /// The first of each year (the year or era is given, the month and day are not).
        case firstOfYear
        /// The first of each run of matching days (only week components: `weekOfYear: 10` is its Sunday).
        case firstOfRun
    }

    /// The years searched past the first one before giving up: the Gregorian
    /// calendar (leap years and weekdays alike) repeats every 400 years.
    static let cycleYears = 400

    /// The pattern of `matching`; nil when it can never match a date to come
    /// (no component, BC, or a day no month of the given ones has).
    init?(_ matching: DateMatching) {
        guard matching.era != 0, DateMatching.componentNames.contains(where: { matching[component: $0] != nil }) else { return nil }
        (year, month, day, weekday) = (matching.year, matching.month, matching.day, matching.weekday)
        (weekdayOrdinal, weekOfMonth, weekOfYear) = (matching.weekdayOrdinal, matching.weekOfMonth, matching.weekOfYear)
        if let day, day > month.map({ CivilDate.daysIn(month: $0, of: 2000) }) ?? 31 { return nil }
        // Left out below the largest of era … second given: the smallest
        // value (the first matching day of the month or year, hour 0, …);
        // left out above it: any value.
        let (hour, minute, second) = (matching.hour, matching.minute, matching.second)
        if month != nil {
            days = day == nil ? .firstOfMonth : .all
        } else if year != nil || matching.era != nil {
            days = .firstOfYear
        } else if day != nil || hour != nil || minute != nil || second != nil || weekday != nil {
            days = .all
        } else {
            days = .firstOfRun
        }
        let largestIsTime = year == nil && month == nil && day == nil && matching.era == nil
        hours = hour.map { $0...$0 } ?? (largestIsTime && (minute != nil || second != nil) ? 0...23 : 0...0)
        minutes = minute.map { $0...$0 } ?? (largestIsTime && hour == nil && second != nil ? 0...59 : 0...0)
        seconds = second.map { $0...$0 } ?? 0...0
    }

    /// The first wall time (seconds since 1970-01-01 00:00:00 on the wall
    /// clock) at or after `start` that matches, up to the end of the year
    /// given, or else of the year `cycleYears` after `start`'s; nil when there is none.
    func firstWall(atOrAfter start: Int64) -> Int64? {
        let (startDays, startSecond) = CivilDate.split(start)
        let first = CivilDate(daysSince1970: startDays)
        let lastYear = year ?? first.year + Self.cycleYears
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
            if days == .firstOfYear {
                // The year's first matching day: ahead in this year, or next year's.
                guard let date = firstDay(ofYear: currentYear), date >= CivilDate(year: currentYear, month: currentMonth, day: fromDay) else {
                    (currentYear, currentMonth, fromDay, fromSecond) = (currentYear + 1, 1, 1, 0)
                    continue
                }
                if date.month != currentMonth { (currentMonth, fromDay, fromSecond) = (date.month, date.day, 0) }
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
        let facts = CalendarMonth(year: year, month: month)
        var candidates = day.map { $0..<$0 + 1 } ?? 1..<facts.length + 1
        if days == .firstOfMonth || days == .firstOfYear {
            // Only the month's first matching day counts (for the year's, the month is the one holding it).
            guard let first = candidates.first(where: { matches(facts, day: $0) }) else { return nil }
            candidates = first..<first + 1
        }
        for day in candidates where day >= fromDay && day <= facts.length && matches(facts, day: day) {
            if days == .firstOfRun, previousDayMatches(facts, day: day) { continue }
            if let second = firstSecond(atOrAfter: day == fromDay ? fromSecond : 0) {
                return (facts.firstDay + Int64(day - 1)) * 86400 + Int64(second)
            }
        }
        return nil
    }

    /// The first day of `year` the day components match.
    private func firstDay(ofYear year: Int) -> CivilDate? {
        for month in 1...12 where self.month.map({ $0 == month }) ?? true {
            let facts = CalendarMonth(year: year, month: month)
            for day in 1...facts.length where (self.day.map { $0 == day } ?? true) && matches(facts, day: day) {
                return CivilDate(year: year, month: month, day: day)
            }
        }
        return nil
    }

    /// True when the day before `day` of `month` matches too (then `day` does not begin a run).
    private func previousDayMatches(_ month: CalendarMonth, day: Int) -> Bool {
        if day > 1 { return matches(month, day: day - 1) }
        let previous = month.previous
        return matches(previous, day: previous.length)
    }

    /// True when `day` of `month` matches the day and week components (its year and month are checked by the caller).
    private func matches(_ month: CalendarMonth, day: Int) -> Bool {
        if let weekday, weekday != month.weekday(of: day) { return false }
        if let weekdayOrdinal, weekdayOrdinal != (day - 1) / 7 + 1 { return false }
        if let weekOfMonth, weekOfMonth != month.weekOfMonth(of: day) { return false }
        if let weekOfYear, weekOfYear != month.weekOfYear(of: day) { return false }
        return true
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
