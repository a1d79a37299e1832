import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime
@testable import TidingsServer

/// `requests.add`, `.pending`, `.remove`: a time-interval request fires once
/// at its time through the delivery pipeline; requests are replaced by
/// identifier, removed, kept within the app's limit; what iOS refuses is
/// refused; a request whose record cannot be written is not added.
@Suite struct ScheduleRequestTests {
    let fixture = ScheduleFixture()
    let events = EventRecorder()

    @Test func anIntervalRequestFiresOnceAtItsTime() throws {
        let service = try fixture.service(events: events)
        let added = try fixture.add(service, "stand-up", trigger: #"{"timeInterval": 90, "repeats": false}"#).get()
        #expect(added["app"] == .string(ScheduleFixture.app))
        #expect(added["nextTriggerDate"] == .string(ScheduleFixture.date(90)))
        #expect(added["replaced"] == .bool(false) && added["dropped"] == .array([]))
        #expect(events.events("request.scheduled").first?["nextTriggerDate"] == .string(ScheduleFixture.date(90)))

        fixture.clock.advance(by: 89.5)
        service.schedule.runDue()
        #expect(events.events("notification.delivered").isEmpty)
        #expect(try fixture.pending(service).map(\.0) == ["stand-up"])

        fixture.clock.advance(by: 0.5)
        service.schedule.runDue()
        let delivered = try #require(events.events("notification.delivered").first)
        #expect(delivered["notification"]?["identifier"] == .string("stand-up"))
        #expect(delivered["notification"]?["title"] == .string("Stand up"))
        #expect(delivered["notification"]?["date"] == .string(ScheduleFixture.date(90)))
        #expect(service.host.presentation(of: "stand-up")?.notification.trigger == .timeInterval(seconds: 90, repeats: false))
        #expect(service.host.presentation(of: "stand-up")?.notification.date == ScheduleFixture.start + 90)
        let fired = try #require(events.events("request.fired").first)
        #expect(fired["identifier"] == .string("stand-up") && fired["late"] == .bool(false))
        #expect(fired["date"] == .string(ScheduleFixture.date(90)))
        #expect(events.events("request.removed").first?["reason"] == .string("fired"))
        #expect(try fixture.pending(service).isEmpty)

        // Once only.
        fixture.clock.advance(by: 1_000)
        service.schedule.runDue()
        #expect(events.events("notification.delivered").count == 1)
    }

    /// A request is kept for as long as it is pending: one larger than
    /// 16 KiB (as compact JSON) is refused, and nothing is added.
    @Test func aRequestLargerThanTheLimitIsRefused() throws {
        let service = try fixture.service(events: events)
        let title = String(repeating: "x", count: HostService.requestSizeLimit)
        let refused = try fixture.add(service, "huge", trigger: #"{"timeInterval": 60}"#, title: title)
        guard case .failure(let error) = refused else {
            Issue.record("a request of \(title.utf8.count) bytes was scheduled")
            return
        }
        #expect(error.code == -32602 && error.message.contains("at most 16384"), "\(error.message)")
        #expect(try fixture.pending(service).isEmpty)
        #expect(try fixture.add(service, "small", trigger: #"{"timeInterval": 60}"#).get()["identifier"] == .string("small"))
    }

    @Test func aRepeatingIntervalFiresAgainEachPeriod() throws {
        let service = try fixture.service(events: events)
        _ = try fixture.add(service, "drink", trigger: #"{"timeInterval": 60, "repeats": true}"#).get()
        for round in 1...3 {
            fixture.clock.advance(by: 60)
            service.schedule.runDue()
            #expect(events.events("request.fired").count == round)
        }
        #expect(events.events("request.removed").isEmpty)
        #expect(try fixture.pending(service).map(\.1) == [ScheduleFixture.date(240)])
    }

    @Test func addingUnderAPendingIdentifierReplacesIt() throws {
        let service = try fixture.service(events: events)
        _ = try fixture.add(service, "a", trigger: #"{"timeInterval": 60}"#).get()
        let again = try fixture.add(service, "a", trigger: #"{"timeInterval": 120}"#, title: "Later").get()
        #expect(again["replaced"] == .bool(true))
        #expect(events.events("request.scheduled").map { $0["replaced"] } == [.bool(false), .bool(true)])
        #expect(try fixture.pending(service).map(\.1) == [ScheduleFixture.date(120)])
        let listed = try fixture.call(service, "requests.pending", "{}").get()["requests"]?.arrayValue?.first
        #expect(listed?["request"]?["content"]?["title"] == .string("Later"))
        #expect(listed?["request"]?["identifier"] == .string("a"))
        #expect(listed?["trigger"] == .object([("timeInterval", .double(120)), ("repeats", .bool(false))]))
        #expect(listed?["added"] == .string(ScheduleFixture.date(0)))
        fixture.clock.advance(by: 60)
        service.schedule.runDue()
        #expect(events.events("request.fired").isEmpty)
    }

    @Test func requestsAreRemovedByIdentifierOrAllOfAnApp() throws {
        let service = try fixture.service(events: events)
        for (number, identifier) in ["a", "b", "c", "d"].enumerated() {
            _ = try fixture.add(service, identifier, trigger: #"{"timeInterval": \#(60 * (number + 1))}"#).get()
        }
        _ = try fixture.call(service, "requests.add", #"{"app": "com.example.other", "request": {"identifier": "x", "content": {"title": "T"}, "trigger": {"timeInterval": 30}}}"#).get()
        let removed = try fixture.call(service, "requests.remove", #"{"app": "\#(ScheduleFixture.app)", "identifiers": ["b", "missing", "d"]}"#).get()
        #expect(removed["removed"] == .array([.string("b"), .string("d")]))
        #expect(events.events("request.removed").last?["reason"] == .string("removed"))
        #expect(try fixture.pending(service).map(\.0) == ["a", "c"])
        let all = try fixture.call(service, "requests.remove", #"{"app": "\#(ScheduleFixture.app)"}"#).get()
        #expect(all["removed"] == .array([.string("a"), .string("c")]))
        #expect(try fixture.pending(service).isEmpty)
        // Another app's are left; nothing fires of what was removed.
        let everyone = try fixture.call(service, "requests.pending", "{}").get()["requests"]?.arrayValue ?? []
        #expect(everyone.map { $0["identifier"] } == [.string("x")])
        fixture.clock.advance(by: 1_000)
        service.schedule.runDue()
        #expect(events.events("request.fired").map { $0["identifier"] } == [.string("x")])
    }

    @Test func manyReplacedAndRemovedLeaveTheOthersFiringInOrder() throws {
        let service = try fixture.service(limit: 1_000, events: events)
        // Each replacement and removal leaves a stale heap entry behind, swept once they outnumber the live.
        for round in 0..<3 {
            for number in 0..<300 {
                _ = try fixture.add(service, "r\(number)", trigger: #"{"timeInterval": \#(1_000 + 10 * number - round)}"#).get()
            }
        }
        _ = try fixture.call(service, "requests.remove", #"{"app": "\#(ScheduleFixture.app)", "identifiers": [\#((0..<300).filter { $0 % 3 != 0 }.map { "\"r\($0)\"" }.joined(separator: ", "))]}"#).get()
        #expect(try fixture.pending(service).count == 100)
        fixture.clock.advance(by: 997)
        service.schedule.runDue()
        #expect(events.events("request.fired").isEmpty)
        fixture.clock.advance(by: 1)
        service.schedule.runDue()
        #expect(events.events("request.fired").map { $0["identifier"] } == [.string("r0")])
        fixture.clock.advance(by: 3_000)
        service.schedule.runDue()
        let fired = events.events("request.fired").compactMap { $0["identifier"]?.stringValue }
        #expect(fired == (0..<300).filter { $0 % 3 == 0 }.map { "r\($0)" })
        #expect(try fixture.pending(service).isEmpty)
    }

    /// Over RPC a request names its app: a category that one app registered
    /// does not route it (two apps may use one category), and an identifier
    /// left out is made up.
    @Test func aRequestNamingNoAppIsRefusedEvenWhenItsCategoryNamesOne() throws {
        let service = try fixture.service(events: events)
        _ = try fixture.call(service, "categories.register", #"{"app": "com.example.tasks", "categories": [{"identifier": "task-due", "actions": []}]}"#).get()
        guard case .failure(let unnamed) = try fixture.call(service, "requests.add", #"{"request": {"content": {"title": "Due", "categoryIdentifier": "task-due"}, "trigger": {"timeInterval": 5}}}"#) else {
            return #expect(Bool(false))
        }
        #expect(unnamed.code == -32602 && unnamed.message.contains("\"app\""), "\(unnamed)")
        #expect(try fixture.pending(service).isEmpty)
        let added = try fixture.call(service, "requests.add", #"{"app": "com.example.tasks", "request": {"content": {"title": "Due", "categoryIdentifier": "task-due"}, "trigger": {"timeInterval": 5}}}"#).get()
        #expect(added["app"] == .string("com.example.tasks"))
        let identifier = try #require(added["identifier"]?.stringValue)
        #expect(!identifier.isEmpty)
        fixture.clock.advance(by: 5)
        service.schedule.runDue()
        let delivered = try #require(events.events("notification.delivered").first)
        #expect(delivered["app"] == .string("com.example.tasks"))
        #expect(delivered["notification"]?["identifier"] == .string(identifier))
    }

    @Test func theLimitKeepsTheSoonestFiringAndRegionsLast() throws {
        let service = try fixture.service(limit: 3, events: events)
        let region = #"{"region": {"identifier": "office", "latitude": 48.85, "longitude": 2.35, "radius": 100}}"#
        _ = try fixture.add(service, "near", trigger: region).get()
        _ = try fixture.add(service, "10", trigger: #"{"timeInterval": 10}"#).get()
        _ = try fixture.add(service, "40", trigger: #"{"timeInterval": 40}"#).get()
        let fourth = try fixture.add(service, "20", trigger: #"{"timeInterval": 20}"#).get()
        #expect(fourth["dropped"] == .array([.string("40")]))
        #expect(events.events("request.removed").last?["reason"] == .string("limit"))
        // Soonest first, the region last.
        #expect(try fixture.pending(service).map(\.0) == ["10", "20", "near"])
        let fifth = try fixture.add(service, "30", trigger: #"{"timeInterval": 30}"#).get()
        #expect(fifth["dropped"] == .array([.string("30")]))
        #expect(try fixture.pending(service).map(\.0) == ["10", "20", "near"])
    }

    @Test func whatIOSRefusesIsRefusedInItsWords() throws {
        let service = try fixture.service(events: events)
        func refusal(_ trigger: String) throws -> RPCError? {
            guard case .failure(let error) = try fixture.add(service, "r", trigger: trigger) else { return nil }
            return error
        }
        let zero = try #require(try refusal(#"{"timeInterval": 0}"#))
        #expect(zero.code == -32000 && zero.message.contains("must be greater than 0"), "\(zero)")
        let soon = try #require(try refusal(#"{"timeInterval": 30, "repeats": true}"#))
        #expect(soon.code == -32000 && soon.message.contains("at least 60"), "\(soon)")
        let push = try #require(try refusal(#"{"push": true}"#))
        #expect(push.code == -32000 && push.message.contains("remote notification"), "\(push)")
        guard case .failure(let none) = try fixture.call(service, "requests.add", #"{"app": "a.b", "request": {"content": {"title": "T"}}}"#) else {
            return #expect(Bool(false))
        }
        #expect(none.code == -32602 && none.message.contains("no \"trigger\""), "\(none)")
        // A trigger given to be delivered now is refused there, pointing here.
        guard case .failure(let now) = try fixture.call(service, "notifications.deliver", #"{"app": "a.b", "payload": {"content": {"title": "T"}, "trigger": {"timeInterval": 5}}}"#) else {
            return #expect(Bool(false))
        }
        #expect(now.message.contains("requests.add"), "\(now)")
        #expect(try fixture.pending(service).isEmpty && events.events("request.scheduled").isEmpty)
    }

    @Test func aRequestThatCannotBeDeliveredWhenItFiresIsRemovedAsUndeliverable() throws {
        let logged = LogRecorder()
        let service = try fixture.service(events: events, log: logged)
        let photo = fixture.directory.file("gone.png")
        _ = try fixture.call(service, "requests.add", #"{"app": "\#(ScheduleFixture.app)", "request": {"identifier": "photo", "content": {"title": "Look", "attachments": [{"identifier": "p", "path": "\#(photo)"}]}, "trigger": {"timeInterval": 60}}}"#).get()
        fixture.clock.advance(by: 60)
        service.schedule.runDue()
        #expect(events.events("notification.delivered").isEmpty && events.events("request.fired").isEmpty)
        #expect(events.events("request.removed").first?["reason"] == .string("undeliverable"))
        #expect(logged.messages.contains { $0.contains("photo") && $0.contains("could not be delivered") }, "\(logged.messages)")
        #expect(try fixture.pending(service).isEmpty)
    }

    @Test func aRequestWhoseRecordCannotBeWrittenIsNotAdded() throws {
        let state = RefusingState()
        let service = try fixture.service(state: state, events: events)
        guard case .failure(let error) = try fixture.add(service, "a", trigger: #"{"timeInterval": 60}"#) else {
            return #expect(Bool(false))
        }
        #expect(error.code == -32010, "\(error)")
        #expect(try fixture.pending(service).isEmpty)
        #expect(events.events("request.scheduled").isEmpty)
        fixture.clock.advance(by: 120)
        service.schedule.runDue()
        #expect(events.events("notification.delivered").isEmpty)
    }
}

/// A state whose disk is full: every record is refused.
final class RefusingState: ServerState {
    let kept = KeptState()
    let health = StateHealth()
    let report = JSON.null
    let repairs: JSON? = nil
    private var full: Diagnostic { .error(.init("file.no-space"), "No space left on the device.") }

    func recordCategories(_ categories: [NotificationCategory], of app: String) throws(Diagnostic) { throw full }
    func recordRegistration(_ registration: AppRegistration, of app: String) throws(Diagnostic) { throw full }
    func recordDelivery(of notification: UserNotification, to app: String, width: Double,
                        expiring: [NotificationKey]) throws(Diagnostic) { throw full }
    func recordRemoval(of keys: [NotificationKey]) throws(Diagnostic) { throw full }
    func recordInboxed(_ entry: InboxEntry) throws(Diagnostic) { throw full }
    func recordTaken(_ identifiers: [UInt64], of app: String) throws(Diagnostic) { throw full }
    func recordBadge(_ count: Int64, of app: String) throws(Diagnostic) { throw full }
    func recordScheduled(_ record: ScheduledRecord) throws(Diagnostic) { throw full }
    func recordUnscheduled(_ identifiers: [String], of app: String) throws(Diagnostic) { throw full }
    func recordFired(_ identifier: String, of app: String, at instant: Double) throws(Diagnostic) { throw full }
    func recordAuthorization(_ authorization: AppAuthorization, of app: String) throws(Diagnostic) { throw full }
    func recordSequence(through last: UInt64) throws(Diagnostic) { throw full }
    func observe(_ observer: @escaping @Sendable (StateHealth) -> Void) {}
}
