import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsRegistry
import TidingsRuntime
@testable import TidingsServer

/// A clock a test moves: the wall and elapsed clocks advance together,
/// or the wall clock alone jumps; the scheduler is then run by hand
/// (`runDue()`), never waited for.
final class ManualScheduleClock: ScheduleClock {
    private let now: Mutex<(wall: Double, elapsed: Double, zone: TimeZoneRules)>

    /// A clock reading `wall` (seconds since 1970), its elapsed clock at 1,000 s.
    init(wall: Double, zone: TimeZoneRules = .utc) {
        now = Mutex((wall, 1_000, zone))
    }

    func wallNow() -> Double { now.withLock { $0.wall } }
    func elapsedNow() -> Double { now.withLock { $0.elapsed } }
    func timeZone() -> TimeZoneRules { now.withLock { $0.zone } }

    /// Time passes: both clocks move `seconds` forward.
    func advance(by seconds: Double) {
        now.withLock { now in
            now.wall += seconds
            now.elapsed += seconds
        }
    }

    /// The user's time zone becomes `zone`.
    func setZone(_ zone: TimeZoneRules) {
        now.withLock { $0.zone = zone }
    }

    /// The wall clock is set `seconds` forward (backward when negative); the elapsed clock does not move.
    func jumpWall(by seconds: Double) {
        now.withLock { $0.wall += seconds }
    }
}

/// Hears the events pushed to it, as (method, params).
final class EventRecorder: EventReceiver {
    private let heard = Mutex<[(String, JSON)]>([])

    func push(_ line: [UInt8]) -> Bool {
        if let json = try? JSON.parse(Array(line.dropLast())), let method = json["method"]?.stringValue {
            heard.withLock { $0.append((method, json["params"] ?? .null)) }
        }
        return true
    }

    /// The params of the events of `method` heard so far; without their `seq` unless `withSeq`.
    func events(_ method: String, withSeq: Bool = true) -> [JSON] {
        let params = heard.withLock { $0.filter { $0.0 == method }.map(\.1) }
        return withSeq ? params : params.map { .object(($0.objectMembers ?? []).filter { $0.0 != "seq" }) }
    }

    /// Forgets what was heard.
    func clear() {
        heard.withLock { $0.removeAll() }
    }
}

/// Keeps what the server logs.
final class LogRecorder: Sendable {
    private let kept = Mutex<[String]>([])

    /// Keeps `diagnostic`'s message.
    func keep(_ diagnostic: Diagnostic) {
        kept.withLock { $0.append(diagnostic.message) }
    }

    /// The messages logged so far.
    var messages: [String] { kept.withLock { $0 } }
}

/// A `HostService` over no bundles, its pending requests scheduled by a
/// manual clock, its state (when kept) in a temporary directory, an event
/// recorder subscribed to every app.
struct ScheduleFixture {
    static let app = "com.example.reminders"
    /// 2026-03-02T07:00:00Z, a Monday.
    static let start = ISO8601.parse("2026-03-02T07:00:00Z")!

    let directory = TemporaryDirectory("schedule")
    let clock = ManualScheduleClock(wall: ScheduleFixture.start)

    /// A service by this fixture's clock, keeping `limit` requests per app,
    /// recording in `state`; `events` subscribed to it.
    func service(limit: Int = PendingScheduler.defaultLimit, state: (any ServerState)? = nil,
                 events: EventRecorder, log: LogRecorder = LogRecorder()) throws -> HostService {
        var configuration = HostService.Configuration()
        configuration.log = { log.keep($0) }
        configuration.pendingLimit = limit
        configuration.scheduleClock = clock
        configuration.host.attachmentDirectory = directory.file("attachments")
        let index = Discovery.scan(SearchPath(directories: [directory.path], origin: .option))
        let service = HostService(index: index, configuration: configuration, state: state)
        _ = try call(service, "events.subscribe", #"{"apps": "all"}"#, from: events).get()
        return service
    }

    /// The state in `name` of the fixture's directory.
    func state(_ name: String = "state") throws -> JournaledState {
        try JournaledState(directory: directory.file(name))
    }

    /// Calls `method` of `service` with `params` (JSON text).
    func call(_ service: HostService, _ method: String, _ params: String,
              from receiver: any EventReceiver = EventRecorder()) throws -> Result<JSON, RPCError> {
        service.answer(RPCRequest(id: .number(1), method: method, params: try JSON.parse(Array(params.utf8))), from: receiver)
    }

    /// Adds a request `identifier` for the fixture's app with `trigger` (JSON text).
    func add(_ service: HostService, _ identifier: String, trigger: String, title: String = "Stand up") throws -> Result<JSON, RPCError> {
        try call(service, "requests.add", #"{"app": "\#(Self.app)", "request": {"identifier": "\#(identifier)", "content": {"title": "\#(title)", "body": "Time to move"}, "trigger": \#(trigger)}}"#)
    }

    /// The identifiers of the app's pending requests, in the order listed, with their next dates.
    func pending(_ service: HostService) throws -> [(String, String?)] {
        let listed = try call(service, "requests.pending", #"{"app": "\#(Self.app)"}"#).get()
        return (listed["requests"]?.arrayValue ?? []).map { ($0["identifier"]?.stringValue ?? "", $0["nextTriggerDate"]?.stringValue) }
    }

    /// The ISO 8601 form of `offset` seconds after the start.
    static func date(_ offset: Double) -> String { ISO8601.format(start + offset) }
}
