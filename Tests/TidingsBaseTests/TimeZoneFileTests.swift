import Testing
@testable import TidingsBase

/// Reading the tz database's TZif files: offsets right around transitions
/// (from the 64-bit table and, past 2037, from the POSIX footer), zones with
/// odd transitions (Lord Howe's half hour, Samoa's skipped day), and TZif
/// files of each version built by hand. Expected instants were checked
/// against Python's zoneinfo, not computed by the code under test.
@Suite struct TimeZoneFileTests {
    func zone(_ name: String) throws -> TimeZoneRules { try TimeZoneRules(named: name) }

    /// The offsets one second before and at `instant`.
    func around(_ zone: TimeZoneRules, _ instant: Int64) -> [Int] {
        [zone.offset(at: instant - 1), zone.offset(at: instant)]
    }

    @Test func berlinChangesAtOneInTheMorningUTC() throws {
        let berlin = try zone("Europe/Berlin")
        #expect(berlin.name == "Europe/Berlin")
        #expect(around(berlin, 1_774_746_000) == [3600, 7200])  // 2026-03-29 01:00 UTC
        #expect(around(berlin, 1_792_890_000) == [7200, 3600])  // 2026-10-25 01:00 UTC
        // Past the table's end (2037): the footer's rule.
        #expect(around(berlin, 2_216_250_000) == [3600, 7200])  // 2040-03-25 01:00 UTC
        #expect(around(berlin, 2_234_998_800) == [7200, 3600])  // 2040-10-28 01:00 UTC
        #expect(berlin.nextTransition(after: 1_774_746_000 - 86400) == 1_774_746_000)
        #expect(berlin.nextTransition(after: 2_216_250_000 - 86400) == 2_216_250_000)
    }

    @Test func newYorkChangesAtTwoInTheMorningLocal() throws {
        let newYork = try zone("America/New_York")
        #expect(around(newYork, 1_772_953_200) == [-18000, -14400])  // 2026-03-08 07:00 UTC
        #expect(around(newYork, 1_793_512_800) == [-14400, -18000])  // 2026-11-01 06:00 UTC
        #expect(around(newYork, 2_215_062_000) == [-18000, -14400])  // 2040-03-11 07:00 UTC
        #expect(around(newYork, 2_235_621_600) == [-14400, -18000])  // 2040-11-04 06:00 UTC
        // Before the first transition: local mean time, −4:56:02.
        #expect(newYork.offset(at: -5_000_000_000) == -17762)
    }

    @Test func lordHoweMovesItsClocksHalfAnHour() throws {
        let lordHowe = try zone("Australia/Lord_Howe")
        #expect(around(lordHowe, 1_775_314_800) == [39600, 37800])  // 2026-04-04 15:00 UTC
        #expect(around(lordHowe, 1_791_041_400) == [37800, 39600])  // 2026-10-03 15:30 UTC
        #expect(around(lordHowe, 2_216_818_800) == [39600, 37800])  // 2040-03-31 15:00 UTC
        #expect(around(lordHowe, 2_233_150_200) == [37800, 39600])  // 2040-10-06 15:30 UTC
    }

    @Test func samoaSkipsThirtiethDecember2011() throws {
        let apia = try zone("Pacific/Apia")
        #expect(around(apia, 1_325_239_200) == [-36000, 50400])  // 2011-12-30 10:00 UTC
        // 2011-12-30 12:00 on Apia's clocks never happened: the whole day is a gap.
        let noon = CivilDate(year: 2011, month: 12, day: 30).daysSince1970 * 86400 + 43200
        guard case .skipped(let shifted, let gap) = apia.resolve(wall: noon) else {
            Issue.record("30 December 2011 is not skipped")
            return
        }
        #expect(shifted == 1_325_282_400)  // the same wall time a day later: 31 December 12:00 +14 (2011-12-30 22:00 UTC)
        #expect(gap == noon - 43200..<noon - 43200 + 86400)
        #expect(apia.localFields(at: 1_325_239_200).description == "2011-12-31 00:00:00")
        #expect(apia.localFields(at: 1_325_239_199).description == "2011-12-29 23:59:59")
    }

    @Test func utcNeverChanges() throws {
        let utc = try zone("UTC")
        for instant: Int64 in [-10_000_000_000, 0, 1_795_651_200, 10_000_000_000] {
            #expect(utc.offset(at: instant) == 0)
            #expect(TimeZoneRules.utc.offset(at: instant) == 0)
        }
        #expect(utc.nextTransition(after: 0) == nil)
        #expect(utc.resolve(wall: 1_795_651_200) == .unique(1_795_651_200))
    }

    @Test func wallTimesResolveAroundBerlinsTransitions() throws {
        let berlin = try zone("Europe/Berlin")
        let march29 = CivilDate(year: 2026, month: 3, day: 29).daysSince1970 * 86400
        // 02:30 does not exist: shifted by the hour's gap, 03:30 CEST, 01:30 UTC.
        #expect(berlin.resolve(wall: march29 + 9000) == .skipped(shifted: 1_774_747_800, gap: march29 + 7200..<march29 + 10800))
        #expect(berlin.resolve(wall: march29 + 5400) == .unique(1_774_744_200))  // 01:30 CET
        #expect(berlin.resolve(wall: march29 + 12600) == .unique(1_774_747_800))  // 03:30 CEST
        let october25 = CivilDate(year: 2026, month: 10, day: 25).daysSince1970 * 86400
        // 02:30 happens twice: 00:30 UTC (CEST), then 01:30 UTC (CET).
        #expect(berlin.resolve(wall: october25 + 9000)
            == .repeated(first: 1_792_888_200, second: 1_792_891_800, overlap: october25 + 7200..<october25 + 10800))
        #expect(berlin.resolve(wall: october25 + 9000).firstInstant == 1_792_888_200)
        #expect(berlin.localFields(at: 1_792_891_800).description == "2026-10-25 02:30:00")
    }

    @Test func equalRulesGiveTheSameOffsets() throws {
        #expect(try zone("Europe/Berlin") == zone("Europe/Berlin"))
        #expect(try zone("Europe/Berlin") != zone("Europe/Paris"))
        #expect(try zone("Europe/Berlin") != zone("America/New_York"))
        #expect(try TimeZoneRules.reading(FileSystem.readFile("/usr/share/zoneinfo/Europe/Berlin"), named: "Europe/Berlin")
            == zone("Europe/Berlin"))
        #expect(try TimeZoneRules.reading(FileSystem.readFile("/usr/share/zoneinfo/Europe/Paris"), named: "Europe/Berlin")
            != zone("Europe/Berlin"))
    }

    // MARK: Files of each version, built by hand

    @Test func aVersion1FileUsesItsThirtyTwoBitTable() throws {
        let bytes = TZifBuilder(version: 0, transitions: [(1_000_000_000, 1)], offsets: [3600, 7200]).bytes
        let rules = try TimeZoneRules.reading(bytes, named: "Test/One")
        #expect(around(rules, 1_000_000_000) == [3600, 7200])
        #expect(rules.offset(at: 4_000_000_000) == 7200)
    }

    @Test func aVersion2FileUsesItsSixtyFourBitTableThenItsFooter() throws {
        let bytes = TZifBuilder(version: UInt8(ascii: "2"), transitions: [(-5_000_000_000, 1), (1_000_000_000, 0)],
                                offsets: [-18000, -14400], footer: "EST5EDT,M3.2.0,M11.1.0").bytes
        let rules = try TimeZoneRules.reading(bytes, named: "Test/Two")
        #expect(rules.offset(at: -5_000_000_001) == -18000)
        #expect(rules.offset(at: -5_000_000_000) == -14400)
        #expect(around(rules, 1_772_953_200) == [-18000, -14400])  // the footer's 2026
    }

    @Test func aVersion3FooterMayHaveTransitionsPastMidnightAndBeforeIt() throws {
        // Daylight time all year round (version 3): from 1 January 00:00 standard to 31 December 25:00 daylight.
        let bytes = TZifBuilder(version: UInt8(ascii: "3"), transitions: [(0, 0)], offsets: [-14400],
                                footer: "EST5EDT4,0/0,J365/25").bytes
        let rules = try TimeZoneRules.reading(bytes, named: "Test/Three")
        for instant: Int64 in [1_767_225_600 - 1, 1_767_225_600, 1_767_243_600, 1_780_000_000] {
            #expect(rules.offset(at: instant) == -14400)
        }
    }

    @Test func aVersion4FileWithLeapSecondRecordsIsRead() throws {
        let bytes = TZifBuilder(version: UInt8(ascii: "4"), transitions: [(1_000_000_000, 1)], offsets: [0, 3600],
                                leapSeconds: 2, footer: "<+01>-1").bytes
        let rules = try TimeZoneRules.reading(bytes, named: "Test/Four")
        #expect(around(rules, 1_000_000_000) == [0, 3600])
        #expect(rules.offset(at: 3_000_000_000) == 3600)
    }

    @Test func damagedFilesAreRefused() {
        let good = TZifBuilder(version: UInt8(ascii: "2"), transitions: [(0, 1)], offsets: [0, 3600], footer: "<+01>-1").bytes
        for cut in [3, 20, 44, 60, good.count - 3] {
            #expect(throws: TZifReader.Malformed.self) { try TZifReader.read(Array(good.prefix(cut))) }
        }
        let badFooter = TZifBuilder(version: UInt8(ascii: "2"), transitions: [], offsets: [0], footer: "not a rule").bytes
        #expect(throws: TZifReader.Malformed.self) { try TZifReader.read(badFooter) }
        let badType = TZifBuilder(version: 0, transitions: [(0, 5)], offsets: [0]).bytes
        #expect(throws: TZifReader.Malformed.self) { try TZifReader.read(badType) }
        let descending = TZifBuilder(version: 0, transitions: [(10, 0), (5, 0)], offsets: [0]).bytes
        #expect(throws: TZifReader.Malformed.self) { try TZifReader.read(descending) }
    }
}

/// A TZif file with the given transitions and offsets: a version 1 file of
/// 32-bit times, or a version 2+ one with an empty version 1 block, then the
/// 64-bit block and the footer.
struct TZifBuilder {
    var version: UInt8
    var transitions: [(Int64, UInt8)]
    var offsets: [Int32]
    var leapSeconds = 0
    var footer = ""

    var bytes: [UInt8] {
        if version == 0 { return header(timeCount: transitions.count) + block(timeSize: 4) }
        return header(timeCount: 0, types: 1, characters: 1, leaps: 0) + [0, 0, 0, 0, 0, 0, 0]
            + header(timeCount: transitions.count) + block(timeSize: 8) + Array("\n\(footer)\n".utf8)
    }

    func header(timeCount: Int, types: Int? = nil, characters: Int? = nil, leaps: Int? = nil) -> [UInt8] {
        var bytes = Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
        for count in [0, 0, leaps ?? leapSeconds, timeCount, types ?? offsets.count, characters ?? 4] {
            bytes += bigEndian(Int64(count), size: 4)
        }
        return bytes
    }

    func block(timeSize: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for (time, _) in transitions { bytes += bigEndian(time, size: timeSize) }
        bytes += transitions.map(\.1)
        for offset in offsets { bytes += bigEndian(Int64(offset), size: 4) + [0, 0] }
        bytes += Array("ABC\0".utf8)
        for index in 0..<leapSeconds { bytes += bigEndian(Int64(78_796_800 + index * 15_000_000), size: timeSize) + bigEndian(Int64(index + 1), size: 4) }
        return bytes
    }

    func bigEndian(_ value: Int64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
