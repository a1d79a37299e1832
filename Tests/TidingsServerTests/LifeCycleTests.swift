import Foundation
import Glibc
import Testing
import ServerTestSupport
import TestSupport
import TidingsBase
import TidingsServer

/// `tidings serve` as a process, from start to stop: SIGTERM and SIGINT let
/// the calls under way finish and answer, then the socket file goes and the
/// process exits 0; on standard input and output the same, and a last
/// request without a newline is answered. A client that sends and never
/// reads holds no thread, and the signal still stops the server.
@Suite struct LifeCycleTests {
    let fixture = ServerFixture()

    /// Categories of com.example.tests whose action "never" Misbehaving never completes.
    static let categories = #"{"app": "com.example.tests", "categories": [{"identifier": "misbehave", "actions": [{"identifier": "never", "title": "Never"}]}]}"#
    /// A call never completed ends at this deadline.
    static let deadline = ["--deadline", "2"]

    init() throws {
        try fixture.installC("Misbehaving", identifier: "com.example.tests.misbehaving", categories: ["misbehave"],
                             interface: ServerTests.misbehavingInterface)
    }

    func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    @Test(arguments: [SIGTERM, SIGINT])
    func aStopSignalAnswersTheCallsUnderWayThenRemovesTheSocketAndExitsZero(signal: Int32) throws {
        let server = try fixture.startProcess(.inProcess, options: Self.deadline)
        defer { server.stop(with: SIGKILL) }
        let client = try fixture.client()
        _ = try client.call("categories.register", json(Self.categories))
        _ = try client.call("notifications.deliver", json(#"{"app": "com.example.tests", "payload": {"identifier": "stuck", "content": {"title": "T", "categoryIdentifier": "misbehave"}}}"#))
        let stuck = client.request("notifications.respond", try json(#"{"identifier": "stuck", "action": "never"}"#))
        // Read after the stuck call, by another reader: once it is answered, the stuck call is under way.
        _ = try client.call("server.describe")
        #expect(!client.hasAnswer(to: stuck))

        kill(server.identifier, signal)
        let outcome = try client.result(of: stuck)
        #expect(outcome["actionIdentifier"] == .string("never"), "answered at its deadline, not dropped")
        #expect(server.waitUntilExit(), "still running: \(fixture.serveLog)")
        #expect(server.ending?.status == 0 && server.ending?.bySignal == false, "\(String(describing: server.ending))")
        #expect(FileSystem.status(of: fixture.socketPath) == nil, "the socket file is left")
        #expect(fixture.serveLog.contains("answering the calls under way, then stopping"), "\(fixture.serveLog)")
    }

    @Test func onStandardInputAStopSignalAnswersTheCallsUnderWayAndExitsZero() throws {
        let input = Pipe()
        let log = fixture.directory.file("serve.log")
        let server = try BackgroundProcess(Locations.product("tidings"), fixture.serveArguments(.inProcess) + ["--stdio"] + Self.deadline,
                                           environment: ["HOME": fixture.directory.path, "NO_COLOR": "1"], log: log,
                                           input: input.fileHandleForReading)
        defer { server.stop(with: SIGKILL) }
        let requests = """
            {"jsonrpc": "2.0", "id": "r", "method": "categories.register", "params": \(Self.categories)}
            {"jsonrpc": "2.0", "id": "d", "method": "notifications.deliver", "params": {"app": "com.example.tests", "payload": {"identifier": "stuck", "content": {"title": "T", "categoryIdentifier": "misbehave"}}}}
            {"jsonrpc": "2.0", "id": "stuck", "method": "notifications.respond", "params": {"identifier": "stuck", "action": "never"}}
            {"jsonrpc": "2.0", "id": "after", "method": "server.describe"}

            """
        // Standard input stays open: only the signal ends the server.
        input.fileHandleForWriting.write(Data(requests.utf8))
        // Read after the stuck call, by another reader: once it is answered, the stuck call is under way.
        try #require(BackgroundProcess.wait(for: #""id":"after""#, inFile: log), "\(fixture.serveLog)")
        #expect(!fixture.serveLog.contains(#""id":"stuck""#))

        kill(server.identifier, SIGTERM)
        #expect(server.waitUntilExit(), "still running: \(fixture.serveLog)")
        #expect(server.ending?.status == 0 && server.ending?.bySignal == false, "\(String(describing: server.ending))")
        #expect(fixture.serveLog.contains(#""id":"stuck","result""#), "\(fixture.serveLog)")
        try? input.fileHandleForWriting.close()
    }

    @Test func onStandardInputALastRequestWithoutANewlineIsAnswered() throws {
        let command = ([Locations.product("tidings")] + fixture.serveArguments(.inProcess) + ["--stdio"])
            .map { "'\($0)'" }.joined(separator: " ")
        let result = try ProcessRunner.run("/bin/sh", ["-c", #"printf '%s' "$1" | "# + command,
                                                      "sh", #"{"jsonrpc": "2.0", "id": 7, "method": "server.describe"}"#],
                                           environment: ["HOME": fixture.directory.path], deadline: 60)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix(#"{"jsonrpc":"2.0","id":7,"result":"#), "\(result.standardOutput)")
    }

    // MARK: A client that never reads

    /// A request with a small answer, numbered `number`.
    static func ping(_ number: Int) -> String {
        #"{"jsonrpc": "2.0", "id": \#(number), "method": "server.ping"}"# + "\n"
    }

    /// Requests whose answers are far more than a pipe or a socket buffer
    /// holds (about 300 KB), and far less than the output a client may leave
    /// unread: the server keeps them for the client, which never reads them.
    static let flood = (1...4_000).map(ping).joined()

    /// The most threads the server may run: those it ran idle, after one
    /// call answered, the pool's (which starts its threads as work comes),
    /// the pool's overseer (started with the first work queued) and one of
    /// the server's own that may still be starting then (the scheduler's).
    static func threadBound(idle: Int) -> Int {
        idle + Server.Limits().callThreads + 2
    }

    /// The number of threads of process `pid` (`/proc/PID/status`); 0 when it cannot be read.
    static func threads(of pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") } ?? ""
        return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? 0
    }

    /// Writes all of `text` to the pipe `descriptor` (made non-blocking),
    /// waiting for room as long as the reader takes it; false when it
    /// stopped taking it for the whole patience.
    static func write(_ text: String, to descriptor: Int32) -> Bool {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let bytes = Array(text.utf8)
        var sent = 0
        var deadline = MonotonicClock.deadline(after: patience)
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                sent += count
                deadline = MonotonicClock.deadline(after: patience)
                continue
            }
            guard count < 0, errno == EAGAIN, MonotonicClock.now() < deadline else { return false }
            var room = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(&room, 1, 100)
        }
        return true
    }

    /// The bytes waiting in the pipe `descriptor` (either end), unread.
    static func unread(in descriptor: Int32) -> Int32 {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? count : -1
    }

    /// The bytes sent on the socket `descriptor` its peer has not read yet.
    static func unsent(on descriptor: Int32) -> Int32 {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(TIOCOUTQ), &count) == 0 ? count : -1
    }

    @Test func onStandardOutputAClientThatNeverReadsHoldsNoThreadAndTheServerStillStops() throws {
        let input = Pipe()
        let output = Pipe()
        let log = fixture.directory.file("serve.log")
        let server = try BackgroundProcess(Locations.product("tidings"), fixture.serveArguments(.inProcess) + ["--stdio"],
                                           environment: ["HOME": fixture.directory.path, "NO_COLOR": "1"], log: log,
                                           input: input.fileHandleForReading, output: output.fileHandleForWriting)
        defer { server.stop(with: SIGKILL) }
        try output.fileHandleForWriting.close()
        try input.fileHandleForReading.close()
        let requests = input.fileHandleForWriting.fileDescriptor
        // One answer read: the server serves, and how many threads it runs idle.
        #expect(Self.write(Self.ping(0), to: requests))
        #expect(output.fileHandleForReading.availableData.starts(with: Array(#"{"jsonrpc":"2.0","id":0"#.utf8)))
        let idle = Self.threads(of: server.identifier)

        // Then never again: the answers fill the pipe, and the server keeps the rest.
        try #require(Self.write(Self.flood, to: requests), "the server stopped reading: \(fixture.serveLog)")
        try #require(eventually { Self.unread(in: requests) == 0 }, "the server stopped reading")
        #expect(Self.unread(in: output.fileHandleForReading.fileDescriptor) > 0)
        let busy = Self.threads(of: server.identifier)
        #expect(busy <= Self.threadBound(idle: idle), "\(busy) threads, \(idle) idle")

        kill(server.identifier, SIGTERM)
        #expect(server.waitUntilExit(), "still running with a client that does not read: \(fixture.serveLog)")
        #expect(server.ending?.status == 0 && server.ending?.bySignal == false, "\(String(describing: server.ending))")
        try? input.fileHandleForWriting.close()
    }

    @Test func onASocketAClientThatNeverReadsHoldsNoThreadAndTheServerStillStops() throws {
        let server = try fixture.startProcess(.inProcess)
        defer { server.stop(with: SIGKILL) }
        let client = try fixture.client()
        _ = try client.call("server.ping")
        let idle = Self.threads(of: server.identifier)

        client.send(String(Self.flood.dropLast()))
        // Once the server has read it all, nothing the client sent waits in the socket.
        try #require(eventually { Self.unsent(on: client.socket) == 0 }, "the server stopped reading")
        let busy = Self.threads(of: server.identifier)
        #expect(busy <= Self.threadBound(idle: idle), "\(busy) threads, \(idle) idle")

        kill(server.identifier, SIGTERM)
        #expect(server.waitUntilExit(), "still running with a client that does not read: \(fixture.serveLog)")
        #expect(server.ending?.status == 0 && server.ending?.bySignal == false, "\(String(describing: server.ending))")
    }
}
