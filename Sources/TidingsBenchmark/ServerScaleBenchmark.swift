import Glibc
import TidingsBase
import TidingsIsolation
import TidingsServer

/// What `tidings serve` costs at scale: its threads and resident memory
/// idle, with 10,000 idle connections, and with 1,000 requests waiting on
/// completions that never come; and how often an idle server wakes up.
/// Extensions run in process (`--isolation in-process`): the figure is the
/// server's own, without workers.
struct ServerScaleBenchmark {
    let products: Products
    let workspace: Workspace
    /// Idle connections opened at once.
    let connections: Int
    /// Requests left waiting on their completions at once.
    let waiting: Int

    /// The extension that never completes: Misbehaving (Tests/Fixtures/Extensions), action "never".
    private static let app = "com.example.scale"
    private static let category = "misbehave"

    /// Builds the fixture, starts the server, and takes each figure.
    func measure() throws(BenchmarkFailure) -> ServerScaleResult {
        let limit = try Self.raiseDescriptorLimit(to: UInt64(connections + waiting + 1_024))
        let extensions = workspace.file("scale-extensions")
        try installMisbehaving(in: extensions)
        let socket = workspace.file("scale.sock")
        // Responses wait for their completion up to 600 s: longer than the measurement.
        let server = try ServerProcess(products.tidings, [
            "serve", "--socket", socket, "--state", workspace.file("scale-state"), "--extensions", extensions,
            "--isolation", "in-process", "--deadline", "600",
            // Every connection comes from this one process: the bounds must let them all in.
            "--max-connections", "\(connections + waiting / 50 + 64)",
            "--max-connections-per-process", "\(connections + waiting / 50 + 64)",
        ], environment: ["HOME=\(workspace.path)"], log: workspace.file("scale.log"), socket: socket)
        defer {
            // The responses never complete: a graceful stop would wait for their deadline.
            kill(server.pid, SIGKILL)
            server.stop()
        }
        let control = try PipelinedClient(path: socket)
        try control.send([Self.call("server.describe", "{}")], window: 1)
        Progress.say("Server scale: idle")
        usleep(500_000)
        let idle = try ProcessSnapshot(of: server.pid)
        let (wakeUps, wakingThreads) = try Self.wakeUpsPerSecond(of: server.pid, over: 2)

        Progress.say("Server scale: opening \(connections) idle connections")
        var clients: [Int32] = []
        clients.reserveCapacity(connections)
        defer { for client in clients { close(client) } }
        for _ in 0..<connections { clients.append(try Self.connect(to: socket)) }
        // Clients are accepted in order: once the last is answered, every one is connected.
        try Self.roundTrip(on: clients[clients.count - 1])
        let connected = try ProcessSnapshot(of: server.pid)
        let connectedWakeUps = try Self.wakeUpsPerSecond(of: server.pid, over: 2).0

        Progress.say("Server scale: \(waiting) responses waiting on completions that never come")
        let notifications = (0..<waiting).map { "waiting-\($0)" }
        try control.send([Self.call("categories.register", #"{"app":"\#(Self.app)","categories":[{"identifier":"\#(Self.category)","actions":[{"identifier":"never","title":"Never"}]}]}"#)],
                         window: 1)
        try control.send(notifications.lazy.map { identifier in
            Self.call("notifications.deliver", #"{"app":"\#(Self.app)","identifier":"\#(identifier)","open":true,"payload":{"identifier":"\#(identifier)","content":{"title":"T","categoryIdentifier":"\#(Self.category)"}}}"#,
                      id: identifier)
        }, window: 64)
        // 50 a connection: past 64 messages under way, the server reads no more of a client's.
        var responders: [Int32] = []
        for (number, identifier) in notifications.enumerated() {
            if number % 50 == 0 {
                responders.append(try Self.connect(to: socket))
                clients.append(responders[responders.count - 1])
            }
            try Self.send(Self.call("notifications.respond", #"{"identifier":"\#(identifier)","action":"never"}"#, id: identifier),
                          on: responders[responders.count - 1])
        }
        // Time to read them all. No request is sent after them: while a call blocks its thread
        // for a completion, the requests queued behind the blocked ones wait too.
        usleep(1_500_000)
        let waitingSnapshot = try ProcessSnapshot(of: server.pid)
        let early = responders.map(Self.linesWaiting)
        let answered = (count: early.reduce(0) { $0 + $1.count }, first: early.first { $0.count > 0 }?.first ?? "")
        return ServerScaleResult(mode: "in-process", descriptorLimit: limit, callThreads: 2 * Self.cores + 4,
                                 idle: idle, idleWakeUpsPerSecond: wakeUps, wakingThreads: wakingThreads, connections: connections, connected: connected,
                                 connectedWakeUpsPerSecond: connectedWakeUps, waiting: waiting,
                                 withWaiting: waitingSnapshot, answeredEarly: answered.count, firstEarlyAnswer: answered.first)
    }

    /// The cores online.
    private static var cores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// One JSON-RPC request line (without its newline), its id `id` (the method's name by default).
    private static func call(_ method: String, _ params: String, id: String? = nil) -> String {
        #"{"jsonrpc":"2.0","id":"\#(id ?? method)","method":"\#(method)","params":\#(params)}"#
    }

    /// A connection to the server at `path`.
    private static func connect(to path: String) throws(BenchmarkFailure) -> Int32 {
        do throws(Diagnostic) {
            return try UnixSocket.connect(to: path).take()
        } catch {
            throw BenchmarkFailure("A connection to the server failed: \(error.message)")
        }
    }

    /// Sends `line` and a newline on `client`, without reading any answer.
    private static func send(_ line: String, on client: Int32) throws(BenchmarkFailure) {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw BenchmarkFailure("The server closed a connection.") }
            sent += count
        }
    }

    /// The answers (lines) `client` has received and not read, without
    /// waiting: how many, and the start of the first.
    private static func linesWaiting(on client: Int32) -> (count: Int, first: String) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var received: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        let first = received.split(separator: UInt8(ascii: "\n")).first.map { String(decoding: $0.prefix(300), as: UTF8.self) }
        return (received.count { $0 == UInt8(ascii: "\n") }, first ?? "")
    }

    /// Sends `server.describe` on `client` and waits for the answer.
    private static func roundTrip(on client: Int32) throws(BenchmarkFailure) {
        try send(call("server.describe", "{}"), on: client)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var received: [UInt8] = []
        while !received.contains(UInt8(ascii: "\n")) {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchmarkFailure("The server closed an idle connection.") }
            received += buffer[..<count]
        }
    }

    /// Raises this process's soft limit of open files to at least `wanted`
    /// (as far as the hard limit allows; the server inherits it); the limit now.
    private static func raiseDescriptorLimit(to wanted: UInt64) throws(BenchmarkFailure) -> UInt64 {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw BenchmarkFailure("getrlimit failed: \(FileSystem.systemReason()).") }
        if limit.rlim_cur < rlim_t(wanted) {
            limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
            guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw BenchmarkFailure("setrlimit failed: \(FileSystem.systemReason()).") }
        }
        guard limit.rlim_cur >= rlim_t(wanted) else {
            throw BenchmarkFailure("The hard limit of open files is \(limit.rlim_max); the scale benchmark needs \(wanted) (ulimit -Hn).")
        }
        return UInt64(limit.rlim_cur)
    }

    /// The wake-ups of process `pid` per second over `seconds`: the context
    /// switches (voluntary and not) of all its threads, from
    /// /proc/PID/task/*/status; and those of each thread that woke, with
    /// what it waits in (its wchan).
    private static func wakeUpsPerSecond(of pid: Int32, over seconds: Double) throws(BenchmarkFailure) -> (Double, [String]) {
        let before = try contextSwitches(of: pid)
        usleep(UInt32(seconds * 1e6))
        let after = try contextSwitches(of: pid)
        var total: UInt64 = 0
        var threads: [String] = []
        for (task, count) in after.sorted(by: { $0.key < $1.key }) {
            let woke = count - min(count, before[task] ?? 0)
            total += woke
            guard woke > 0 else { continue }
            let wchan = (try? FileSystem.readFile("/proc/\(pid)/task/\(task)/wchan", limit: 256))
                .map { String(decoding: $0, as: UTF8.self) } ?? "?"
            threads.append("thread \(task) (waits in \(wchan)): \(NumberText.fixed(Double(woke) / seconds, 1))/s")
        }
        return (Double(total) / seconds, threads)
    }

    /// The context switches of each thread of `pid` so far, by thread id.
    private static func contextSwitches(of pid: Int32) throws(BenchmarkFailure) -> [String: UInt64] {
        let tasks: [String]
        do {
            tasks = try FileSystem.contentsOfDirectory("/proc/\(pid)/task")
        } catch {
            throw BenchmarkFailure("Cannot list the threads of process \(pid): \(error.message)")
        }
        var counts: [String: UInt64] = [:]
        for task in tasks {
            guard let status = ProcessStatus(path: "/proc/\(pid)/task/\(task)/status") else { continue }
            counts[task] = (status.numbers("voluntary_ctxt_switches").first ?? 0)
                + (status.numbers("nonvoluntary_ctxt_switches").first ?? 0)
        }
        return counts
    }

    /// Compiles Tests/Fixtures/Extensions/Misbehaving.c and installs it as a
    /// content extension of `app` for `category`, from NoOp's manifest.
    private func installMisbehaving(in directory: String) throws(BenchmarkFailure) {
        let root = Path.directory(of: Path.directory(of: products.noOpManifest))
        let source = Path.join(root, "Tests/Fixtures/Extensions/Misbehaving.c")
        guard FileSystem.status(of: source)?.kind == .regular else {
            throw BenchmarkFailure("\(source) is missing; the scale benchmark runs from the package's source tree.")
        }
        guard let compiler = Products.onPath("cc") ?? Products.onPath("clang") ?? Products.onPath("gcc") else {
            throw BenchmarkFailure("No C compiler (cc, clang, gcc) on PATH; the scale benchmark builds a fixture extension.")
        }
        let bundle = Path.join(directory, "Misbehaving.appex")
        let manifest: String
        do {
            try FileSystem.createDirectory(directory)
            try FileSystem.createDirectory(bundle)
            manifest = String(decoding: try FileSystem.readFile(products.noOpManifest, limit: 1 << 20), as: UTF8.self)
                .replacing("<string>libNoOp.so</string>", with: "<string>libMisbehaving.so</string>")
                .replacing("<string>\(BundleFarm.identifier)</string>", with: "<string>\(Self.app).misbehaving</string>")
                .replacing("<string>\(BundleFarm.category)</string>", with: "<string>\(Self.category)</string>")
            try FileSystem.writeFileAtomically(Path.join(bundle, "Info.plist"), Array(manifest.utf8))
        } catch {
            throw BenchmarkFailure(error.message)
        }
        let log = workspace.file("scale-compile.log")
        let built = try ProcessTimer.run(compiler, ["-shared", "-fPIC", "-O2", "-pthread", "-I", Path.join(root, "Sources/TidingsABI/include"),
                                                    source, "-o", Path.join(bundle, "libMisbehaving.so")],
                                         output: log, environment: ProcessTimer.environment(overriding: [:]))
        guard built.exitStatus == 0 else { throw BenchmarkFailure("\(compiler) could not build \(source); see \(log).") }
    }
}

/// A process's threads and resident set, from /proc/PID/status.
struct ProcessSnapshot {
    /// Its threads.
    var threads: Int
    /// Its resident set (VmRSS), in kilobytes.
    var resident: Int

    /// Reads process `pid`'s.
    init(of pid: Int32) throws(BenchmarkFailure) {
        guard let status = ProcessStatus(of: "\(pid)"), let threads = status.numbers("Threads").first,
              let resident = status.bytes("VmRSS")
        else { throw BenchmarkFailure("Cannot read the threads and VmRSS of process \(pid).") }
        self.threads = Int(threads)
        self.resident = Int(resident / 1024)
    }
}

/// What the scale benchmark found.
struct ServerScaleResult {
    /// How extensions ran.
    var mode: String
    /// The open-file limit the server ran under.
    var descriptorLimit: UInt64
    /// The server's default pool of call threads on this machine.
    var callThreads: Int
    var idle: ProcessSnapshot
    var idleWakeUpsPerSecond: Double
    /// The threads that woke while idle, with what each waits in.
    var wakingThreads: [String]
    var connections: Int
    var connected: ProcessSnapshot
    var connectedWakeUpsPerSecond: Double
    var waiting: Int
    var withWaiting: ProcessSnapshot
    /// Waiting responses answered anyway (none should be), and the first of their answers.
    var answeredEarly: Int
    var firstEarlyAnswer: String

    /// The most threads the server may have, whatever it serves: idle's and a full pool.
    var threadBound: Int { idle.threads + callThreads }

    /// The threads a host adds while anything waits for a completion, however many: its deadline
    /// timer and the thread that finishes what was answered.
    static let waitingThreads = 2

    /// The most threads the server may have while responses wait: `threadBound` and the waiting threads.
    var waitingBound: Int { threadBound + Self.waitingThreads }

    /// The targets: threads bounded by a constant, no wake-ups when idle.
    var targets: [TargetCheck] {
        [
            TargetCheck(key: "scale-connections", goal: "threads with \(connections) idle connections ≤ idle + call pool (\(threadBound))",
                        limit: Double(threadBound), measured: Double(connected.threads), unit: "threads"),
            TargetCheck(key: "scale-waiting",
                        goal: "threads with \(waiting) responses waiting on completions ≤ idle + call pool + deadline timer and finisher (\(waitingBound))",
                        limit: Double(waitingBound), measured: Double(withWaiting.threads), unit: "threads"),
            TargetCheck(key: "scale-idle-wake-ups", goal: "an idle server makes no wake-up (all threads, over 2 s)",
                        limit: 0, measured: idleWakeUpsPerSecond, unit: "/s"),
        ]
    }

    /// The section of the table.
    var lines: [String] {
        func row(_ title: String, _ snapshot: ProcessSnapshot, _ wakeUps: String) -> String {
            title.rightPadded(to: 52) + "\(snapshot.threads)".leftPadded(to: 9)
                + NumberText.fixed(Double(snapshot.resident) / 1024, 1).leftPadded(to: 10) + wakeUps.leftPadded(to: 14)
        }
        return [
            "Server at scale: tidings serve, extensions \(mode), open-file limit \(descriptorLimit), "
                + "call pool \(callThreads) threads (2 × cores + 4)",
            "".rightPadded(to: 52) + "threads".leftPadded(to: 9) + "RSS MB".leftPadded(to: 10) + "wake-ups/s".leftPadded(to: 14),
            row("idle", idle, NumberText.fixed(idleWakeUpsPerSecond, 1)),
            row("\(connections) idle connections", connected, NumberText.fixed(connectedWakeUpsPerSecond, 1)),
            row("\(waiting) responses waiting on completions", withWaiting, "-"),
            "Idle wake-ups: " + (wakingThreads.isEmpty ? "none" : wakingThreads.joined(separator: "; ")),
            "Waiting responses answered early: \(answeredEarly) (none should be)"
                + (answeredEarly > 0 ? "; the first: \(firstEarlyAnswer)" : ""),
        ]
    }

    /// The result as JSON.
    var json: JSON {
        func snapshot(_ value: ProcessSnapshot) -> JSON {
            .object([("threads", .integer(Int64(value.threads))), ("residentKilobytes", .integer(Int64(value.resident)))])
        }
        return .object([
            ("mode", .string(mode)), ("descriptorLimit", .integer(Int64(descriptorLimit))),
            ("callThreads", .integer(Int64(callThreads))),
            ("idle", snapshot(idle)), ("idleWakeUpsPerSecond", .double(idleWakeUpsPerSecond)),
            ("connections", .integer(Int64(connections))), ("connected", snapshot(connected)),
            ("connectedWakeUpsPerSecond", .double(connectedWakeUpsPerSecond)),
            ("waiting", .integer(Int64(waiting))), ("withWaiting", snapshot(withWaiting)),
            ("answeredEarly", .integer(Int64(answeredEarly))),
        ])
    }
}
