import Glibc
import Synchronization
import TidingsBase
import TidingsProtocol
import TidingsRegistry
import TidingsRuntime
import TidingsServer

/// The server's methods that take numbers, answered by a service over no
/// bundles and a clock of the target's own: every number a call can carry —
/// a trigger's interval and date components, a region, a notification's
/// date and badge, a position, a badge count, paging — fits or is refused,
/// and never traps. The first eight bytes are a Double put into each of the
/// numeric parameters of `templates` in turn (the ninth, when there is one,
/// picks a single template); the whole input is also answered as a line of
/// JSON-RPC. Each call is answered as a result or an error the protocol
/// defines; a request added is listed, described and fired (after the clock
/// moves past its date) without trapping, and its `nextTriggerDate` reads back.
enum NumberChecks {
    /// The calls, each with `NUMBER` where the number goes.
    static let templates = [
        #"{"method": "requests.add", "params": {"app": "a.b", "request": {"identifier": "r", "content": {"title": "T"}, "trigger": {"timeInterval": NUMBER}}}}"#,
        #"{"method": "requests.add", "params": {"app": "a.b", "request": {"identifier": "r", "content": {"title": "T"}, "trigger": {"timeInterval": NUMBER, "repeats": true}}}}"#,
        #"{"method": "requests.add", "params": {"app": "a.b", "request": {"identifier": "c", "content": {"title": "T"}, "trigger": {"dateMatching": {"year": NUMBER, "hour": 8}}}}}"#,
        #"{"method": "requests.add", "params": {"app": "a.b", "request": {"identifier": "c", "content": {"title": "T"}, "trigger": {"dateMatching": {"hour": NUMBER}, "repeats": true}}}}"#,
        #"{"method": "requests.add", "params": {"app": "a.b", "request": {"identifier": "g", "content": {"title": "T"}, "trigger": {"region": {"identifier": "o", "latitude": 1, "longitude": 2, "radius": NUMBER}}}}}"#,
        #"{"method": "requests.add", "params": {"app": "a.b", "request": {"identifier": "d", "date": NUMBER, "content": {"title": "T", "badge": NUMBER}, "trigger": {"timeInterval": 5}}}}"#,
        #"{"method": "notifications.deliver", "params": {"app": "a.b", "payload": {"identifier": "n", "date": NUMBER, "content": {"title": "T", "badge": NUMBER, "relevanceScore": NUMBER, "summaryArgumentCount": NUMBER}}}}"#,
        #"{"method": "notifications.deliver", "params": {"app": "a.b", "width": NUMBER, "payload": {"aps": {"alert": "T", "badge": NUMBER, "relevance-score": NUMBER}}}}"#,
        #"{"method": "location.update", "params": {"latitude": NUMBER, "longitude": NUMBER, "accuracy": NUMBER}}"#,
        #"{"method": "badge.set", "params": {"app": "a.b", "count": NUMBER}}"#,
        #"{"method": "notifications.list", "params": {"limit": NUMBER}}"#,
        #"{"method": "inbox.list", "params": {"app": "a.b", "after": NUMBER, "limit": NUMBER}}"#,
        #"{"method": "inbox.take", "params": {"app": "a.b", "ids": [NUMBER], "upTo": NUMBER}}"#,
        #"{"method": "events.subscribe", "params": {"apps": "all", "after": NUMBER}}"#,
    ]

    /// The codes an answer may carry: the specification's and the server's own.
    private static let codes = Set([-32700, -32600, -32601, -32602, -32603] + Array(-32099 ... -32000))

    static func check(_ bytes: [UInt8]) {
        let rig = Rig()
        if bytes.count >= 8 {
            let number = Double(bitPattern: bytes.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) })
            // A number JSON can write: NaN and the infinities (which the parser refuses) as the largest.
            let written = number.isFinite ? number : number.sign == .minus ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude
            var text: [UInt8] = []
            JSON.double(written).serialize(into: &text)
            let chosen = bytes.count > 8 ? [templates[Int(bytes[8]) % templates.count]] : templates
            for template in chosen {
                let call = template.replacing("NUMBER", with: String(decoding: text, as: UTF8.self))
                guard let json = try? JSON.parse(Array(call.utf8)), let method = json["method"]?.stringValue else {
                    preconditionFailure("a template does not make JSON: \(call)")
                }
                rig.answer(method, json["params"])
            }
        }
        if case .single(.success(let request)) = RPCMessage.read(bytes) {
            rig.answer(request.method, request.params)
        }
        rig.exercise()
    }

    /// A service over no bundles, by a clock the check moves.
    private final class Rig {
        let clock = FuzzClock()
        let service: HostService

        init() {
            var configuration = HostService.Configuration()
            configuration.scheduleClock = clock
            configuration.host.attachmentDirectory = Path.join(NumberChecks.directory, "attachments")
            configuration.willPresentDeadline = 0.01
            service = HostService(index: ExtensionIndex(searchPath: SearchPath(directories: [], origin: .option), bundles: []),
                                  configuration: configuration)
        }

        /// Answers `method` with `params`, checking the answer's form.
        func answer(_ method: String, _ params: JSON?) {
            switch call(method, params) {
            case .success(let result):
                if method == "requests.add", case .string(let date)? = result["nextTriggerDate"] {
                    precondition(ISO8601.parse(date) != nil, "a next trigger date does not read back: \(date)")
                }
            case .failure(let error):
                precondition(NumberChecks.codes.contains(error.code), "an error outside the protocol's codes: \(error.code)")
                if error.code == -32602, error.data?["field"] != nil {
                    precondition(error.data?["field"]?.stringValue?.hasPrefix("/") == true, "a field that does not fit is not named")
                }
            }
        }

        /// The answer to `method` with `params`, as the server reads the call from a line.
        func call(_ method: String, _ params: JSON?) -> Result<JSON, RPCError> {
            var members: [(String, JSON)] = [("jsonrpc", .string("2.0")), ("id", .integer(1)), ("method", .string(method))]
            if let params { members.append(("params", params)) }
            var line: [UInt8] = []
            JSON.object(members).serialize(into: &line)
            guard case .single(.success(let request)) = RPCMessage.read(line) else {
                preconditionFailure("a call the check made does not read as one: \(method)")
            }
            return service.answer(request, from: Silent())
        }

        /// Lists, describes and fires what was added, far ahead of now: none of it traps.
        func exercise() {
            for method in ["requests.pending", "server.describe", "notifications.list"] {
                if case .failure(let error) = call(method, nil) {
                    preconditionFailure("\(method) failed: \(error.message)")
                }
            }
            clock.advance(by: NotificationTrigger.longestInterval + 1)
            service.schedule.runDue()
            _ = call("requests.pending", nil)
        }
    }

    /// Events go nowhere.
    private final class Silent: EventReceiver {
        func push(_ line: [UInt8]) -> Bool { true }
    }

    /// The directory attachments would be stored in: in memory when the machine has /dev/shm.
    static let directory: String = {
        let base = FileSystem.isDirectory("/dev/shm") ? "/dev/shm" : "/tmp"
        return Path.join(base, "tidings-fuzz-numbers-\(getpid())")
    }()
}

/// A clock the check moves: 2026-03-02T07:00:00Z, its elapsed clock at 1,000 s, in UTC.
final class FuzzClock: ScheduleClock {
    private let now = Mutex((wall: 1_772_434_800.0, elapsed: 1_000.0))

    func wallNow() -> Double { now.withLock { $0.wall } }
    func elapsedNow() -> Double { now.withLock { $0.elapsed } }
    func timeZone() -> TimeZoneRules { .utc }

    /// Both clocks move `seconds` forward.
    func advance(by seconds: Double) {
        now.withLock { now in
            now.wall += seconds
            now.elapsed += seconds
        }
    }
}
