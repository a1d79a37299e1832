import Glibc
import TidingsBase
import TidingsServer

/// The memory of `tidings serve` as notifications come and go: idle, with
/// `count` notifications kept, and after they are all removed, for
/// `rounds` rounds, read from /proc. Removed notifications must give their
/// memory back: the resident set after each round within twice the idle one.
struct MemoryBenchmark {
    let products: Products
    let workspace: Workspace
    /// The extension directory the server reads (NoOp alone).
    let extensions: String
    /// Notifications delivered (and kept) each round.
    let count: Int
    /// Rounds of delivering `count` and removing them all.
    let rounds: Int

    /// Requests in flight at once: a client that pipelines, as a busy front end does.
    private static let window = 64
    /// Identifiers each `notifications.remove` names.
    private static let removalBatch = 1_000

    /// Starts the server, warms it up, and measures each round.
    func measure() throws(BenchmarkFailure) -> MemoryResult {
        let socket = workspace.file("memory.sock")
        let server = try ServerProcess(products.tidings, [
            "serve", "--socket", socket, "--state", workspace.file("memory-state"), "--extensions", extensions,
            "--isolation", "in-process", "--keep", "\(count)",
        ], environment: ["HOME=\(workspace.path)"], log: workspace.file("memory.log"), socket: socket)
        defer { server.stop() }
        let client = try PipelinedClient(path: socket)
        let start = try ProcessMemory(of: server.pid)
        Progress.say("Warming the server up: 1,000 notifications delivered and removed")
        try round(client, prefix: "warm-up", count: 1_000)
        var result = MemoryResult(count: count, start: start.resident, idle: try ProcessMemory.settled(of: server.pid).resident)
        for number in 1...rounds {
            Progress.say("Memory, round \(number): delivering \(count) notifications, then removing them all")
            let began = MonotonicClock.now()
            var kept = 0
            try round(client, prefix: "round\(number)", count: count) { () throws(BenchmarkFailure) in
                kept = try ProcessMemory(of: server.pid).resident
            }
            let seconds = Double(MonotonicClock.now() - began) / 1e9
            let after = try ProcessMemory.settled(of: server.pid)
            result.rounds.append(MemoryRound(kept: kept, peak: after.peak, afterRemoval: after.resident, seconds: seconds))
        }
        return result
    }

    /// Delivers `count` notifications named `prefix-N` (each with an
    /// instance of its own: the sample payload without its thread), runs
    /// `whileKept`, and removes them all.
    private func round(_ client: PipelinedClient, prefix: String, count: Int,
                       whileKept: () throws(BenchmarkFailure) -> Void = {}) throws(BenchmarkFailure) {
        let payload = SamplePayload.text.split(separator: "\n").joined()
            .replacing(#""thread-id": "bench","#, with: "")
        try client.send((0..<count).lazy.map { number in
            #"{"jsonrpc":"2.0","id":\#(number),"method":"notifications.deliver","params":{"app":"\#(BundleFarm.app)","identifier":"\#(prefix)-\#(number)","payload":\#(payload)}}"#
        }, window: Self.window)
        try whileKept()
        try client.send(stride(from: 0, to: count, by: Self.removalBatch).lazy.map { first in
            let names = (first..<min(count, first + Self.removalBatch)).map { #""\#(prefix)-\#($0)""# }
            return #"{"jsonrpc":"2.0","id":\#(first),"method":"notifications.remove","params":{"app":"\#(BundleFarm.app)","identifiers":[\#(names.joined(separator: ","))]}}"#
        }, window: Self.window)
    }
}

/// What the memory benchmark found, in kilobytes.
struct MemoryResult {
    /// Notifications delivered and removed each round.
    var count: Int
    /// The resident set right after the server started.
    var start: Int
    /// The resident set idle: after a warm-up of 1,000 notifications delivered and removed.
    var idle: Int
    /// Each round.
    var rounds: [MemoryRound] = []
}

/// One round of the memory benchmark, in kilobytes.
struct MemoryRound {
    /// The resident set with every notification of the round kept.
    var kept: Int
    /// The largest resident set so far.
    var peak: Int
    /// The resident set once the round's notifications were all removed, settled.
    var afterRemoval: Int
    /// How long delivering and removing took, in seconds.
    var seconds: Double
}

/// A client that sends requests with up to `window` of them unanswered, and
/// checks that every answer is a result.
final class PipelinedClient {
    private let socket: Int32
    /// What was received and not yet read, from `position` on.
    private var held: [UInt8] = []
    private var position = 0
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    /// Connects to `path`.
    init(path: String) throws(BenchmarkFailure) {
        do throws(Diagnostic) {
            socket = try UnixSocket.connect(to: path).take()
        } catch {
            throw BenchmarkFailure(error.message)
        }
    }

    deinit {
        close(socket)
    }

    /// Sends every request of `requests`, at most `window` unanswered at a
    /// time, and reads every answer.
    func send(_ requests: some Sequence<String>, window: Int) throws(BenchmarkFailure) {
        var unanswered = 0
        for request in requests {
            if unanswered == window {
                try readAnswer()
                unanswered -= 1
            }
            try write(request)
            unanswered += 1
        }
        for _ in 0..<unanswered { try readAnswer() }
    }

    /// Sends `request` alone and returns its answer line, whatever it says.
    func call(_ request: String) throws(BenchmarkFailure) -> String {
        try write(request)
        return String(decoding: try readLine(), as: UTF8.self)
    }

    /// Sends `request` and a newline.
    private func write(_ request: String) throws(BenchmarkFailure) {
        var line = Array(request.utf8)
        line.append(UInt8(ascii: "\n"))
        var sent = 0
        while sent < line.count {
            let count = line[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw BenchmarkFailure("The server closed the connection.") }
            sent += count
        }
    }

    /// Reads one answer and checks it is not an error.
    private func readAnswer() throws(BenchmarkFailure) {
        let line = try readLine()
        guard line.starts(with: Array(#"{"jsonrpc":"2.0","id":"#.utf8)),
              !String(decoding: line.prefix(80), as: UTF8.self).contains(#""error""#)
        else {
            throw BenchmarkFailure("The server answered: " + String(decoding: line.prefix(300), as: UTF8.self))
        }
    }

    /// Reads one line, without its newline.
    private func readLine() throws(BenchmarkFailure) -> ArraySlice<UInt8> {
        while true {
            if let newline = held[position...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = held[position..<newline]
                position = newline + 1
                return line
            }
            held.removeSubrange(..<position)
            position = 0
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchmarkFailure("The server closed the connection.") }
            held += buffer[..<count]
        }
    }
}
