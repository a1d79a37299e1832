import Glibc
import Synchronization
import TidingsBase
import TidingsRuntime
import TidingsServer

/// Local notifications at scale, against `tidings serve` (NoOp in process,
/// its state journaled, `--pending-limit` 1,000, `--pending-total` 1,000,000): `pending` requests added
/// across 100 apps, all far in the future (interval and calendar triggers,
/// one-shot and repeating): how fast they are armed and what they cost in
/// resident memory; then requests 1–5 s ahead (a set exactly 2 s ahead)
/// while a client keeps delivering, and how late each one's `request.fired`
/// event arrives; then the cost of a restart over the same state.
struct ScheduleBenchmark {
    let products: Products
    let workspace: Workspace
    /// The extension directory the server reads (NoOp alone).
    let extensions: String
    /// Pending requests added, spread over `apps` apps.
    let pending: Int

    /// The apps the pending requests belong to.
    static let apps = 100
    /// The app of the requests that fire during the measurement.
    private static let firingApp = "com.example.fire"
    /// Requests that fire during the measurement exactly 2 s ahead, and 1–5 s ahead.
    static let twoSecondCount = 50
    static let spreadCount = 150
    /// Requests in flight at once while arming: a client that pipelines.
    private static let window = 64

    /// Starts the server, arms the pending requests, measures the fires, restarts it.
    func measure() throws(BenchmarkFailure) -> ScheduleResult {
        let socket = workspace.file("schedule.sock")
        let perApp = (pending + Self.apps - 1) / Self.apps
        let arguments = ["serve", "--socket", socket, "--state", workspace.file("schedule-state"), "--extensions", extensions,
                         "--isolation", "in-process", "--pending-limit", "\(max(1_000, perApp))",
                         // The benchmark's requests in all are far more than the default total's 4,096.
                         "--pending-total", "1000000"]
        var server = try ServerProcess(products.tidings, arguments, environment: ["HOME=\(workspace.path)"],
                                       log: workspace.file("schedule.log"), socket: socket)
        var stopped = false
        defer { if !stopped { server.stop() } }
        let control = try PipelinedClient(path: socket)
        try control.send([#"{"jsonrpc":"2.0","id":0,"method":"server.describe","params":{}}"#], window: 1)
        let idle = try ProcessMemory.settled(of: server.pid).resident

        Progress.say("Schedule: adding \(pending) pending requests across \(Self.apps) apps")
        let armStart = MonotonicClock.now()
        let year = Int(ISO8601.format(Payload.currentTime()).prefix(4)) ?? 2026
        try control.send((0..<pending).lazy.map { number in
            Self.add(app: "com.example.pending\(number % Self.apps)", identifier: "p\(number)",
                     trigger: Self.farTrigger(number, nextYear: year + 1), id: number)
        }, window: Self.window)
        let armSeconds = Double(MonotonicClock.now() - armStart) / 1e9
        let armed = try ProcessMemory.settled(of: server.pid).resident

        Progress.say("Schedule: \(Self.twoSecondCount + Self.spreadCount) requests 1–5 s ahead while a client delivers")
        let fires = try fireAccuracy(socket: socket)

        Progress.say("Schedule: restarting the server over \(pending) pending requests")
        let stopStart = MonotonicClock.now()
        server.stop()
        stopped = true
        let stopSeconds = Double(MonotonicClock.now() - stopStart) / 1e9
        let restartStart = MonotonicClock.now()
        server = try ServerProcess(products.tidings, arguments, environment: ["HOME=\(workspace.path)"],
                                   log: workspace.file("schedule-restart.log"), socket: socket)
        stopped = false
        let restarted = try RoundTripClient(path: socket,
                                            request: Array((#"{"jsonrpc":"2.0","id":1,"method":"server.describe","params":{}}"# + "\n").utf8))
        guard restarted.roundTrip() != nil else { throw BenchmarkFailure("The restarted server did not answer server.describe.") }
        let restartSeconds = Double(MonotonicClock.now() - restartStart) / 1e9
        let kept = try Self.pendingCount(socket: socket, app: "com.example.pending0")
        let restartedMemory = try ProcessMemory.settled(of: server.pid).resident
        return ScheduleResult(pending: pending, apps: Self.apps, idleKilobytes: idle, armedKilobytes: armed,
                              armSeconds: armSeconds, fires: fires, stopSeconds: stopSeconds, restartSeconds: restartSeconds,
                              restartedKilobytes: restartedMemory, keptByFirstApp: kept, expectedPerApp: perApp)
    }

    /// A `requests.add` line for `app`.
    private static func add(app: String, identifier: String, trigger: String, id: Int) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"requests.add","params":{"app":"\#(app)","request":{"identifier":"\#(identifier)","content":{"title":"Reminder \#(identifier)","body":"Pending for the benchmark."},"trigger":\#(trigger)}}}"#
    }

    /// Request `number`'s trigger, hours to a year ahead: one-shot and
    /// repeating intervals, dates of next year, yearly dates in the months to come.
    private static func farTrigger(_ number: Int, nextYear: Int) -> String {
        switch number % 4 {
        case 0: #"{"timeInterval":\#(3_600 + number % 10_000 * 60),"repeats":false}"#
        case 1: #"{"timeInterval":\#(86_400 + number % 5_000 * 60),"repeats":true}"#
        case 2: #"{"dateMatching":{"year":\#(nextYear),"month":\#(1 + number % 12),"day":\#(1 + number % 28),"hour":\#(number % 24),"minute":\#(number % 60)},"repeats":false}"#
        default: #"{"dateMatching":{"month":\#(1 + number % 12),"day":\#(1 + number % 28),"hour":\#(number % 24),"minute":\#(number % 60),"second":\#(number % 60)},"repeats":true}"#
        }
    }

    /// Subscribes to the firing app's events, starts a client delivering in
    /// a loop, schedules the requests 1–5 s ahead one round trip at a time,
    /// and returns how late each `request.fired` arrived, in milliseconds.
    private func fireAccuracy(socket: String) throws(BenchmarkFailure) -> FireAccuracy {
        let listener = try EventListener(path: socket, app: Self.firingApp)
        let stop = Atomic<Bool>(false)
        let deliveries = Atomic<Int>(0)
        let delivered = Latch()
        let deliverer = try RoundTripClient(path: socket, request: ServerBenchmark.request(client: 1))
        Threads.start {
            while !stop.load(ordering: .relaxed), deliverer.roundTrip() != nil { deliveries.add(1, ordering: .relaxed) }
            delivered.open()
        }
        defer {
            stop.store(true, ordering: .relaxed)
            _ = delivered.wait(until: MonotonicClock.deadline(after: 10))
        }
        var intended: [String: UInt64] = [:]
        var twoSeconds: Set<String> = []
        let adder = try PipelinedClient(path: socket)
        let count = Self.twoSecondCount + Self.spreadCount
        for number in 0..<count {
            let identifier = "fire\(number)"
            let seconds = number < Self.twoSecondCount ? 2.0 : 1.0 + 4.0 * Double(number - Self.twoSecondCount) / Double(Self.spreadCount)
            if number < Self.twoSecondCount { twoSeconds.insert(identifier) }
            let sent = MonotonicClock.now()
            let answer = try adder.call(Self.add(app: Self.firingApp, identifier: identifier,
                                                 trigger: #"{"timeInterval":\#(seconds),"repeats":false}"#, id: number))
            guard !answer.contains(#""error""#) else { throw BenchmarkFailure("requests.add was refused: \(answer.prefix(300))") }
            // The server armed it between sending and answering: the middle of the round trip.
            intended[identifier] = sent / 2 + MonotonicClock.now() / 2 + UInt64(seconds * 1e9)
        }
        let arrivals = listener.wait(for: count, until: MonotonicClock.deadline(after: 10))
        var all: [Double] = []
        var two: [Double] = []
        for (identifier, arrival) in arrivals {
            guard let due = intended[identifier] else { continue }
            let late = (Double(arrival) - Double(due)) / 1e6
            all.append(late)
            if twoSeconds.contains(identifier) { two.append(late) }
        }
        guard !two.isEmpty else { throw BenchmarkFailure("No request scheduled 2 s ahead fired within 10 s; see \(workspace.file("schedule.log")).") }
        return FireAccuracy(scheduled: count, fired: all.count, twoSecond: two, all: all,
                            deliveries: deliveries.load(ordering: .relaxed))
    }

    /// How many requests `app` has pending on the server at `socket`.
    private static func pendingCount(socket: String, app: String) throws(BenchmarkFailure) -> Int {
        let answer = try PipelinedClient(path: socket).call(#"{"jsonrpc":"2.0","id":1,"method":"requests.pending","params":{"app":"\#(app)"}}"#)
        do throws(Diagnostic) {
            return try JSON.parse(Array(answer.utf8))["result"]?["requests"]?.arrayValue?.count ?? 0
        } catch {
            throw BenchmarkFailure("requests.pending answered something that is not JSON: \(error.message)")
        }
    }

}

/// A subscriber to one app's events on a thread of its own, noting when
/// each `request.fired` arrives (monotonic nanoseconds), by identifier. It
/// owns the connection: it shuts it down, waits for the thread, and closes it.
final class EventListener: Sendable {
    /// The arrivals, by identifier, in order: shared with the listening thread.
    private final class Arrivals: Sendable {
        let entries = Mutex<[(String, UInt64)]>([])
    }
    private let arrivals = Arrivals()
    private let subscribed = Latch()
    /// Opened when the listening thread has ended.
    private let finished = Latch()
    private let socket: Int32

    /// Connects to `path`, subscribes to `app`'s events and listens.
    init(path: String, app: String) throws(BenchmarkFailure) {
        do throws(Diagnostic) {
            socket = try UnixSocket.connect(to: path).take()
        } catch {
            throw BenchmarkFailure(error.message)
        }
        let subscribe = Array((#"{"jsonrpc":"2.0","id":"subscribe","method":"events.subscribe","params":{"apps":["\#(app)"],"replay":false}}"# + "\n").utf8)
        let sent = subscribe.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        Threads.start { [socket, arrivals, subscribed, finished] in
            defer { finished.open() }
            var held: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                let now = MonotonicClock.now()
                held += buffer[..<count]
                while let newline = held.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Array(held[..<newline])
                    held.removeSubrange(...newline)
                    guard let message = try? JSON.parse(line) else { continue }
                    if message["id"] == .string("subscribe") && message["result"] != nil { subscribed.open() }
                    guard message["method"]?.stringValue == "request.fired",
                          let identifier = message["params"]?["identifier"]?.stringValue
                    else { continue }
                    arrivals.entries.withLock { $0.append((identifier, now)) }
                }
            }
        }
        guard sent == subscribe.count, subscribed.wait(until: MonotonicClock.deadline(after: 10)) else {
            throw BenchmarkFailure("events.subscribe got no answer.")
        }
    }

    deinit {
        shutdown(socket, Int32(SHUT_RDWR))
        _ = finished.wait(until: MonotonicClock.deadline(after: 10))
        close(socket)
    }

    /// The arrivals so far, once `count` have come or at `deadline`.
    func wait(for count: Int, until deadline: UInt64) -> [(String, UInt64)] {
        while MonotonicClock.now() < deadline && arrivals.entries.withLock({ $0.count }) < count { usleep(10_000) }
        return arrivals.entries.withLock { $0 }
    }
}
