import TidingsBase

/// A month of the proleptic Gregorian calendar with what matching its days
/// needs, computed once for the month: each day's weekday and weeks are
/// then plain arithmetic.
struct CalendarMonth: Sendable {
    let year: Int
    /// 1 … 12.
    let month: Int
    /// Its number of days.
    let length: Int
    /// Its 1st, as days since 1970.
    let firstDay: Int64
    /// The weekday of its 1st (1 Sunday … 7 Saturday).
    let firstWeekday: Int
    /// The day of the year of its 1st (1 for January).
    private let firstDayOfYear: Int
    /// The weekday of 1 January of its year.
    private let januaryFirstWeekday: Int
    /// 365 or 366.
    private let yearLength: Int

    init(year: Int, month: Int) {
        self.year = year
        self.month = month
        length = CivilDate.daysIn(month: month, of: year)
        firstDay = CivilDate(year: year, month: month, day: 1).daysSince1970
        firstWeekday = CivilDate.weekday(daysSince1970: firstDay)
        let januaryFirst = month == 1 ? firstDay : CivilDate(year: year, month: 1, day: 1).daysSince1970
        firstDayOfYear = Int(firstDay - januaryFirst) + 1
        januaryFirstWeekday = CivilDate.weekday(daysSince1970: januaryFirst)
        yearLength = CivilDate.isLeapYear(year) ? 366 : 365
    }

    /// The month before this one.
    var previous: CalendarMonth { month == 1 ? CalendarMonth(year: year - 1, month: 12) : CalendarMonth(year: year, month: month - 1) }

    /// The weekday of `day` (1 Sunday … 7 Saturday).
    func weekday(of day: Int) -> Int { (firstWeekday - 1 + day - 1) % 7 + 1 }

    /// The week of the month of `day`: weeks begin on Sunday, the first holds the 1st.
    func weekOfMonth(of day: Int) -> Int { (day - 1 + firstWeekday - 1) / 7 + 1 }

    /// The week of the year of `day`: weeks begin on Sunday and week 1
    /// holds 1 January, so the last days of December are in week 1 of the
    /// next year when their week holds its 1 January.
    func weekOfYear(of day: Int) -> Int {
        let dayOfYear = firstDayOfYear + day - 1
        if dayOfYear + (7 - weekday(of: day)) > yearLength { return 1 }
        return (dayOfYear - 1 + januaryFirstWeekday - 1) / 7 + 1
    }
}
