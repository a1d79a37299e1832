import Testing
@testable import TidingsBase

/// The proleptic Gregorian calendar days are counted in: conversions both
/// ways, weekdays, leap years, wall-clock fields.
@Suite struct TimeZoneCalendarTests {
    @Test func knownDays() {
        #expect(CivilDate(daysSince1970: 0) == CivilDate(year: 1970, month: 1, day: 1))
        #expect(CivilDate(daysSince1970: -1) == CivilDate(year: 1969, month: 12, day: 31))
        #expect(CivilDate(daysSince1970: 11016) == CivilDate(year: 2000, month: 2, day: 29))
        #expect(CivilDate(daysSince1970: 20783) == CivilDate(year: 2026, month: 11, day: 26))
        #expect(CivilDate(year: 1, month: 1, day: 1).daysSince1970 == -719_162)
        #expect(CivilDate(year: 0, month: 3, day: 1).daysSince1970 == -719_468)
        #expect(CivilDate(year: 1970, month: 1, day: 1).weekday == 5)  // Thursday
        #expect(CivilDate(year: 2026, month: 11, day: 26).weekday == 5)
        #expect(CivilDate(year: 2026, month: 11, day: 29).weekday == 1)  // Sunday
        #expect(CivilDate(year: 1969, month: 12, day: 31).weekday == 4)
    }

    @Test func everyDayFollowsTheDayBefore() {
        // 1600 to 2400, day by day: each day is the one after the day before, by the calendar's own rules.
        var expected = CivilDate(year: 1600, month: 1, day: 1)
        var weekday = 7  // 1 January 1600 was a Saturday
        for days in expected.daysSince1970...CivilDate(year: 2400, month: 12, day: 31).daysSince1970 {
            let date = CivilDate(daysSince1970: days)
            guard date == expected, date.daysSince1970 == days, date.weekday == weekday else {
                Issue.record("day \(days): \(date), expected \(expected) weekday \(weekday)")
                return
            }
            expected.day += 1
            if expected.day > CivilDate.daysIn(month: expected.month, of: expected.year) {
                (expected.day, expected.month) = (1, expected.month + 1)
                if expected.month == 13 { (expected.month, expected.year) = (1, expected.year + 1) }
            }
            weekday = weekday % 7 + 1
        }
    }

    @Test func leapYears() {
        #expect(CivilDate.isLeapYear(2000))
        #expect(CivilDate.isLeapYear(2024))
        #expect(!CivilDate.isLeapYear(1900))
        #expect(!CivilDate.isLeapYear(2100))
        #expect(!CivilDate.isLeapYear(2026))
        #expect(CivilDate.daysIn(month: 2, of: 2028) == 29)
        #expect(CivilDate.daysIn(month: 2, of: 2100) == 28)
    }

    @Test func wallClockFields() {
        let time = LocalDateTime(wallSeconds: 1_795_694_400 + 3723)  // 2026-11-26 13:02:03
        #expect(time.description == "2026-11-26 13:02:03")
        #expect((time.hour, time.minute, time.second) == (13, 2, 3))
        #expect(LocalDateTime(wallSeconds: -1).description == "1969-12-31 23:59:59")
        #expect(LocalDateTime(date: CivilDate(year: 2026, month: 11, day: 26), hour: 13, minute: 2, second: 3).wallSeconds
            == 1_795_694_400 + 3723)
        #expect(CivilDate.split(-86401) == (-2, 86399))
    }
}
