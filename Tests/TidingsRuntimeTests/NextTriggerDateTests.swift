import Testing
import TidingsBase
import TidingsProtocol
@testable import TidingsRuntime

/// The next date a calendar trigger fires: components left out, weeks,
/// weekday ordinals, leap days, the trigger's own zone, sets that never
/// match. Expected instants are UTC epoch seconds checked by hand and
/// against Python's datetime, never computed by the code under test.
@Suite struct NextTriggerDateTests {
    /// 2026-11-26 00:00:00 UTC, a Thursday.
    static let thursday: Int64 = 1_795_651_200

    func matching(_ components: [String: Int], timeZone: String? = nil) -> DateMatching {
        var matching = DateMatching()
        for (name, value) in components { matching[component: name] = value }
        matching.timeZone = timeZone
        return matching
    }

    /// The next date in `zone` (UTC by default) after `after`, as whole seconds.
    func next(_ components: [String: Int], after: Int64 = thursday, in zone: TimeZoneRules = .utc, timeZone: String? = nil) -> Int64? {
        matching(components, timeZone: timeZone).nextDate(after: Double(after), in: zone).map { Int64($0) }
    }

    /// The first `count` dates, each after the one before.
    func series(_ components: [String: Int], after: Int64, in zone: TimeZoneRules = .utc, count: Int) -> [Int64] {
        var dates: [Int64] = []
        var last = after
        while dates.count < count, let date = next(components, after: last, in: zone) {
            dates.append(date)
            last = date
        }
        return dates
    }

    @Test func dailyAtHalfPastEight() {
        #expect(series(["hour": 8, "minute": 30], after: Self.thursday, count: 3)
            == [Self.thursday + 30600, Self.thursday + 86400 + 30600, Self.thursday + 2 * 86400 + 30600])
        // Strictly after: at 08:30:00 exactly, the next is tomorrow's; a fraction of a second before, today's.
        #expect(next(["hour": 8, "minute": 30], after: Self.thursday + 30600) == Self.thursday + 86400 + 30600)
        #expect(matching(["hour": 8, "minute": 30]).nextDate(after: Double(Self.thursday + 30600) - 0.25, in: .utc)
            == Double(Self.thursday + 30600))
    }

    @Test func smallerComponentsLeftOutTakeTheirSmallestValue() {
        #expect(next(["hour": 8]) == Self.thursday + 28800)  // 08:00:00
        #expect(next(["month": 3]) == 1_803_859_200)  // 2027-03-01 00:00:00
        #expect(next(["weekday": 2]) == 1_795_996_800)  // Monday 2026-11-30 00:00:00
        #expect(next(["year": 2030]) == 1_893_456_000)  // 2030-01-01 00:00:00
        #expect(next(["day": 31]) == 1_798_675_200)  // 2026-12-31 00:00:00
    }

    @Test func largerComponentsLeftOutMatchAnyValue() {
        // Every hour at :30:00.
        #expect(series(["minute": 30], after: Self.thursday, count: 3) == [Self.thursday + 1800, Self.thursday + 5400, Self.thursday + 9000])
        // Every minute at :15 seconds.
        #expect(series(["second": 15], after: Self.thursday, count: 2) == [Self.thursday + 15, Self.thursday + 75])
        // Mondays, every hour at :30 (the weekday narrows the days; the hour is above the minute, so free).
        #expect(series(["weekday": 2, "minute": 30], after: Self.thursday, count: 2) == [1_795_998_600, 1_796_002_200])
        // The 8th … 14th of the month (the second of each weekday) at 09:00.
        #expect(series(["weekdayOrdinal": 2, "hour": 9], after: Self.thursday, count: 2) == [1_796_720_400, 1_796_806_800])
    }

    @Test func componentsLeftOutBetweenGivenOnesTakeTheirSmallestValue() {
        // 08:00:15 (the minute, below the hour, is 0), every day.
        #expect(series(["hour": 8, "second": 15], after: Self.thursday, count: 2) == [Self.thursday + 28815, Self.thursday + 86400 + 28815])
        // March at 08:00: 1 March only, each year.
        #expect(series(["month": 3, "hour": 8], after: Self.thursday, count: 2) == [1_803_888_000, 1_835_510_400])
        // The 15th at :30: 00:30 only.
        #expect(series(["day": 15, "minute": 30], after: Self.thursday, count: 1) == [1_797_294_600])
        // Saturdays in September: the first one, each year (4 September 2027, 2 September 2028).
        #expect(series(["month": 9, "weekday": 7], after: Self.thursday, count: 2) == [1_820_016_000, 1_851_465_600])
        // 2027 at 09:00: 1 January only.
        #expect(series(["year": 2027, "hour": 9], after: Self.thursday, count: 2) == [1_798_794_000])
        // The 2nd weekday ordinal alone: the 8th of each month.
        #expect(series(["weekdayOrdinal": 2], after: Self.thursday, count: 2) == [1_796_688_000, 1_799_366_400])
        // The era alone: every 1 January.
        #expect(next(["era": 1]) == 1_798_761_600)
    }

    @Test func weeklyOnAWeekday() {
        // Mondays at 09:00: 2026-11-30, 2026-12-07.
        #expect(series(["weekday": 2, "hour": 9], after: Self.thursday, count: 2) == [1_796_029_200, 1_796_029_200 + 7 * 86400])
        // Thursdays at 09:00, asked at 00:00 on a Thursday: today.
        #expect(next(["weekday": 5, "hour": 9]) == Self.thursday + 32400)
    }

    @Test func theSecondTuesdayOfTheMonth() {
        // 1 December 2026 is a Tuesday: the second is 8 December, then 12 January 2027.
        #expect(series(["weekday": 3, "weekdayOrdinal": 2, "hour": 10], after: Self.thursday, count: 2)
            == [1_796_724_000, 1_796_724_000 + 35 * 86400])
        // The fifth Thursday: 29 October 2026 is past; next, 31 December 2026.
        #expect(next(["weekday": 5, "weekdayOrdinal": 5]) == 1_798_675_200)
    }

    @Test func weeksOfTheMonthAndOfTheYear() {
        // Week 1 of 2026 holds 28 December 2025 … 3 January 2026: its Monday is 29 December 2025.
        #expect(next(["weekOfYear": 1, "weekday": 2], after: 1_766_016_000) == 1_766_966_400)  // after 2025-12-18
        // Week 10, Monday: 1 March 2027 (week 10 of 2027 holds 28 February … 6 March).
        #expect(next(["weekOfYear": 10, "weekday": 2]) == 1_803_859_200)
        // Week 10 alone: its Sunday, 28 February 2027.
        #expect(next(["weekOfYear": 10]) == 1_803_772_800)
        // Week 2 of December 2026 (6 … 12 December), Wednesday: 9 December.
        #expect(next(["weekOfMonth": 2, "weekday": 4]) == 1_796_774_400)
        // Week 1 alone: the month's 1st, then the next month's.
        #expect(series(["weekOfMonth": 1], after: Self.thursday, count: 2) == [1_796_083_200, 1_796_083_200 + 31 * 86400])
    }

    @Test func monthlyOnTheThirtyFirstSkipsShortMonths() {
        #expect(series(["day": 31, "hour": 12], after: Self.thursday, count: 3)
            == [1_798_718_400, 1_801_396_800, 1_806_494_400] as [Int64])  // 31 Dec, 31 Jan, 31 Mar at 12:00
    }

    @Test func yearlyOnTheTwentyNinthOfFebruary() {
        #expect(series(["month": 2, "day": 29], after: Self.thursday, count: 2) == [1_835_395_200, 1_961_625_600])  // 2028, 2032
        // 2100 is no leap year: after 2096, 2104.
        let after2096 = CivilDate(year: 2096, month: 3, day: 1).daysSince1970 * 86400
        #expect(next(["month": 2, "day": 29], after: after2096) == CivilDate(year: 2104, month: 2, day: 29).daysSince1970 * 86400)
    }

    @Test func theTriggersOwnZoneWins() throws {
        // 09:00 in Tokyo (+9) is 00:00 UTC; the zone passed in is ignored.
        let berlin = try TimeZoneRules(named: "Europe/Berlin")
        #expect(next(["hour": 9], after: Self.thursday, in: berlin, timeZone: "Asia/Tokyo") == Self.thursday + 86400)
        #expect(next(["hour": 9], after: Self.thursday, in: berlin) == Self.thursday + 28800)  // 09:00 CET
        // A name that is no zone never fires.
        #expect(next(["hour": 9], timeZone: "Nowhere/Land") == nil)
        #expect(next(["hour": 9], timeZone: "../etc/passwd") == nil)
        #expect(NamedZoneCache.shared.rules(named: "Asia/Tokyo")?.offset(at: 0) == 32400)
    }

    @Test func setsThatNeverMatch() {
        #expect(next(["era": 0, "year": 100]) == nil)  // BC
        #expect(next(["year": 2020]) == nil)  // past
        #expect(next(["year": 2026, "month": 11, "day": 25]) == nil)  // yesterday
        #expect(next(["month": 2, "day": 30]) == nil)
        #expect(next(["month": 4, "day": 31]) == nil)
        #expect(next(["weekdayOrdinal": 5, "weekOfMonth": 1]) == nil)  // days 29 … 31 are never in the first week
        #expect(next(["year": 2027, "month": 2, "day": 29]) == nil)
        #expect(next([:]) == nil)  // no component at all, as Foundation
        #expect(matching(["hour": 8]).nextDate(after: .infinity, in: .utc) == nil)
        #expect(matching(["hour": 8]).nextDate(after: .nan, in: .utc) == nil)
    }

    @Test func farInstantsAndYears() throws {
        let berlin = try TimeZoneRules(named: "Europe/Berlin")
        // The last year a trigger may name: 1 January 1,000,000 (as UTC wall time).
        #expect(next(["year": 1_000_000]) == CivilDate(year: 1_000_000, month: 1, day: 1).daysSince1970 * 86400)
        #expect(matching(["year": 1_000_000]).nextDate(after: 0, in: berlin) != nil)
        // Long before 1970, in BC years (astronomical year −99 999): the next 1 January.
        let ancient = CivilDate(year: -100_000, month: 6, day: 1).daysSince1970 * 86400
        #expect(next(["month": 1, "day": 1], after: ancient) == CivilDate(year: -99_999, month: 1, day: 1).daysSince1970 * 86400)
        #expect(matching(["hour": 8]).nextDate(after: 9e14, in: berlin) != nil)
        #expect(matching(["hour": 8]).nextDate(after: 2e15, in: berlin) == nil)
    }

    @Test func aYearAndEraThatAreToCome() {
        #expect(next(["era": 1, "year": 2027, "month": 1, "day": 1, "hour": 0]) == 1_798_761_600)  // 2027-01-01
        #expect(next(["year": 2026, "month": 11, "day": 26, "hour": 12]) == 1_795_694_400)  // today 12:00
        // A fraction of a second before a match, the match.
        #expect(matching(["second": 0]).nextDate(after: Double(Self.thursday) + 59.5, in: .utc) == Double(Self.thursday + 60))
    }
}
