import Glibc
import Testing
import TestSupport
@testable import TidingsBase

/// Finding the machine's zone (TZ, then /etc/localtime) and loading zones
/// by name, refusing names that leave the database and files that are not zones.
@Suite struct TimeZoneLocalTests {
    let scratch = TemporaryDirectory("tidings-time")

    /// A zone database in the scratch directory holding a copy of Europe/Berlin.
    func database() throws -> String {
        let directory = scratch.file("zoneinfo")
        try FileSystem.createDirectory(directory)
        try FileSystem.createDirectory(directory + "/Europe")
        try FileSystem.copyFile("/usr/share/zoneinfo/Europe/Berlin", to: directory + "/Europe/Berlin")
        return directory
    }

    /// The code of the diagnostic `body` throws; nil when it throws nothing.
    func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as Diagnostic {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    @Test func tzNamesAZone() {
        for variable in [":Europe/Paris", "Europe/Paris", "/usr/share/zoneinfo/Europe/Paris"] {
            let zone = TimeZoneRules.local(environment: ["TZ": variable], localtime: "/nonexistent")
            #expect(zone.name == "Europe/Paris", "\(variable)")
            #expect(zone.offset(at: 1_795_651_200) == 3600)
        }
    }

    @Test func tzMayBeAPOSIXRule() {
        let zone = TimeZoneRules.local(environment: ["TZ": "CET-1CEST,M3.5.0,M10.5.0/3"])
        #expect(zone.name == "CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(zone.offset(at: 1_774_746_000) == 7200)
    }

    @Test func anEmptyOrMeaninglessTZIsUTC() {
        #expect(TimeZoneRules.local(environment: ["TZ": ""]) == .utc)
        #expect(TimeZoneRules.local(environment: ["TZ": "Nowhere/Land"]) == .utc)
        #expect(TimeZoneRules.local(environment: ["TZ": "../etc/passwd"]) == .utc)
    }

    @Test func localtimeLinkedIntoTheDatabaseGivesTheZonesName() throws {
        let directory = try database()
        let link = scratch.file("localtime")
        #expect(symlink("zoneinfo/Europe/Berlin", link) == 0)
        let zone = TimeZoneRules.local(environment: [:], localtime: link, directory: directory)
        #expect(zone.name == "Europe/Berlin")
        #expect(zone == (try TimeZoneRules(named: "Europe/Berlin")))
        // TZ comes first.
        #expect(TimeZoneRules.local(environment: ["TZ": "UTC"], localtime: link, directory: directory).offset(at: 1_774_746_000) == 0)
    }

    @Test func localtimeOutsideTheDatabaseIsReadAsItIs() throws {
        let copy = scratch.file("localtime")
        try FileSystem.copyFile("/usr/share/zoneinfo/America/New_York", to: copy)
        let zone = TimeZoneRules.local(environment: [:], localtime: copy, directory: try database())
        #expect(zone.name == "localtime")
        #expect(zone.offset(at: 1_772_953_200) == -14400)
    }

    @Test func noLocaltimeOrAnUnreadableOneIsUTC() throws {
        #expect(TimeZoneRules.local(environment: [:], localtime: scratch.file("missing")) == .utc)
        let garbage = try scratch.write("not a zone", to: "localtime")
        #expect(TimeZoneRules.local(environment: [:], localtime: garbage) == .utc)
    }

    @Test func namesThatLeaveTheDatabaseAreRefused() {
        for name in ["../etc/passwd", "/etc/passwd", "", "Europe/../../etc/passwd", "Europe//Berlin", "./UTC", "Europe/Berlin\0x",
                     "Europe/Ber lin"] {
            #expect(code { _ = try TimeZoneRules(named: name) } == "time-zone.invalid-name", "\(name)")
        }
    }

    @Test func unknownZonesAndFilesThatAreNotZonesAreRefused() throws {
        let directory = try database()
        try FileSystem.writeFileAtomically(directory + "/Europe/Fake", Array("root:x:0:0".utf8))
        #expect(code { _ = try TimeZoneRules(named: "Nowhere/Land") } == "time-zone.unknown")
        #expect(code { _ = try TimeZoneRules(named: "Europe/Fake", in: directory) } == "time-zone.unreadable")
        #expect(code { _ = try TimeZoneRules(named: "Europe", in: directory) } == "time-zone.unreadable")
        #expect(code { _ = try TimeZoneRules(named: "Europe/Berlin", in: directory) } == nil)
        let truncated = try FileSystem.readFile(directory + "/Europe/Berlin").prefix(100)
        try FileSystem.writeFileAtomically(directory + "/Europe/Short", truncated)
        #expect(code { _ = try TimeZoneRules(named: "Europe/Short", in: directory) } == "time-zone.unreadable")
        #expect(mkfifo(directory + "/Europe/Pipe", 0o600) == 0)
        #expect(code { _ = try TimeZoneRules(named: "Europe/Pipe", in: directory) } == "time-zone.unreadable")
    }
}
