import Foundation
import Glibc
import Testing
import ServerTestSupport
import TestSupport
import TidingsBase
import TidingsRuntime
@testable import TidingsServer

/// Numbers from input that do not fit what they are made into — an interval
/// past any clock, a date past the year 9999, an integer past 64 bits — are
/// refused as invalid parameters naming their field, and never end the
/// server; kept state holding such numbers (written by an older version) is
/// set aside at load, counted, and the server serves.
@Suite struct NumberFitTests {
    let fixture = ScheduleFixture()
    let events = EventRecorder()

    /// The request `identifier` of the fixture's app with `trigger` and `content` (JSON text), as `requests.add` params.
    static func adding(_ trigger: String, content: String = #"{"title": "T"}"#, date: String? = nil) -> String {
        #"{"app": "\#(ScheduleFixture.app)", "request": {"identifier": "r", \#(date.map { #""date": \#($0), "# } ?? "")"content": \#(content), "trigger": \#(trigger)}}"#
    }

    @Test func numbersThatDoNotFitAreInvalidParamsNamingTheirField() throws {
        let service = try fixture.service(events: events)
        let refusals: [(String, String, String)] = [
            ("requests.add", Self.adding(#"{"timeInterval": 1e300}"#), "/request/trigger/timeInterval"),
            ("requests.add", Self.adding(#"{"timeInterval": 9.3e18}"#), "/request/trigger/timeInterval"),
            ("requests.add", Self.adding(#"{"timeInterval": 99999999999999999999999}"#), "/request/trigger/timeInterval"),
            ("requests.add", Self.adding(#"{"timeInterval": 10000000001, "repeats": true}"#), "/request/trigger/timeInterval"),
            ("requests.add", Self.adding(#"{"dateMatching": {"year": 1e300}}"#), "/request/trigger/dateMatching/year"),
            ("requests.add", Self.adding(#"{"dateMatching": {"year": 10000}}"#), "/request/trigger/dateMatching/year"),
            ("requests.add", Self.adding(#"{"dateMatching": {"hour": -1e300}}"#), "/request/trigger/dateMatching/hour"),
            ("requests.add", Self.adding(#"{"dateMatching": {"minute": 9.3e18}}"#), "/request/trigger/dateMatching/minute"),
            ("requests.add", Self.adding(#"{"timeInterval": 60}"#, content: #"{"title": "T", "badge": 1e300}"#), "/content/badge"),
            ("requests.add", Self.adding(#"{"timeInterval": 60}"#, date: "1e300"), "/date"),
            ("requests.add", Self.adding(#"{"timeInterval": 60}"#, date: "-1e300"), "/date"),
            ("notifications.deliver", #"{"app": "a.b", "payload": {"date": 9.3e18, "content": {"title": "T"}}}"#, "/date"),
            ("notifications.deliver", #"{"app": "a.b", "payload": {"aps": {"alert": "T", "badge": -1e300}}}"#, "/aps/badge"),
            ("badge.set", #"{"app": "a.b", "count": 1e300}"#, "count"),
            ("location.update", #"{"latitude": 1e300, "longitude": 0}"#, "latitude"),
            ("notifications.list", #"{"limit": 9.3e18}"#, "limit"),
            ("inbox.list", #"{"app": "a.b", "after": -1e300}"#, "after"),
            ("events.subscribe", #"{"apps": "all", "after": 1e300}"#, "after"),
        ]
        for (method, params, field) in refusals {
            guard case .failure(let error) = try fixture.call(service, method, params) else {
                Issue.record("\(method) \(params) was accepted")
                continue
            }
            #expect(error.code == -32602, "\(method) \(params): \(error)")
            let named = error.data?["field"]?.stringValue ?? error.message
            #expect(named.contains(field) || error.message.contains("\"\(field.split(separator: "/").last ?? "")\""),
                    "\(method) \(params) does not name \(field): \(error)")
        }
        // Nothing was kept, and the service answers what lists and describes dates.
        #expect(try fixture.pending(service).isEmpty)
        let described = try fixture.call(service, "server.describe", "{}").get()
        #expect(described["schedule"]?["pending"] == .integer(0))
        // The largest interval still fits, and its date reads back.
        let longest = try fixture.call(service, "requests.add", Self.adding(#"{"timeInterval": 10000000000}"#)).get()
        #expect(longest["nextTriggerDate"]?.stringValue.flatMap(ISO8601.parse) == ScheduleFixture.start + 1e10)
    }

    @Test func aRequestThatCannotFitDoesNotEndTheServer() throws {
        let directory = TemporaryDirectory("numbers-serve")
        let socket = directory.file("run/tidings.sock")
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        let server = try BackgroundProcess(Locations.product("tidings"), [
            "serve", "--socket", socket, "--state", directory.file("state"), "--extensions", directory.file("extensions"),
        ], environment: ["HOME": directory.path, "NO_COLOR": "1"], log: directory.file("serve.log"))
        defer { server.stop() }
        try #require(BackgroundProcess.wait(forListener: socket), "the server did not start")
        let client = try RPCClient(path: socket)
        for interval in ["1e300", "9.3e18", "99999999999999999999999"] {
            let request = try JSON.parse(Array(Self.adding(#"{"timeInterval": \#(interval)}"#).utf8))
            let answer = try client.answer(to: client.request("requests.add", request))
            #expect(answer["error"]?["code"] == .integer(-32602), "\(interval): \(answer)")
            #expect(answer["error"]?["data"]?["field"] == .string("/request/trigger/timeInterval"), "\(interval): \(answer)")
        }
        #expect(try client.call("requests.pending")["requests"] == .array([]))
        #expect(try client.call("server.ping")["pong"] == .bool(true))
    }

    @Test func keptRecordsWhoseNumbersDoNotFitAreSetAsideAndTheServerServes() throws {
        let directory = TemporaryDirectory("numbers-state")
        let stateDirectory = directory.file("state")
        let now = Double(time(nil))
        let app = "com.example.kept"
        do {
            // What an older version kept: requests it took with an absurd interval or date, beside good ones.
            let state = try JournaledState(directory: stateDirectory)
            let request = JSON.object([("content", .object([("title", .string("T"))]))])
            try state.recordScheduled(ScheduledRecord(app: app, identifier: "absurd", added: now,
                                                      trigger: .timeInterval(seconds: 1e300, repeats: false), request: request))
            try state.recordScheduled(ScheduledRecord(app: app, identifier: "overflowing", added: now,
                                                      trigger: .timeInterval(seconds: 9.3e18, repeats: true), request: request))
            try state.recordScheduled(ScheduledRecord(app: app, identifier: "ancient", added: 1e300,
                                                      trigger: .timeInterval(seconds: 90, repeats: false), request: request))
            try state.recordScheduled(ScheduledRecord(app: app, identifier: "fine", added: now,
                                                      trigger: .timeInterval(seconds: 86_400, repeats: false), request: request))
            var content = NotificationContent()
            content.title = "Kept"
            try state.recordDelivery(of: UserNotification(identifier: "good", date: now, content: content), to: app, width: 320)
        }
        // And notifications it kept with a date or a level no field holds.
        let store = RecordStore(directory: stateDirectory, name: "server")
        _ = try store.load()
        for (identifier, date, level) in [("far", "1e300", "1"), ("loud", "0", "1099511627776")] {
            let record = #"{"delivered": "\#(app)", "width": 320, "notification": {"identifier": "\#(identifier)", "date": \#(date), "content": {"title": "T", "interruptionLevel": \#(level), "userInfo": {}}}}"#
            try store.append(Array(record.utf8))
        }
        try store.synchronize()

        let socket = directory.file("run/tidings.sock")
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        let server = try BackgroundProcess(Locations.product("tidings"), [
            "serve", "--socket", socket, "--state", stateDirectory, "--extensions", directory.file("extensions"),
        ], environment: ["HOME": directory.path, "NO_COLOR": "1"], log: directory.file("serve.log"))
        defer { server.stop() }
        try #require(BackgroundProcess.wait(forListener: socket),
                     "the server did not start: \((try? String(contentsOfFile: directory.file("serve.log"), encoding: .utf8)) ?? "")")
        let client = try RPCClient(path: socket)
        let pending = try client.call("requests.pending")["requests"]?.arrayValue ?? []
        #expect(pending.map { $0["identifier"] } == [.string("fine")])
        let listed = try client.listAll()
        #expect(listed.map { $0["notification"]?["identifier"] } == [.string("good")])
        let setAside = try client.call("server.describe")["state"]?["setAside"]
        #expect(setAside?["count"] == .integer(5), "\(String(describing: setAside))")
        let messages = (setAside?["diagnostics"]?.arrayValue ?? []).compactMap { $0["message"]?.stringValue }.joined(separator: "\n")
        for identifier in ["absurd", "overflowing", "ancient"] {
            #expect(messages.contains("\"\(identifier)\""), "\(messages)")
        }
        // It goes on serving: a new request is taken and listed.
        _ = try client.call("requests.add", try JSON.parse(Array(#"{"app": "\#(app)", "request": {"identifier": "new", "content": {"title": "T"}, "trigger": {"timeInterval": 600}}}"#.utf8)))
        let after = try client.call("requests.pending")["requests"]?.arrayValue ?? []
        #expect(Set(after.compactMap { $0["identifier"]?.stringValue }) == ["fine", "new"])
    }

    @Test func aOneShotDueWhileTheServerWasDownIsDeliveredSayingItWasLate() throws {
        var first: HostService? = try fixture.service(state: try fixture.state(), events: events)
        _ = try fixture.add(try #require(first), "missed", trigger: #"{"timeInterval": 600}"#).get()
        _ = try fixture.add(try #require(first), "on-time", trigger: #"{"timeInterval": 7200}"#).get()
        first = nil  // the server is down past the first one's time
        fixture.clock.advance(by: 3_600)
        let later = EventRecorder()
        var second: HostService? = try fixture.service(state: try fixture.state(), events: later)
        try #require(second).schedule.runDue()
        fixture.clock.advance(by: 3_600)
        try #require(second).schedule.runDue()
        let delivered = later.events("notification.delivered")
        #expect(delivered.map { $0["notification"]?["identifier"] } == [.string("missed"), .string("on-time")])
        #expect(delivered.first?["notification"]?["late"] == .bool(true))
        #expect(delivered.last?["notification"]?["late"] == nil)
        func lateness(_ service: HostService) throws -> [String: JSON?] {
            let listed = try fixture.call(service, "notifications.list", "{}").get()["notifications"]?.arrayValue ?? []
            return Dictionary(uniqueKeysWithValues: listed.map { ($0["notification"]?["identifier"]?.stringValue ?? "", $0["notification"]?["late"]) })
        }
        #expect(try lateness(try #require(second)) == ["missed": .bool(true), "on-time": nil])
        // Journaled: after another restart the delivered notification still says so.
        second = nil
        let third = try fixture.service(state: try fixture.state(), events: EventRecorder())
        #expect(try lateness(third) == ["missed": .bool(true), "on-time": nil])
    }
}
