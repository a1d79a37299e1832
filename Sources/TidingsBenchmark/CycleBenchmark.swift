import Glibc
import Synchronization
import TidingsBase

/// The cycle a front end really makes, one after another: deliver a new
/// notification (an identifier never used before, answered with its
/// presentation) and respond to its action (NoOp's category's "go"), over
/// `tidings serve`'s socket, in process and isolated, with 1 and 8 clients,
/// while none, 10,000 or 100,000 other notifications are kept; with the
/// server's CPU per cycle (its own and its workers', `ProcessCPU`), against a raw echo of two round trips measured in
/// the same run.
///
/// The server keeps at most the notifications kept plus 16 (`--keep`,
/// `--keep-per-app`): filled first, each cycle's delivery then expires the
/// oldest, as on a desktop that has kept notifications for weeks, and no
/// cycle's notification is expired before its response.
struct CycleBenchmark {
    let products: Products
    let workspace: Workspace
    /// The extension directory the server reads (NoOp alone).
    let extensions: String
    /// Seconds each measurement lasts, after a warm-up of a tenth of it.
    let seconds: Double
    /// The numbers of other notifications kept while measured.
    let keptCounts: [Int]

    /// What the server keeps beyond `kept`: room for each client's notification between its delivery and response.
    static let margin = 16

    /// The echo, then each mode, number kept and number of clients.
    func measure() throws(BenchmarkFailure) -> [CycleResult] {
        var results: [CycleResult] = []
        var answerSize = 0
        for isolation in ["in-process", "process"] {
            for kept in keptCounts {
                let name = "cycle-\(isolation)-\(kept)"
                let socket = workspace.file("\(name).sock")
                let server = try ServerProcess(products.tidings, [
                    "serve", "--socket", socket, "--state", workspace.file("\(name)-state"), "--extensions", extensions,
                    "--isolation", isolation, "--keep", "\(kept + Self.margin)", "--keep-per-app", "\(kept + Self.margin)",
                ], environment: ["HOME=\(workspace.path)"], log: workspace.file("\(name).log"), socket: socket)
                defer { server.stop() }
                let setUp = try RoundTripClient(path: socket, request: WarmWorkerBenchmark.registration)
                guard let registered = setUp.roundTrip(), !Self.isError(registered) else {
                    throw BenchmarkFailure("tidings serve did not register NoOp's category; see \(workspace.file("\(name).log")).")
                }
                answerSize = max(answerSize, try Self.checkCycle(setUp))
                try fill(kept, on: socket)
                for clients in [1, 8] {
                    let mode = isolation == "process" ? "isolated" : "in process"
                    Progress.say("Measuring deliver-new-respond \(mode), \(kept) kept, \(clients) client\(clients == 1 ? "" : "s")")
                    results.append(try run(key: "\(name)-\(clients)", isolation: isolation, kept: kept, clients: clients,
                                           socket: socket, server: server.pid))
                }
            }
        }
        let echo = try EchoServer(path: workspace.file("cycle-echo.sock"), answerSize: answerSize)
        defer { echo.stop() }
        echo.connectionCPU.store(ServerBenchmark.oneClientCPU, ordering: .relaxed)
        Progress.say("Measuring the raw echo (two round trips a cycle) with 1 client")
        results.insert(try run(key: "cycle-echo-1", isolation: "echo", kept: 0, clients: 1, socket: echo.path, server: nil),
                       at: 0)
        return results
    }

    /// Delivers `count` notifications of their own (`fill-N`), eight connections at once.
    private func fill(_ count: Int, on socket: String) throws(BenchmarkFailure) {
        guard count > 0 else { return }
        Progress.say("Filling the server with \(count) notifications")
        let failed = Atomic<Bool>(false)
        let done = Latch()
        let remaining = Atomic<Int>(8)
        var connections: [RoundTripClient] = []
        for _ in 0..<8 { connections.append(try RoundTripClient(path: socket, request: [10])) }
        let payload = ServerBenchmark.payload(thread: "fill")
        for (part, connection) in connections.enumerated() {
            Threads.start {
                for number in stride(from: part, to: count, by: 8) {
                    guard let answer = connection.roundTrip(sending: ServerBenchmark.request(identifier: "fill-\(number)", payload: payload,
                                                                                             answer: "presentation")),
                          !Self.isError(answer) else {
                        failed.store(true, ordering: .relaxed)
                        break
                    }
                }
                if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.open() }
            }
        }
        _ = done.wait(until: MonotonicClock.deadline(after: 600))
        guard !failed.load(ordering: .relaxed) else { throw BenchmarkFailure("Filling the server with \(count) notifications failed.") }
        try waitForFolds(on: connections[0])
    }

    /// Waits until the server folds no sealed segment (`server.describe`'s
    /// `state.folds.running`): the fold the filling left is the filling's
    /// cost, not the cycles'. A fold rewrites the whole state once a segment
    /// outgrows it, so the cycles' own share of folding is measured
    /// amortised, as a server that kept its notifications for weeks pays it.
    private func waitForFolds(on connection: RoundTripClient) throws(BenchmarkFailure) {
        let describe = Array((#"{"jsonrpc":"2.0","id":9,"method":"server.describe","params":{}}"# + "\n").utf8)
        let patience = MonotonicClock.deadline(after: 300)
        while MonotonicClock.now() < patience {
            guard let answer = connection.roundTrip(sending: describe), let json = try? JSON.parse(answer) else {
                throw BenchmarkFailure("tidings serve did not answer server.describe after filling it.")
            }
            if json["result"]?["state"]?["folds"]?["running"]?.boolValue != true { return }
            usleep(50_000)
        }
        throw BenchmarkFailure("The server was still folding its state 300 s after filling it.")
    }

    /// `clients` threads doing cycles on `socket` for `seconds` after a
    /// warm-up, each delivering identifiers of its own (`cNUMBER-N`, thread
    /// `bench-NUMBER`); `isolation` "echo" sends lines the echo answers. One
    /// client shares one core with `server` and its workers, as in
    /// `ServerBenchmark`; eight have the whole machine.
    private func run(key: String, isolation: String, kept: Int, clients: Int, socket: String,
                     server: pid_t?) throws(BenchmarkFailure) -> CycleResult {
        let oneCore = clients == 1
        let pin = oneCore ? server.map { CoreAffinity.pin(processTreeOf: $0, to: ServerBenchmark.oneClientCPU) } : nil
        defer { pin?.undo() }
        var connections: [RoundTripClient] = []
        for _ in 0..<clients { connections.append(try RoundTripClient(path: socket, request: [10])) }
        let warmUpEnds = MonotonicClock.deadline(after: seconds / 10)
        let ends = MonotonicClock.deadline(after: seconds / 10 + seconds)
        let done = Latch()
        let remaining = Atomic<Int>(clients)
        let latencies = Mutex<[Double]>([])
        let failed = Atomic<Bool>(false)
        let echo = isolation == "echo"
        for (number, connection) in connections.enumerated() {
            Threads.start {
                if oneCore { try? CoreAffinity.pin(to: ServerBenchmark.oneClientCPU) }
                var samples: [Double] = []
                samples.reserveCapacity(1 << 16)
                var cycle = 0
                let payload = ServerBenchmark.payload(thread: "bench-\(number)")
                while true {
                    let start = MonotonicClock.now()
                    guard start < ends else { break }
                    let identifier = "c\(number)-\(cycle)"
                    cycle += 1
                    let delivered = connection.timedRoundTrip(sending: echo ? [10] : ServerBenchmark.request(identifier: identifier, payload: payload, answer: "presentation"))
                    let responded = delivered == nil ? nil : connection.timedRoundTrip(sending: echo ? [10] : Self.response(identifier))
                    guard responded != nil else {
                        failed.store(true, ordering: .relaxed)
                        break
                    }
                    if start >= warmUpEnds { samples.append(Double(MonotonicClock.now() - start) / 1e3) }
                }
                latencies.withLock { $0 += samples }
                if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.open() }
            }
        }
        while MonotonicClock.now() < warmUpEnds { usleep(1_000) }
        let cpuBefore = server.map(ProcessCPU.microseconds(ofTreeOf:))
        _ = done.wait(until: ends + 30_000_000_000)
        let cpuAfter = server.map(ProcessCPU.microseconds(ofTreeOf:))
        guard !failed.load(ordering: .relaxed) else { throw BenchmarkFailure("A client of \(socket) lost its connection.") }
        let samples = latencies.withLock { $0 }
        guard !samples.isEmpty else { throw BenchmarkFailure("No cycle completed on \(socket).") }
        let cpu = cpuBefore.flatMap { before in cpuAfter.map { max($0 - before, 0) / Double(samples.count) } }
        return CycleResult(key: key, isolation: isolation, kept: kept, clients: clients,
                           cyclesPerSecond: Double(samples.count) / seconds, medianMicroseconds: Statistics.median(samples),
                           p99Microseconds: Statistics.percentile(samples, 0.99), serverMicrosecondsPerCycle: cpu)
    }

    /// One cycle, checked: the delivery presented, the response answered
    /// without an error. Returns the larger answer's size.
    private static func checkCycle(_ client: RoundTripClient) throws(BenchmarkFailure) -> Int {
        let delivered = client.roundTrip(sending: ServerBenchmark.request(identifier: "check", thread: "check", answer: "presentation")) ?? []
        let responded = client.roundTrip(sending: response("check")) ?? []
        guard String(decoding: delivered, as: UTF8.self).contains(#""presentation""#), !isError(delivered), !isError(responded),
              !responded.isEmpty else {
            throw BenchmarkFailure("A deliver-new-respond cycle failed: \(String(decoding: delivered.prefix(300), as: UTF8.self)) / "
                + String(decoding: responded.prefix(300), as: UTF8.self))
        }
        return max(delivered.count, responded.count)
    }

    /// True when `answer` is a JSON-RPC error.
    private static func isError(_ answer: [UInt8]) -> Bool {
        String(decoding: answer.prefix(64), as: UTF8.self).contains(#""error""#)
    }

    /// The response to `identifier` with NoOp's category's action.
    static func response(_ identifier: String) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":3,"method":"notifications.respond","params":{"app":"\#(BundleFarm.app)","identifier":"\#(identifier)","action":"go"}}"#.utf8) + [10]
    }
}

/// What one cycle measurement found.
struct CycleResult {
    /// "cycle-in-process-0-1", "cycle-echo-1", …
    var key: String
    /// "in-process", "process" or "echo".
    var isolation: String
    /// Other notifications kept meanwhile.
    var kept: Int
    var clients: Int
    var cyclesPerSecond: Double
    var medianMicroseconds: Double
    var p99Microseconds: Double
    /// The server's CPU (its threads' and its workers') per cycle; nil for the echo.
    var serverMicrosecondsPerCycle: Double?
}
