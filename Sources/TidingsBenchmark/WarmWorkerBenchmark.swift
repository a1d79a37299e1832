import Glibc
import Synchronization
import TidingsBase
import TidingsIsolation
import TidingsRegistry
import TidingsRuntime

/// What warm workers buy (`--only warm`): an isolated open → first
/// presentation with the pool warm and with none (every open a cold start),
/// in this process's host; and deliver-open-respond round trips to NoOp over
/// `tidings serve`'s socket, isolated against in process, one client and
/// eight, beside a raw echo of the same answer size, in the same run.
struct WarmWorkerBenchmark {
    let products: Products
    let workspace: Workspace
    /// The extension directory (NoOp alone).
    let extensions: String
    /// Seconds each measurement lasts, after a warm-up of a tenth of it.
    let seconds: Double
    /// How many cold opens are timed.
    let coldOpens: Int

    func measure() throws(BenchmarkFailure) -> [IsolationResult] {
        let index = Discovery.scan(SearchPath(directories: [extensions], origin: .option))
        Progress.say("Timing isolated opens with the pool warm")
        var results = [try opens(key: "open-warm", title: "open → first presentation, pool warm", index: index,
                                 pool: WorkerPoolSettings(), count: nil)]
        Progress.say("Timing \(coldOpens) isolated opens with no pool (cold starts)")
        results.append(try opens(key: "open-cold", title: "open → first presentation, no pool (cold)", index: index,
                                 pool: .off, count: coldOpens))
        results += try roundTrips()
        return results
    }

    // MARK: Opens

    /// Opens of one delivered notification's interface, each closed again
    /// untimed: for `seconds` (after a warm-up), or `count` times.
    private func opens(key: String, title: String, index: ExtensionIndex, pool: WorkerPoolSettings,
                       count: Int?) throws(BenchmarkFailure) -> IsolationResult {
        var settings = WorkerSettings(executable: products.tidings)
        settings.pool = pool
        let host = NotificationHost(index: index, launcher: WorkerLauncher(settings: settings))
        host.register([], for: BundleFarm.app)
        _ = host.deliver(try SamplePayload.notification(identifier: "opened", thread: "bench"), to: BundleFarm.app)
        var fallback: String?
        let open = { () -> Double in
            let start = MonotonicClock.now()
            let outcome = try? host.open("opened")
            let elapsed = Double(MonotonicClock.now() - start) / 1e3
            if outcome?.presentation.extensionIdentifier == nil || outcome?.presentation.view == nil {
                fallback = outcome?.diagnostics.first?.description ?? "the open failed"
            }
            _ = try? host.close("opened")
            return elapsed
        }
        var samples: [Double] = []
        if let count {
            for _ in 0..<count { samples.append(open()) }
        } else {
            let warm = MonotonicClock.deadline(after: seconds / 10)
            while MonotonicClock.now() < warm { _ = open() }
            let end = MonotonicClock.deadline(after: seconds)
            while MonotonicClock.now() < end { samples.append(open()) }
        }
        if let fallback { throw BenchmarkFailure("NoOp did not serve an open of \(title): \(fallback)") }
        return IsolationResult(key: key, title: title, samples: samples)
    }

    // MARK: Round trips over the socket

    /// Deliver-open-respond round trips over `tidings serve`, in process and
    /// isolated (its default warm workers), and the raw echo, with 1 and 8 clients.
    private func roundTrips() throws(BenchmarkFailure) -> [IsolationResult] {
        var results: [IsolationResult] = []
        var answerSize = 0
        for isolation in ["in-process", "process"] {
            let socket = workspace.file("warm-\(isolation).sock")
            let server = try ServerProcess(products.tidings, [
                "serve", "--socket", socket, "--state", workspace.file("warm-state-\(isolation)"),
                "--extensions", extensions, "--isolation", isolation,
            ], environment: ["HOME=\(workspace.path)"], log: workspace.file("warm-\(isolation).log"), socket: socket)
            defer { server.stop() }
            let register = try RoundTripClient(path: socket, request: Self.registration)
            guard let registered = register.roundTrip(), !String(decoding: registered, as: UTF8.self).contains(#""error""#) else {
                throw BenchmarkFailure("tidings serve did not register NoOp's category; see \(workspace.file("warm-\(isolation).log")).")
            }
            answerSize = max(answerSize, try Self.checkCycle(socket: socket))
            let name = isolation == "process" ? "isolated" : "in process"
            for clients in [1, 8] {
                Progress.say("Measuring deliver-open-respond \(name) with \(clients) client\(clients == 1 ? "" : "s")")
                results.append(try run(key: "cycle-\(isolation)-\(clients)", title: "deliver-open-respond, \(name), \(clients) client\(clients == 1 ? "" : "s")",
                                       clients: clients, socket: socket, echo: false, server: server.pid))
            }
        }
        let echo = try EchoServer(path: workspace.file("warm-echo.sock"), answerSize: answerSize)
        defer { echo.stop() }
        for clients in [1, 8] {
            echo.connectionCPU.store(clients == 1 ? ServerBenchmark.oneClientCPU : -1, ordering: .relaxed)
            Progress.say("Measuring the raw echo (two round trips a cycle) with \(clients) client\(clients == 1 ? "" : "s")")
            results.append(try run(key: "cycle-echo-\(clients)", title: "raw echo, two round trips, \(clients) client\(clients == 1 ? "" : "s")",
                                   clients: clients, socket: echo.path, echo: true))
        }
        return results
    }

    /// NoOp's category, with the action the responses take.
    static let registration = Array(#"{"jsonrpc":"2.0","id":1,"method":"categories.register","params":{"app":"\#(BundleFarm.app)","categories":[{"identifier":"\#(BundleFarm.category)","actions":[{"identifier":"go","title":"Go"}]}]}}"#.utf8) + [10]

    /// Client `number`'s delivery, opened at once: each replaces its last, closing its interface.
    static func delivery(client number: Int) -> [UInt8] {
        let payload = SamplePayload.text.split(separator: "\n").joined()
            .replacing(#""thread-id": "bench""#, with: #""thread-id": "bench-\#(number)""#)
        return Array(#"{"jsonrpc":"2.0","id":2,"method":"notifications.deliver","params":{"app":"\#(BundleFarm.app)","identifier":"cycle-\#(number)","open":true,"payload":\#(payload)}}"#.utf8) + [10]
    }

    /// Client `number`'s response to its delivery, which NoOp answers (doNotDismiss).
    static func response(client number: Int) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":3,"method":"notifications.respond","params":{"identifier":"cycle-\#(number)","action":"go"}}"#.utf8) + [10]
    }

    /// One cycle on `socket`, checked: the delivery opened by NoOp, the
    /// response answered by it. Returns the larger answer's size.
    private static func checkCycle(socket: String) throws(BenchmarkFailure) -> Int {
        let deliver = try RoundTripClient(path: socket, request: delivery(client: 0))
        let respond = try RoundTripClient(path: socket, request: response(client: 0))
        let delivered = deliver.roundTrip() ?? []
        let responded = respond.roundTrip() ?? []
        let (deliveredText, respondedText) = (String(decoding: delivered, as: UTF8.self), String(decoding: responded, as: UTF8.self))
        guard deliveredText.contains(#""extension":"com."#) || deliveredText.contains(#""extension": "com."#),
              !deliveredText.contains(#""error""#), !respondedText.contains(#""error""#),
              !respondedText.contains(#""receiver":"app""#)
        else {
            throw BenchmarkFailure("A deliver-open-respond cycle was not NoOp's: \(deliveredText.prefix(300)) / \(respondedText.prefix(300))")
        }
        return max(delivered.count, responded.count)
    }

    /// `clients` threads doing cycles (delivery, then response; or two echo
    /// round trips) on `socket` for `seconds`, after a warm-up. One client
    /// shares one core with the process `server` and its workers, as in
    /// `ServerBenchmark`; eight have the whole machine.
    private func run(key: String, title: String, clients: Int, socket: String, echo: Bool,
                     server: pid_t? = nil) throws(BenchmarkFailure) -> IsolationResult {
        let oneCore = clients == 1
        let pin = oneCore ? server.map { CoreAffinity.pin(processTreeOf: $0, to: ServerBenchmark.oneClientCPU) } : nil
        defer { pin?.undo() }
        var pairs: [(RoundTripClient, RoundTripClient)] = []
        for number in 1...clients {
            pairs.append((try RoundTripClient(path: socket, request: echo ? [10] : Self.delivery(client: number)),
                          try RoundTripClient(path: socket, request: echo ? [10] : Self.response(client: number))))
        }
        let warmUpEnds = MonotonicClock.deadline(after: seconds / 10)
        let ends = MonotonicClock.deadline(after: seconds / 10 + seconds)
        let done = Latch()
        let remaining = Atomic<Int>(clients)
        let latencies = Mutex<[Double]>([])
        let failed = Atomic<Bool>(false)
        for (deliver, respond) in pairs {
            Threads.start {
                if oneCore { try? CoreAffinity.pin(to: ServerBenchmark.oneClientCPU) }
                var samples: [Double] = []
                while true {
                    let start = MonotonicClock.now()
                    guard start < ends else { break }
                    guard deliver.timedRoundTrip() != nil, respond.timedRoundTrip() != nil else {
                        failed.store(true, ordering: .relaxed)
                        break
                    }
                    if start >= warmUpEnds { samples.append(Double(MonotonicClock.now() - start) / 1e3) }
                }
                latencies.withLock { $0 += samples }
                if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.open() }
            }
        }
        _ = done.wait(until: ends + 30_000_000_000)
        guard !failed.load(ordering: .relaxed) else { throw BenchmarkFailure("A client of \(socket) lost its connection.") }
        let samples = latencies.withLock { $0 }
        guard !samples.isEmpty else { throw BenchmarkFailure("No cycle completed on \(socket).") }
        let perSecond = Double(samples.count) / seconds
        return IsolationResult(key: key, title: title + " (\(NumberText.fixed(perSecond, 0))/s)", samples: samples)
    }
}

extension Report {
    /// The warm workers' targets: an open ≤ 1 ms at the median and ≤ 5 ms
    /// at p99 with the pool warm; isolated cycles ≥ 50 % of in process's.
    var warmWorkerTargets: [TargetCheck] {
        var checks: [TargetCheck] = []
        if let warm = isolation("open-warm") {
            checks.append(TargetCheck(key: warm.key, goal: "isolated open → first presentation ≤ 1 ms at the median, pool warm",
                                      limit: 1, measured: warm.medianMicroseconds / 1000, unit: "ms"))
            checks.append(TargetCheck(key: warm.key + "-p99", goal: "isolated open → first presentation ≤ 5 ms at p99, pool warm",
                                      limit: 5, measured: warm.p99Microseconds / 1000, unit: "ms"))
        }
        for clients in [1, 8] {
            guard let inProcess = isolation("cycle-in-process-\(clients)"), let isolated = isolation("cycle-process-\(clients)"),
                  inProcess.count > 0, isolated.count > 0
            else { continue }
            // Both ran for the same time: the ratio of their counts is the ratio of their rates.
            checks.append(TargetCheck(key: isolated.key, goal: "isolated deliver-open-respond ≥ 50 % of in process's rate, \(clients) client\(clients == 1 ? "" : "s") (in process ÷ isolated ≤ 2)",
                                      limit: 2, measured: Double(inProcess.count) / Double(isolated.count), unit: "×"))
        }
        return checks
    }
}
