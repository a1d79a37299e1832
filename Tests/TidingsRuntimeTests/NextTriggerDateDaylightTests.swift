import Testing
import TidingsBase
import TidingsProtocol
@testable import TidingsRuntime

/// Calendar triggers across daylight saving changes: a skipped wall time
/// fires shifted by the gap, a repeated one fires once, at its first
/// occurrence. Expected instants are UTC epoch seconds checked against
/// Python's zoneinfo, never computed by the code under test.
@Suite struct NextTriggerDateDaylightTests {
    func zone(_ name: String) throws -> TimeZoneRules { try TimeZoneRules(named: name) }

    /// The first `count` dates of `components` in `zone` after `after`, each after the one before.
    func series(_ components: [String: Int], after: Int64, in zone: TimeZoneRules, count: Int) -> [Int64] {
        var matching = DateMatching()
        for (name, value) in components { matching[component: name] = value }
        var dates: [Int64] = []
        var last = after
        while dates.count < count, let date = matching.nextDate(after: Double(last), in: zone) {
            dates.append(Int64(date))
            last = Int64(date)
        }
        return dates
    }

    @Test func dailyAtHalfPastEightInBerlinKeepsItsWallTime() throws {
        let berlin = try zone("Europe/Berlin")
        // 28 March 08:30 CET, 29 March 08:30 CEST (23 hours later).
        #expect(series(["hour": 8, "minute": 30], after: 1_774_656_000, in: berlin, count: 2) == [1_774_683_000, 1_774_765_800])
        // 25 October 08:30 CET, 26 October 08:30 CET (after a 25-hour day).
        #expect(series(["hour": 8, "minute": 30], after: 1_792_886_400, in: berlin, count: 2) == [1_792_913_400, 1_792_999_800])
    }

    @Test func dailyAtHalfPastEightInNewYorkKeepsItsWallTime() throws {
        let newYork = try zone("America/New_York")
        #expect(series(["hour": 8, "minute": 30], after: 1_772_870_400, in: newYork, count: 2) == [1_772_890_200, 1_772_973_000])
        #expect(series(["hour": 8, "minute": 30], after: 1_793_404_800, in: newYork, count: 2) == [1_793_449_800, 1_793_539_800])
    }

    @Test func berlinsSkippedHalfPastTwoFiresAtHalfPastThree() throws {
        let berlin = try zone("Europe/Berlin")
        // 28 March 02:30 CET (01:30 UTC); 29 March 02:30 does not exist: 03:30 CEST (01:30 UTC); 30 March 02:30 CEST (00:30 UTC).
        #expect(series(["hour": 2, "minute": 30], after: 1_774_656_000, in: berlin, count: 3) == [1_774_661_400, 1_774_747_800, 1_774_830_600])
        // Armed at 03:10 CEST on the day, within the gap's hour: 03:30 CEST still comes.
        #expect(series(["hour": 2, "minute": 30], after: 1_774_746_600, in: berlin, count: 1) == [1_774_747_800])
        // Armed at 03:30 CEST, tomorrow.
        #expect(series(["hour": 2, "minute": 30], after: 1_774_747_800, in: berlin, count: 1) == [1_774_830_600])
    }

    @Test func berlinsRepeatedHalfPastTwoFiresOnce() throws {
        let berlin = try zone("Europe/Berlin")
        // 24 October 02:30 CEST; 25 October 02:30 CEST (00:30 UTC) only, not 02:30 CET (01:30 UTC); 26 October 02:30 CET.
        #expect(series(["hour": 2, "minute": 30], after: 1_792_800_000, in: berlin, count: 3) == [1_792_801_800, 1_792_888_200, 1_792_978_200])
        // Armed during the repeated hour's second pass (02:10 CET, 01:10 UTC): tomorrow.
        #expect(series(["hour": 2, "minute": 30], after: 1_792_890_600, in: berlin, count: 1) == [1_792_978_200])
    }

    @Test func newYorksSkippedAndRepeatedTimes() throws {
        let newYork = try zone("America/New_York")
        // 8 March 02:30 does not exist: 03:30 EDT, 07:30 UTC.
        #expect(series(["hour": 2, "minute": 30], after: 1_772_859_600, in: newYork, count: 2)
            == [1_772_868_600, 1_772_955_000])  // from 7 March 00:00 EST: 7 March 02:30 EST (07:30 UTC), then 8 March 03:30 EDT
        // 1 November 01:30 happens twice: 05:30 UTC (EDT) only, then 2 November 01:30 EST.
        #expect(series(["hour": 1, "minute": 30], after: 1_793_404_800, in: newYork, count: 3)
            == [1_793_424_600, 1_793_511_000, 1_793_601_000])  // 31 October 01:30 EDT first
    }

    @Test func hourlyAtHalfPastThroughBerlinsChanges() throws {
        let berlin = try zone("Europe/Berlin")
        // From 29 March 00:00 UTC (01:00 CET): 01:30 CET, 03:30 CEST (02:30 skipped, shifted onto it), 04:30 CEST.
        #expect(series(["minute": 30], after: 1_774_742_400, in: berlin, count: 3) == [1_774_744_200, 1_774_747_800, 1_774_751_400])
        // From 25 October 00:00 UTC (02:00 CEST): 02:30 CEST, then not 02:30 CET again: 03:30 CET, 04:30 CET.
        #expect(series(["minute": 30], after: 1_792_886_400, in: berlin, count: 3) == [1_792_888_200, 1_792_895_400, 1_792_899_000])
        // From inside the repeated hour's second pass (02:10 CET): 03:30 CET.
        #expect(series(["minute": 30], after: 1_792_890_600, in: berlin, count: 1) == [1_792_895_400])
    }

    @Test func hourlyAtHalfPastThroughNewYorksChanges() throws {
        let newYork = try zone("America/New_York")
        // From 8 March 06:00 UTC (01:00 EST): 01:30 EST, 03:30 EDT, 04:30 EDT.
        #expect(series(["minute": 30], after: 1_772_949_600, in: newYork, count: 3) == [1_772_951_400, 1_772_955_000, 1_772_958_600])
        // From 1 November 05:00 UTC (01:00 EDT): 01:30 EDT, 02:30 EST (07:30 UTC).
        #expect(series(["minute": 30], after: 1_793_509_200, in: newYork, count: 2) == [1_793_511_000, 1_793_518_200])
    }

    @Test func lordHowesHalfHourGapAndOverlap() throws {
        let lordHowe = try zone("Australia/Lord_Howe")
        // 4 October 2026 02:15 does not exist (02:00 → 02:30): 02:45 +11, 15:45 UTC on 3 October.
        #expect(series(["hour": 2, "minute": 15], after: 1_791_000_000, in: lordHowe, count: 1) == [1_791_042_300])
        // 5 April 2026 01:45 happens twice (02:00 → 01:30): its first, 14:45 UTC; then 6 April 01:45 +10:30.
        #expect(series(["hour": 1, "minute": 45], after: 1_775_300_000, in: lordHowe, count: 2) == [1_775_313_900, 1_775_402_100])
    }

    @Test func samoasSkippedDayFiresADayLater() throws {
        let apia = try zone("Pacific/Apia")
        // 29 December 2011 08:30 −10; 30 December never was: its 08:30 shifted by the day's gap is 31 December 08:30 +14,
        // which is also 31 December's own; then 1 January 08:30 +14.
        #expect(series(["hour": 8, "minute": 30], after: 1_325_116_800, in: apia, count: 3) == [1_325_183_400, 1_325_269_800, 1_325_356_200])
    }

    @Test func farFutureTransitionsComeFromTheFootersRule() throws {
        let berlin = try zone("Europe/Berlin")
        // 25 March 2040 02:30 does not exist: 03:30 CEST = 01:30 UTC.
        #expect(series(["month": 3, "day": 25, "hour": 2, "minute": 30], after: 2_216_000_000, in: berlin, count: 1) == [2_216_251_800])
    }
}
