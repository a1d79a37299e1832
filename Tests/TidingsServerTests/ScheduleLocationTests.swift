import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime
@testable import TidingsServer

/// `location.update` against pending region requests: the first position
/// only tells inside or outside, crossings fire on entry and exit as the
/// region asks, a coarse position says nothing.
@Suite struct ScheduleLocationTests {
    let fixture = ScheduleFixture()
    let events = EventRecorder()
    /// 100 m around a point in Paris.
    static let office = #"{"region": {"identifier": "office", "latitude": 48.8566, "longitude": 2.3522, "radius": 100}, "repeats": true}"#

    func update(_ service: HostService, _ latitude: Double, _ longitude: Double, accuracy: Double? = nil) throws -> [JSON] {
        let accuracy = accuracy.map { #", "accuracy": \#($0)"# } ?? ""
        let answer = try fixture.call(service, "location.update", #"{"latitude": \#(latitude), "longitude": \#(longitude)\#(accuracy)}"#).get()
        return answer["fired"]?.arrayValue ?? []
    }

    @Test func crossingsFireEntryAndExitOnceEach() throws {
        let service = try fixture.service(events: events)
        let added = try fixture.add(service, "arrive", trigger: Self.office).get()
        #expect(added["nextTriggerDate"] == .null)
        // 1 km away: establishes outside.
        #expect(try update(service, 48.8656, 2.3522).isEmpty)
        // 50 m from the centre: inside, but only ±500 m sure: nothing known.
        #expect(try update(service, 48.85705, 2.3522, accuracy: 500).isEmpty)
        let entry = try update(service, 48.85705, 2.3522, accuracy: 10)
        #expect(entry.map { $0["crossing"] } == [.string("entry")])
        #expect(try update(service, 48.8567, 2.3523).isEmpty)
        let exit = try update(service, 48.8656, 2.3522)
        #expect(exit.map { $0["crossing"] } == [.string("exit")])
        #expect(events.events("request.fired").map { $0["crossing"] } == [.string("entry"), .string("exit")])
        #expect(events.events("notification.delivered").count == 2)
        #expect(try fixture.pending(service).map(\.0) == ["arrive"])
    }

    @Test func aOneShotRegionFiresOnceAndIsRemoved() throws {
        let service = try fixture.service(events: events)
        _ = try fixture.add(service, "leave", trigger: #"{"region": {"identifier": "home", "latitude": 0, "longitude": 0, "radius": 1000, "notifyOnEntry": false}}"#).get()
        #expect(try update(service, 0, 0).isEmpty)
        #expect(try update(service, 0.001, 0).isEmpty)  // 111 m: still inside
        #expect(try update(service, 0.1, 0).map { $0["crossing"] } == [.string("exit")])
        #expect(events.events("request.removed").first?["reason"] == .string("fired"))
        #expect(try update(service, 0, 0).isEmpty)
        #expect(try update(service, 0.1, 0).isEmpty)
        #expect(try fixture.pending(service).isEmpty)
    }

    @Test func distancesAreGreatCircle() {
        // Paris to London, about 343.5 km.
        let distance = PendingScheduler.distance(from: (48.8566, 2.3522), to: (51.5074, -0.1278))
        #expect(abs(distance - 343_500) < 1_500)
    }

    /// A crossing whose delivery could not be recorded (the state degraded)
    /// is not lost: the region is taken to be on its old side again, so the
    /// next position fires it again.
    @Test func aCrossingWhoseDeliveryWasNotRecordedFiresAgainOnTheNextPosition() throws {
        let clock = ManualScheduleClock(wall: 1_800_000_000)
        let scheduler = PendingScheduler(clock: clock, limit: 64, kept: [], state: nil, subscribers: Subscribers(),
                                         drivingItself: false, log: { _ in })
        let trigger = try #require(NotificationTrigger.read(try JSON.parse(Array(
            #"{"region": {"identifier": "home", "latitude": 0, "longitude": 0, "radius": 1000}}"#.utf8))).trigger)
        _ = try scheduler.add(app: "a", identifier: "arrive", trigger: trigger,
                              request: try JSON.parse(Array(#"{"identifier": "arrive", "content": {"title": "Hi"}}"#.utf8)))
        #expect(scheduler.locate(latitude: 1, longitude: 0, accuracy: nil).isEmpty)  // outside: established
        let entered = scheduler.locate(latitude: 0, longitude: 0, accuracy: nil)
        #expect(entered.count == 1)
        scheduler.settle(try #require(entered.first), .notRecorded(.error(.stateNotWritten, "disk full")))
        let again = scheduler.locate(latitude: 0, longitude: 0, accuracy: nil)
        #expect(again.map(\.crossing) == ["entry"])
        scheduler.settle(try #require(again.first), .delivered)
        #expect(scheduler.locate(latitude: 0, longitude: 0, accuracy: nil).isEmpty)
        #expect(scheduler.count == 0)
    }
}
