import Testing
@testable import TidingsBase

/// POSIX `TZ` rules: the grammar (quoted names, offsets with minutes, the
/// three kinds of dates, times past midnight or before it) and the offsets
/// they give, north and south of the equator. Expected instants were
/// checked against Python's zoneinfo for the zones the rules describe.
@Suite struct TimeZonePOSIXRuleTests {
    func rule(_ text: String) throws -> TimeZoneRules { try #require(TimeZoneRules(posix: text)) }

    func around(_ zone: TimeZoneRules, _ instant: Int64) -> [Int] {
        [zone.offset(at: instant - 1), zone.offset(at: instant)]
    }

    @Test func usEasternRules() throws {
        let eastern = try rule("EST5EDT,M3.2.0,M11.1.0")
        #expect(eastern.name == "EST5EDT,M3.2.0,M11.1.0")
        #expect(around(eastern, 1_772_953_200) == [-18000, -14400])  // 2026-03-08 07:00 UTC
        #expect(around(eastern, 1_793_512_800) == [-14400, -18000])  // 2026-11-01 06:00 UTC
        #expect(eastern.nextTransition(after: 1_772_953_200) == 1_793_512_800)
    }

    @Test func aDaylightNameWithoutDatesTakesTheUSRules() throws {
        let eastern = try rule("EST5EDT")
        #expect(around(eastern, 1_772_953_200) == [-18000, -14400])
        #expect(around(eastern, 1_793_512_800) == [-14400, -18000])
    }

    @Test func centralEuropeanRulesWithAnEndTime() throws {
        let central = try rule("CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(around(central, 1_774_746_000) == [3600, 7200])  // 2026-03-29 01:00 UTC
        #expect(around(central, 1_792_890_000) == [7200, 3600])  // 2026-10-25 01:00 UTC
    }

    @Test func southernHemisphereDaylightTimeSpansTheNewYear() throws {
        let sydney = try rule("AEST-10AEDT,M10.1.0,M4.1.0/3")
        #expect(around(sydney, 1_775_318_400) == [39600, 36000])  // 2026-04-04 16:00 UTC
        #expect(around(sydney, 1_791_043_200) == [36000, 39600])  // 2026-10-03 16:00 UTC
        #expect(sydney.offset(at: 1_767_225_600) == 39600)  // 1 January 2026: summer
        #expect(sydney.offset(at: 1_782_000_000) == 36000)  // July 2026: winter
    }

    @Test func quotedNamesAndHalfHourOffsets() throws {
        #expect(try rule("<+0330>-3:30").offset(at: 1_795_651_200) == 12600)
        #expect(try rule("<-03>3").offset(at: 1_795_651_200) == -10800)
        #expect(try rule("<+0545>-5:45").offset(at: 0) == 20700)
        #expect(try rule("<+0545>-5:45").nextTransition(after: 0) == nil)
        let lordHowe = try rule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0")
        #expect(around(lordHowe, 1_775_314_800) == [39600, 37800])  // 2026-04-04 15:00 UTC
        #expect(around(lordHowe, 1_791_041_400) == [37800, 39600])  // 2026-10-03 15:30 UTC
    }

    @Test func julianDaysSkipTheLeapDayAndOrdinalDaysCountIt() throws {
        // Daylight time from day J60 / day 60 at 00:00 UTC (offset 0) to late in the year.
        let julian = try rule("AAA0BBB-1,J60/0,J300/0")
        #expect(around(julian, 1_709_251_200) == [0, 3600])  // 2024-03-01: J60 is 1 March in a leap year too
        #expect(around(julian, 1_677_628_800) == [0, 3600])  // 2023-03-01
        let ordinal = try rule("AAA0BBB-1,60/0,300/0")
        #expect(around(ordinal, 1_709_251_200) == [0, 3600])  // 2024-03-01: day 60 counting from 0, 29 February counted
        #expect(around(ordinal, 1_677_715_200) == [0, 3600])  // 2023-03-02
    }

    @Test func version3TimesBeyondADayAndBeforeMidnight() throws {
        // Daylight time all year (1 January 00:00 standard to 31 December 25:00 daylight).
        let always = try rule("EST5EDT4,0/0,J365/25")
        for instant: Int64 in [1_767_225_600 - 1, 1_767_225_600, 1_767_243_600, 1_780_000_000, 1_798_761_599] {
            #expect(always.offset(at: instant) == -14400)
        }
        // Greenland: −01 from the last Sunday of March at −1:00 (Saturday 23:00) to the last Sunday of October at 00:00.
        let nuuk = try rule("<-02>2<-01>,M3.5.0/-1,M10.5.0/0")
        #expect(around(nuuk, 1_774_746_000) == [-7200, -3600])  // 2026-03-29 01:00 UTC = 28 March 23:00 local
        #expect(around(nuuk, 1_792_890_000) == [-3600, -7200])  // 2026-10-25 01:00 UTC
    }

    @Test func malformedRulesAreRefused() {
        for text in ["", "E5", "EST", "EST5EDT,M13.1.0,M11.1.0", "<+03", "<+03>", "EST5EDT,M3.2.0", "EST25", "EST5EDT,J0,J365",
                     "EST5EDT,M3.2.0,M11.1.0,", "EST5EDT,M3.6.0,M11.1.0", "EST5EDT,M3.2.7,M11.1.0", "EST5:60", "EST5EDT,M3.2.0/168,M11.1.0",
                     "EST5 ", "Europe/Paris"] {
            #expect(TimeZoneRules(posix: text) == nil, "\(text)")
        }
    }
}
