import Glibc
import Synchronization
import TidingsBase
import TidingsIsolation

/// Memory over a soak (`--only soak`): `tidings serve` isolated, with its
/// warm workers, serving NoOp to two clients that do deliver-open-respond
/// cycles (each delivery replaces the client's last, so that what the
/// server keeps stays the same). The resident sets of the server and of its
/// workers are read after a warm-up of 5,000 opens and again after `opens`
/// more: neither may grow, since nothing an open leaves should stay once
/// the next replaces it.
struct SoakBenchmark {
    let products: Products
    let workspace: Workspace
    /// The extension directory (NoOp alone).
    let extensions: String
    /// Opens measured after the warm-up.
    let opens: Int

    /// Opens before the first reading: past the bounded tables that fill as
    /// responses come (the 4,096 finished completions the host remembers, and
    /// as many tokens in each worker, the 1,000 events kept for resuming),
    /// so that what grows after it is what is not bounded.
    static let warmUp = 5_000
    /// Clients cycling at once: two warm workers serve them.
    static let clients = 2

    func measure() throws(BenchmarkFailure) -> SoakResult {
        let socket = workspace.file("soak.sock")
        let log = workspace.file("soak.log")
        // Idle workers are kept for the whole run, so that those read at the end are those read after the warm-up.
        let server = try ServerProcess(products.tidings, [
            "serve", "--socket", socket, "--state", workspace.file("soak-state"), "--extensions", extensions,
            "--warm-idle", "3600",
        ], environment: ["HOME=\(workspace.path)"], log: log, socket: socket)
        defer { server.stop() }
        let register = try RoundTripClient(path: socket, request: WarmWorkerBenchmark.registration)
        guard let registered = register.roundTrip(), !String(decoding: registered, as: UTF8.self).contains(#""error""#) else {
            throw BenchmarkFailure("tidings serve did not register NoOp's category; see \(log).")
        }
        var pairs: [(RoundTripClient, RoundTripClient)] = []
        for number in 1...Self.clients {
            pairs.append((try RoundTripClient(path: socket, request: WarmWorkerBenchmark.delivery(client: number)),
                          try RoundTripClient(path: socket, request: WarmWorkerBenchmark.response(client: number))))
        }
        Progress.say("Soak: \(Self.warmUp) deliver-open-respond cycles to warm up")
        try cycle(pairs, times: Self.warmUp, log: log)
        let warm = try SoakMemory(server: server.pid)
        Progress.say("Soak: \(opens) more cycles, \(Self.clients) clients")
        let began = MonotonicClock.now()
        try cycle(pairs, times: opens, log: log)
        let seconds = Double(MonotonicClock.now() - began) / 1e9
        return SoakResult(opens: opens, seconds: seconds, warm: warm, after: try SoakMemory(server: server.pid))
    }

    /// `times` cycles in all, shared by the client pairs, each on a thread of its own.
    private func cycle(_ pairs: [(RoundTripClient, RoundTripClient)], times: Int, log: String) throws(BenchmarkFailure) {
        let left = Atomic<Int>(times)
        let failed = Atomic<Bool>(false)
        let done = Latch()
        let running = Atomic<Int>(pairs.count)
        for (deliver, respond) in pairs {
            Threads.start {
                while left.subtract(1, ordering: .relaxed).oldValue > 0 {
                    guard let delivered = deliver.roundTrip(), let responded = respond.roundTrip(),
                          !delivered.starts(with: Array(#"{"jsonrpc":"2.0","id":2,"error""#.utf8)),
                          !responded.starts(with: Array(#"{"jsonrpc":"2.0","id":3,"error""#.utf8))
                    else {
                        failed.store(true, ordering: .relaxed)
                        break
                    }
                }
                if running.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.open() }
            }
        }
        _ = done.wait(until: .max)
        if failed.load(ordering: .relaxed) { throw BenchmarkFailure("A soak cycle failed; see \(log).") }
    }
}

/// The resident sets of a server and of the processes below it, in kilobytes.
struct SoakMemory {
    /// The server's.
    var server: Int
    /// The largest resident set of its workers (the `tidings worker`
    /// processes; their sandboxes' inits, copies of the server, are left
    /// out): the pool may hold two or three at a reading, so a sum would
    /// count how many there are, not what each holds.
    var workers: Int
    /// The workers' process ids.
    var pids: Set<String>

    /// Reads the server `pid` (once its memory stops falling) and the workers below it.
    init(server pid: pid_t) throws(BenchmarkFailure) {
        server = try ProcessMemory.settled(of: pid).resident
        var queue = ProcessStatus.children(of: "\(pid)")
        var seen: Set<String> = []
        var workers = 0
        var pids: Set<String> = []
        while let child = queue.popLast() {
            guard seen.insert(child).inserted, let status = ProcessStatus(of: child) else { continue }
            queue += ProcessStatus.children(of: child)
            let arguments = (try? FileSystem.readFile("/proc/\(child)/cmdline", limit: 4096)) ?? []
            guard arguments.split(separator: 0).dropFirst().first.map(Array.init) == Array("worker".utf8) else { continue }
            workers = max(workers, Int((status.bytes("VmRSS") ?? 0) / 1024))
            pids.insert(child)
        }
        self.workers = workers
        self.pids = pids
    }
}

/// What the soak found.
struct SoakResult {
    /// Cycles (opens) between the two readings.
    var opens: Int
    /// How long they took, in seconds.
    var seconds: Double
    /// After the warm-up.
    var warm: SoakMemory
    /// After `opens` more.
    var after: SoakMemory

    /// The table's lines.
    var lines: [String] {
        /// Kilobytes as megabytes.
        func megabytes(_ kilobytes: Int) -> String { NumberText.fixed(Double(kilobytes) / 1024, 1) }
        return [
            "Soak: tidings serve isolated (warm workers), NoOp, \(SoakBenchmark.clients) clients doing deliver-open-respond "
                + "cycles, each replacing its last; resident sets (VmRSS; the server's settled) after \(SoakBenchmark.warmUp) "
                + "opens and after \(opens) more (\(NumberText.fixed(Double(opens) / seconds, 0))/s)",
            "".rightPadded(to: 46) + "warm MB".leftPadded(to: 10) + "after MB".leftPadded(to: 10) + "× warm".leftPadded(to: 9),
            "the server".rightPadded(to: 46) + megabytes(warm.server).leftPadded(to: 10) + megabytes(after.server).leftPadded(to: 10)
                + NumberText.fixed(Double(after.server) / Double(max(1, warm.server)), 2).leftPadded(to: 9),
            "its largest worker (\(after.pids.intersection(warm.pids).count) of \(after.pids.count) lived through)".rightPadded(to: 46) + megabytes(warm.workers).leftPadded(to: 10)
                + megabytes(after.workers).leftPadded(to: 10)
                + NumberText.fixed(Double(after.workers) / Double(max(1, warm.workers)), 2).leftPadded(to: 9),
        ]
    }

    /// The report's JSON, in kilobytes.
    var json: JSON {
        /// One reading.
        func reading(_ memory: SoakMemory) -> JSON {
            .object([("serverKilobytes", .integer(Int64(memory.server))), ("largestWorkerKilobytes", .integer(Int64(memory.workers))),
                     ("workers", .integer(Int64(memory.pids.count)))])
        }
        return .object([("opens", .integer(Int64(opens))), ("seconds", .double(seconds)), ("warm", reading(warm)),
                        ("after", reading(after))])
    }

    /// The targets: neither the server nor its workers grow by more than a tenth.
    var targets: [TargetCheck] {
        [
            TargetCheck(key: "soak-server", goal: "the server's resident memory after \(opens) more opens ≤ 1.1 × after the warm-up",
                        limit: 1.1, measured: Double(after.server) / Double(max(1, warm.server)), unit: "× warm"),
            TargetCheck(key: "soak-workers", goal: "its largest warm worker's resident memory after \(opens) more opens ≤ 1.1 × after the warm-up",
                        limit: 1.1, measured: Double(after.workers) / Double(max(1, warm.workers)), unit: "× warm"),
        ]
    }
}
