import Testing
import TestSupport
import TidingsBase
import TidingsRegistry
@testable import TidingsServer

/// The scheduler's own thread, on the system's clocks: it starts with the
/// first request armed, sleeps on its timers, fires what is due, and ends
/// with its service.
@Suite struct ScheduleLoopTests {
    let directory = TemporaryDirectory("schedule-loop")

    @Test func theSystemClocksThreadFiresARequestWhenDue() throws {
        let index = Discovery.scan(SearchPath(directories: [directory.path], origin: .option))
        let events = EventRecorder()
        var service: HostService? = HostService(index: index)
        func call(_ method: String, _ params: String) throws -> JSON {
            try #require(service).answer(RPCRequest(id: .number(1), method: method, params: try JSON.parse(Array(params.utf8))),
                                         from: events).get()
        }
        _ = try call("events.subscribe", #"{"apps": "all"}"#)
        _ = try call("requests.add", #"{"app": "com.example.a", "request": {"identifier": "soon", "content": {"title": "T"}, "trigger": {"timeInterval": 0.05}}}"#)
        _ = try call("requests.add", #"{"app": "com.example.a", "request": {"identifier": "later", "content": {"title": "T"}, "trigger": {"timeInterval": 0.1}}}"#)
        #expect(eventually { events.events("request.fired").count == 2 })
        #expect(events.events("request.fired").map { $0["identifier"] } == [.string("soon"), .string("later")])
        #expect(events.events("notification.delivered").count == 2)
        let described = try call("server.describe", "{}")["schedule"]
        #expect(described?["pending"] == .integer(0) && described?["pendingLimit"] == .integer(64))
        weak let scheduler = service?.schedule
        service = nil
        // Once its thread lets go of it (it holds it only while it fires), the scheduler goes, and its thread ends.
        #expect(eventually { scheduler == nil })
    }
}
