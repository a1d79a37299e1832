import Glibc
import Synchronization
import TidingsBase
import TidingsRegistry
import TidingsServer

/// Deliver → presentation round trips over `tidings serve`'s Unix socket,
/// with 1 and with 8 clients, each sending its next request when the last
/// is answered; against a raw round trip measured in the same run: an echo
/// thread answering each line with as many bytes as the server's answer, over
/// the same kind of socket. The requests ask for the presentation only
/// (`"answer": "presentation"`), what a front end draws a banner from; then
/// one client again against a server in the default, isolated mode.
struct ServerBenchmark {
    let products: Products
    let workspace: Workspace
    /// The extension directory the server reads (NoOp alone).
    let extensions: String
    /// Seconds each measurement lasts, after a warm-up of a tenth of it.
    let seconds: Double
    /// The numbers of clients to measure with.
    let clientCounts: [Int]

    /// Measures the echo, then the server, for each number of clients.
    func measure() throws(BenchmarkFailure) -> [ServerResult] {
        let socket = workspace.file("serve.sock")
        let server = try ServerProcess(products.tidings, [
            "serve", "--socket", socket, "--state", workspace.file("state"), "--extensions", extensions,
            "--isolation", "in-process",
        ], environment: ["HOME=\(workspace.path)"], log: workspace.file("serve.log"), socket: socket)
        defer { server.stop() }
        let answerSize = try Self.answerSize(socket: socket)
        let echo = try EchoServer(path: workspace.file("echo.sock"), answerSize: answerSize)
        defer { echo.stop() }
        var results: [ServerResult] = [try answerInProcess(answer: "delivery"), try answerInProcess(answer: "presentation")]
        for clients in clientCounts {
            Progress.say("Measuring the raw round trip with \(clients) client\(clients == 1 ? "" : "s")")
            echo.connectionCPU.store(clients == 1 ? Self.oneClientCPU : -1, ordering: .relaxed)
            results.append(try run(key: "echo-\(clients)", title: "raw round trip (echo, \(answerSize) bytes back)",
                                   clients: clients, socket: echo.path))
            Progress.say("Measuring deliver → presentation over the socket with \(clients) client\(clients == 1 ? "" : "s")")
            results.append(try run(key: "serve-\(clients)", title: "deliver → presentation over the socket",
                                   clients: clients, socket: socket, server: server.pid))
        }
        results.append(try isolated())
        return results
    }

    /// One client's banner deliveries through `tidings serve` in its default,
    /// isolated mode: a banner runs no extension code, so no worker is called.
    private func isolated() throws(BenchmarkFailure) -> ServerResult {
        let socket = workspace.file("isolated.sock")
        let server = try ServerProcess(products.tidings, [
            "serve", "--socket", socket, "--state", workspace.file("isolated-state"), "--extensions", extensions,
        ], environment: ["HOME=\(workspace.path)"], log: workspace.file("isolated.log"), socket: socket)
        defer { server.stop() }
        Progress.say("Measuring deliver → presentation over the socket, isolated, with 1 client")
        return try run(key: "isolated-1", title: "deliver → presentation, isolated (default mode)", clients: 1,
                       socket: socket, server: server.pid)
    }

    /// The server's own work for one delivery, without the socket: the
    /// request parsed, answered by `HostService` and serialised, in this
    /// process; the answer asked for is `answer` ("delivery": all of it, or "presentation").
    private func answerInProcess(answer: String) throws(BenchmarkFailure) -> ServerResult {
        Progress.say("Measuring the server's work for a delivery, in process, answering with the \(answer)")
        var configuration = HostService.Configuration()
        configuration.host.attachmentDirectory = workspace.file("answer-attachments")
        let service = HostService(index: Discovery.scan(SearchPath(directories: [extensions], origin: .option)),
                                  configuration: configuration)
        let line = Array(Self.request(identifier: "client-0", thread: "bench-0", answer: answer).dropLast())
        let sink = NullReceiver()
        var samples: [UInt64] = []
        let ends = MonotonicClock.deadline(after: seconds)
        var bytes = 0
        while MonotonicClock.now() < ends {
            let start = MonotonicClock.now()
            guard case .single(.success(let request)) = RPCMessage.read(line) else {
                throw BenchmarkFailure("The benchmark's request does not read as one.")
            }
            switch service.answer(request, from: sink) {
            case .success(let result): bytes += RPCReply.result(result, id: .number(1)).count
            case .failure(let error): throw BenchmarkFailure("The delivery failed: \(error.message)")
            }
            samples.append(MonotonicClock.now() - start)
        }
        samples.sort()
        let median = Double(samples[samples.count / 2]) / 1000
        let title = "server's own work, no socket: " + (answer == "delivery" ? "whole delivery" : "presentation only")
        return ServerResult(key: "answer-\(answer)", title: title, clients: 1,
                            roundTrips: samples.count, roundTripsPerSecond: Double(samples.count) / seconds,
                            medianMicroseconds: median, p99Microseconds: Double(samples[samples.count * 99 / 100]) / 1000)
    }

    /// The request client `number` sends again and again: the sample payload,
    /// one identifier per client (each delivery replaces its last), thread "bench-NUMBER".
    static func request(client number: Int) -> [UInt8] {
        // A thread of its own per client: one thread's instance is called one delivery at a time.
        request(identifier: "client-\(number)", thread: "bench-\(number)", answer: "presentation")
    }

    /// The request delivering the sample payload as `identifier`, of thread
    /// `thread`; `answer` ("delivery", "presentation") says what it asks back, nil the default.
    static func request(identifier: String, thread: String, answer: String? = nil) -> [UInt8] {
        request(identifier: identifier, payload: payload(thread: thread), answer: answer)
    }

    /// The sample payload on one line, of thread `thread`.
    static func payload(thread: String) -> String {
        SamplePayload.text.split(separator: "\n").joined()
            .replacing(#""thread-id": "bench""#, with: #""thread-id": "\#(thread)""#)
    }

    /// The request delivering `payload` (one line of JSON) as `identifier`;
    /// `answer` ("delivery", "presentation") says what it asks back, nil the default.
    static func request(identifier: String, payload: String, answer: String? = nil) -> [UInt8] {
        let asked = answer.map { #","answer":"\#($0)""# } ?? ""
        let text = #"{"jsonrpc":"2.0","id":1,"method":"notifications.deliver","params":{"app":"\#(BundleFarm.app)","identifier":"\#(identifier)"\#(asked),"payload":\#(payload)}}"#
        return Array((text + "\n").utf8)
    }

    /// The size of the server's answer to a delivery, checking it is one.
    private static func answerSize(socket: String) throws(BenchmarkFailure) -> Int {
        let client = try RoundTripClient(path: socket, request: request(client: 0))
        let answer = client.roundTrip()
        guard let answer, String(decoding: answer, as: UTF8.self).contains(#""presentation""#) else {
            throw BenchmarkFailure("The server did not answer a delivery with a presentation: "
                + String(decoding: answer ?? [], as: UTF8.self).prefix(300))
        }
        return answer.count
    }

    /// `clients` threads doing round trips on `socket` for `seconds`, after
    /// a warm-up. The rate is the median of `windows` equal windows' rates:
    /// on a shared machine another process's burst takes one window's time,
    /// not the whole figure's. One client shares one core
    /// (`oneClientCPU`) with the process `server` answering it, as with the
    /// echo: what is measured is then the work of both and two switches
    /// between them, not how long the machine takes to wake a thread on
    /// another core (30 – 60 µs on a VM, more than the server's work).
    /// Eight clients and the server have the whole machine.
    private func run(key: String, title: String, clients: Int, socket: String,
                     server: pid_t? = nil) throws(BenchmarkFailure) -> ServerResult {
        let oneCore = clients == 1
        let pin = oneCore ? server.map { CoreAffinity.pin(processTreeOf: $0, to: Self.oneClientCPU) } : nil
        defer { pin?.undo() }
        var connections: [RoundTripClient] = []
        for number in 0..<clients {
            connections.append(try RoundTripClient(path: socket, request: Self.request(client: number + 1)))
        }
        let warmUpEnds = MonotonicClock.deadline(after: seconds / 10)
        let ends = MonotonicClock.deadline(after: seconds / 10 + seconds)
        let done = Latch()
        let remaining = Atomic<Int>(clients)
        let latencies = Mutex<[[UInt64]]>([])
        let completions = Mutex<[Int]>(Array(repeating: 0, count: Self.windows))
        let window = (ends - warmUpEnds) / UInt64(Self.windows)
        let failed = Atomic<Bool>(false)
        for connection in connections {
            Threads.start {
                if oneCore { try? CoreAffinity.pin(to: Self.oneClientCPU) }
                var samples: [UInt64] = []
                samples.reserveCapacity(1 << 16)
                var counts = Array(repeating: 0, count: Self.windows)
                while true {
                    let start = MonotonicClock.now()
                    guard start < ends else { break }
                    guard connection.timedRoundTrip() != nil else {
                        failed.store(true, ordering: .relaxed)
                        break
                    }
                    let end = MonotonicClock.now()
                    if start >= warmUpEnds {
                        samples.append(end - start)
                        if end < ends { counts[Int((end - warmUpEnds) / window)] += 1 }
                    }
                }
                latencies.withLock { $0.append(samples) }
                completions.withLock { totals in
                    for index in totals.indices { totals[index] += counts[index] }
                }
                if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.open() }
            }
        }
        _ = done.wait(until: ends + 30_000_000_000)
        guard !failed.load(ordering: .relaxed) else { throw BenchmarkFailure("A client of \(socket) lost its connection.") }
        let all = latencies.withLock { $0.flatMap { $0 } }.sorted()
        guard !all.isEmpty else { throw BenchmarkFailure("No round trip completed on \(socket).") }
        func percentile(_ fraction: Double) -> Double {
            Double(all[min(all.count - 1, Int(Double(all.count) * fraction))]) / 1000
        }
        let rates = completions.withLock { $0 }.map { Double($0) * 1e9 / Double(window) }.sorted()
        return ServerResult(key: key, title: title, clients: clients, roundTrips: all.count,
                            roundTripsPerSecond: rates[rates.count / 2],
                            medianMicroseconds: percentile(0.5), p99Microseconds: percentile(0.99))
    }

    /// The windows a measurement's rate is the median of.
    static let windows = 5
    /// The core one client and what answers it share.
    static let oneClientCPU = 0
}

/// What one server measurement found.
struct ServerResult {
    /// "serve-1", "echo-8", …
    var key: String
    var title: String
    var clients: Int
    /// Round trips timed (after the warm-up).
    var roundTrips: Int
    /// The median of the windows' rates (`ServerBenchmark.windows`); the round trips ÷ the time for the server's own work.
    var roundTripsPerSecond: Double
    var medianMicroseconds: Double
    var p99Microseconds: Double
}

/// One client connection that sends a request (a fixed one, or one given
/// each time) and reads one line back.
final class RoundTripClient: @unchecked Sendable {
    // Used by one thread at a time.
    private let socket: Int32
    private let request: [UInt8]
    /// What was read; its first `filled` bytes are what the answers returned so far left.
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var filled = 0

    /// Connects to `path`, retrying for up to 5 s: the socket file appears
    /// at `bind`, a moment before the server listens.
    init(path: String, request: [UInt8]) throws(BenchmarkFailure) {
        let deadline = MonotonicClock.deadline(after: 5)
        while true {
            do throws(Diagnostic) {
                socket = try UnixSocket.connect(to: path).take()
                break
            } catch {
                guard MonotonicClock.now() < deadline else { throw BenchmarkFailure(error.message) }
                usleep(10_000)
            }
        }
        self.request = request
    }

    deinit {
        close(socket)
    }

    /// Sends the request and returns the answer line; nil when the connection failed.
    func roundTrip() -> [UInt8]? {
        exchange(request) { Array($0) }
    }

    /// Sends `line` instead of the fixed request and returns the answer line; nil when the connection failed.
    func roundTrip(sending line: [UInt8]) -> [UInt8]? {
        exchange(line) { Array($0) }
    }

    /// Sends the request and returns the answer line's length, copying
    /// nothing: what a timed loop calls, so that the client costs the
    /// server's core (they share it) as little as it can; nil when the connection failed.
    func timedRoundTrip() -> Int? {
        exchange(request) { $0.count }
    }

    /// Sends `line` instead of the fixed request and returns the answer
    /// line's length, copying nothing; nil when the connection failed.
    func timedRoundTrip(sending line: [UInt8]) -> Int? {
        exchange(line) { $0.count }
    }

    /// Sends `request`, waits for the answer line and returns what `body`
    /// makes of it (newline included); nil when the connection failed.
    private func exchange<T>(_ request: [UInt8], _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return nil }
            sent += count
        }
        var searched = 0
        while true {
            let found = buffer.withUnsafeMutableBytes { bytes -> T? in
                guard let base = bytes.baseAddress,
                      let newline = memchr(base + searched, Int32(UInt8(ascii: "\n")), filled - searched) else { return nil }
                let length = base.distance(to: newline) + 1
                let made = body(UnsafeRawBufferPointer(rebasing: bytes[..<length]))
                if filled > length { memmove(base, base + length, filled - length) }
                filled -= length
                return made
            }
            if let found { return found }
            searched = filled
            if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
            let count = buffer.withUnsafeMutableBytes { Polling.receive(socket, into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            guard count > 0 else { return nil }
            filled += count
        }
    }
}

/// Waiting for bytes as a load generator does: polling for a while before
/// sleeping, so that what is measured is the server, not how long the
/// machine takes to wake a sleeping thread (tens of microseconds on a VM).
enum Polling {
    /// Polls for up to a millisecond, then waits. The corresponding C function is `recv`.
    static func receive(_ socket: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let until = MonotonicClock.now() + 1_000_000
        repeat {
            let count = recv(socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { return count }
            sched_yield()
        } while MonotonicClock.now() < until
        return recv(socket, buffer.baseAddress, buffer.count, 0)
    }
}

/// The raw round trip: a thread per client that answers each line it reads
/// with `answerSize` bytes, doing nothing else.
final class EchoServer: Sendable {
    let path: String
    private let listener: Int32
    /// The CPU the threads of connections accepted from now on run on; -1 for any.
    let connectionCPU = Atomic<Int>(-1)

    init(path: String, answerSize: Int) throws(BenchmarkFailure) {
        self.path = path
        do throws(Diagnostic) {
            listener = try UnixSocket.listen(at: path).take()
        } catch {
            throw BenchmarkFailure(error.message)
        }
        let answer = [UInt8](repeating: UInt8(ascii: "x"), count: max(1, answerSize - 1)) + [UInt8(ascii: "\n")]
        Threads.start { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                let cpu = self.connectionCPU.load(ordering: .relaxed)
                Threads.start {
                    if cpu >= 0 { try? CoreAffinity.pin(to: cpu) }
                    Self.echo(client, answer: answer)
                }
            }
        }
    }

    /// Answers every line on `client` until it closes.
    private static func echo(_ client: Int32, answer: [UInt8]) {
        defer { close(client) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            // The echo polls as the server's readers do.
            let count = buffer.withUnsafeMutableBytes { Polling.receive(client, into: $0) }
            guard count > 0 else { return }
            for _ in buffer[..<count].lazy.filter({ $0 == UInt8(ascii: "\n") }) {
                guard answer.withUnsafeBytes({ send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == answer.count
                else { return }
            }
        }
    }

    /// Stops accepting.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// `tidings serve` started for the benchmark, stopped with SIGTERM.
struct ServerProcess {
    /// The server's process id.
    let pid: pid_t

    /// Starts `program` and waits (up to 10 s) for `socket` to appear.
    init(_ program: String, _ arguments: [String], environment: [String], log: String,
         socket: String) throws(BenchmarkFailure) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        let status = withUnsafePointer(to: &actions) { actions in
            ProcessTimer.withCStringArray([program] + arguments) { argv in
                ProcessTimer.withCStringArray(environment) { envp in posix_spawn(&pid, program, actions, nil, argv, envp) }
            }
        }
        guard status == 0 else { throw BenchmarkFailure("Cannot start \(program): \(String(cString: strerror(status))).") }
        self.pid = pid
        let deadline = MonotonicClock.deadline(after: 10)
        while FileSystem.status(of: socket) == nil {
            guard MonotonicClock.now() < deadline else {
                stop()
                throw BenchmarkFailure("tidings serve did not start; see \(log).")
            }
            usleep(10_000)
        }
    }

    /// Stops the server and waits for it.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}

/// A client that hears nothing, for calls made in process.
final class NullReceiver: EventReceiver {
    func push(_ line: [UInt8]) -> Bool { true }
}
