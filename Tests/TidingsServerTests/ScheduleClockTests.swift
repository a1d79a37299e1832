import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime
@testable import TidingsServer

/// Pending requests against the clocks: kept across restarts (a repeating
/// calendar request fires its next date, a one-shot one due while the
/// server was down fires once, late), a wall-clock jump fires or re-arms
/// calendar requests and leaves intervals alone.
@Suite struct ScheduleClockTests {
    let fixture = ScheduleFixture()
    let events = EventRecorder()
    static let eightDaily = #"{"dateMatching": {"hour": 8}, "repeats": true}"#

    @Test func aRepeatingCalendarRequestSurvivesARestartAndFiresItsNextDate() throws {
        var first: HostService? = try fixture.service(state: try fixture.state(), events: events)
        let added = try fixture.add(try #require(first), "morning", trigger: Self.eightDaily).get()
        #expect(added["nextTriggerDate"] == .string(ScheduleFixture.date(3_600)))
        fixture.clock.advance(by: 3_600)
        first?.schedule.runDue()
        #expect(events.events("request.fired").count == 1)
        #expect(try fixture.pending(try #require(first)).map(\.1) == [ScheduleFixture.date(3_600 + 86_400)])
        first = nil  // the server stops, its state closed

        // Down from 08:00 to 09:00; the next date is tomorrow's, and nothing fires at start.
        fixture.clock.advance(by: 3_600)
        let later = EventRecorder()
        let second = try fixture.service(state: try fixture.state(), events: later)
        second.schedule.runDue()
        #expect(later.events("request.fired").isEmpty)
        #expect(try fixture.pending(second).map(\.1) == [ScheduleFixture.date(3_600 + 86_400)])
        fixture.clock.advance(by: 86_400 - 3_600)
        second.schedule.runDue()
        let fired = try #require(later.events("request.fired").first)
        #expect(fired["date"] == .string(ScheduleFixture.date(3_600 + 86_400)) && fired["late"] == .bool(false))
        #expect(try fixture.pending(second).map(\.1) == [ScheduleFixture.date(3_600 + 2 * 86_400)])
    }

    @Test func aOneShotDueWhileTheServerWasDownFiresOnceAtStartMarkedLate() throws {
        var first: HostService? = try fixture.service(state: try fixture.state(), events: events)
        _ = try fixture.add(try #require(first), "once", trigger: #"{"timeInterval": 600}"#).get()
        _ = try fixture.add(try #require(first), "every", trigger: #"{"timeInterval": 600, "repeats": true}"#).get()
        first = nil
        fixture.clock.advance(by: 3_700)
        let later = EventRecorder()
        var second: HostService? = try fixture.service(state: try fixture.state(), events: later)
        second?.schedule.runDue()
        #expect(later.events("request.fired").map { $0["identifier"] } == [.string("once")])
        #expect(later.events("request.fired").first?["late"] == .bool(true))
        #expect(later.events("notification.delivered").count == 1)
        second?.schedule.runDue()
        #expect(later.events("notification.delivered").count == 1)
        // The repeating one fires its next step only: 4,200 s after it was added.
        #expect(try fixture.pending(try #require(second)).map(\.1) == [ScheduleFixture.date(4_200)])
        // The one-shot is gone for good: a third start fires nothing.
        second = nil
        let third = EventRecorder()
        let again = try fixture.service(state: try fixture.state(), events: third)
        again.schedule.runDue()
        #expect(third.events("request.fired").isEmpty)
        #expect(try fixture.pending(again).map(\.0) == ["every"])
    }

    @Test func anIntervalAcrossARestartKeepsItsWallDate() throws {
        var first: HostService? = try fixture.service(state: try fixture.state(), events: events)
        _ = try fixture.add(try #require(first), "soon", trigger: #"{"timeInterval": 600}"#).get()
        first = nil
        fixture.clock.advance(by: 200)
        let later = EventRecorder()
        let second = try fixture.service(state: try fixture.state(), events: later)
        #expect(try fixture.pending(second).map(\.1) == [ScheduleFixture.date(600)])
        fixture.clock.advance(by: 399)
        second.schedule.runDue()
        #expect(later.events("request.fired").isEmpty)
        fixture.clock.advance(by: 1)
        second.schedule.runDue()
        #expect(later.events("request.fired").first?["late"] == .bool(false))
    }

    @Test func aForwardJumpFiresADueCalendarRequestAndLeavesIntervalsAlone() throws {
        let service = try fixture.service(events: events)
        _ = try fixture.add(service, "at-eight", trigger: #"{"dateMatching": {"hour": 8}}"#).get()
        _ = try fixture.add(service, "in-an-hour", trigger: #"{"timeInterval": 3600}"#).get()
        fixture.clock.jumpWall(by: 2 * 3_600)
        service.schedule.runDue()
        #expect(events.events("request.fired").map { $0["identifier"] } == [.string("at-eight")])
        #expect(events.events("request.fired").first?["late"] == .bool(true))
        // The interval counts real time, not the wall clock: still an hour to go.
        #expect(try fixture.pending(service).map(\.1) == [ScheduleFixture.date(2 * 3_600 + 3_600)])
        fixture.clock.advance(by: 3_599)
        service.schedule.runDue()
        #expect(events.events("request.fired").count == 1)
        fixture.clock.advance(by: 1)
        service.schedule.runDue()
        #expect(events.events("request.fired").map { $0["identifier"] } == [.string("at-eight"), .string("in-an-hour")])
    }

    @Test func aBackwardJumpReArmsCalendarRequestsFromTheNewNow() throws {
        fixture.clock.advance(by: 2 * 3_600)  // 09:00
        let service = try fixture.service(events: events)
        _ = try fixture.add(service, "morning", trigger: Self.eightDaily).get()
        #expect(try fixture.pending(service).map(\.1) == [ScheduleFixture.date(3_600 + 86_400)])
        fixture.clock.jumpWall(by: -2 * 3_600)  // 07:00 again
        service.schedule.runDue()
        #expect(events.events("request.fired").isEmpty)
        #expect(try fixture.pending(service).map(\.1) == [ScheduleFixture.date(3_600)])
        fixture.clock.advance(by: 3_600)
        service.schedule.runDue()
        #expect(events.events("request.fired").count == 1)
    }

    @Test func aCalendarRequestKeptAsItsRecordFiresAndReArmsWithEveryComponent() throws {
        // Its components are not kept in memory but read back from its record when it fires and re-arms.
        let trigger = #"{"dateMatching": {"weekday": 2, "hour": 9, "minute": 30, "timeZone": "Europe/Paris"}, "repeats": true}"#
        let service = try fixture.service(events: events)
        _ = try fixture.add(service, "monday", trigger: trigger).get()
        // 09:30 in Paris (UTC+1 in March) on Monday 2 March is 08:30 UTC.
        #expect(try fixture.pending(service).map(\.1) == [ScheduleFixture.date(5_400)])
        fixture.clock.advance(by: 5_400)
        service.schedule.runDue()
        let fired = try #require(events.events("request.fired").first)
        let written = try #require(NotificationTrigger.read(try JSON.parse(Array(trigger.utf8))).trigger)
        #expect(fired["trigger"] == written.json)
        #expect(try fixture.pending(service).map(\.1) == [ScheduleFixture.date(5_400 + 7 * 86_400)])
        // Set back a day, to Sunday: 2 March fired already, so the next Monday stays the 9th.
        fixture.clock.jumpWall(by: -86_400)
        service.schedule.runDue()
        #expect(try fixture.pending(service).map(\.1) == [ScheduleFixture.date(5_400 + 7 * 86_400)])
    }

    /// A clock stepped back a little after a repeating request fired (an NTP
    /// step) does not fire the same occurrence again.
    @Test func aRepeatingCalendarRequestDoesNotFireAnOccurrenceTwiceWhenTheClockStepsBack() throws {
        let service = try fixture.service(events: events)
        _ = try fixture.add(service, "morning", trigger: Self.eightDaily).get()
        fixture.clock.advance(by: 3_601)  // 08:00:01
        service.schedule.runDue()
        #expect(events.events("request.fired").count == 1)
        fixture.clock.jumpWall(by: -3)  // 07:59:58
        service.schedule.runDue()
        #expect(try fixture.pending(service).map(\.1) == [ScheduleFixture.date(3_600 + 86_400)])
        fixture.clock.advance(by: 5)
        service.schedule.runDue()
        #expect(events.events("request.fired").count == 1)
    }

    @Test func aChangeOfTimeZoneReArmsCalendarRequestsInTheNewZone() throws {
        let service = try fixture.service(events: events)
        _ = try fixture.add(service, "nine", trigger: #"{"dateMatching": {"hour": 9}, "repeats": true}"#).get()
        _ = try fixture.add(service, "paris-ten", trigger: #"{"dateMatching": {"hour": 10, "timeZone": "Europe/Paris"}}"#).get()
        _ = try fixture.add(service, "later", trigger: #"{"timeInterval": 7200}"#).get()
        #expect(try fixture.pending(service).map(\.1) == [ScheduleFixture.date(7_200), ScheduleFixture.date(7_200),
                                                             ScheduleFixture.date(7_200)])
        // 09:00 in Paris (UTC+1 in March) is 08:00 UTC; a zone of its own and intervals stay as they were.
        fixture.clock.setZone(try TimeZoneRules(named: "Europe/Paris"))
        service.schedule.timeZoneChanged()
        let dates = Dictionary(uniqueKeysWithValues: try fixture.pending(service).map { ($0.0, $0.1) })
        #expect(dates["nine"] == ScheduleFixture.date(3_600))
        #expect(dates["paris-ten"] == ScheduleFixture.date(7_200))
        #expect(dates["later"] == ScheduleFixture.date(7_200))
        fixture.clock.advance(by: 3_600)
        service.schedule.runDue()
        #expect(events.events("request.fired").map { $0["identifier"] } == [.string("nine")])
    }
}
