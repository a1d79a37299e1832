import Foundation
import Glibc
import Testing
import ServerTestSupport
import TestSupport
import TidingsBase

/// `tidings serve` as a process, from start to stop: SIGTERM and SIGINT let
/// the calls under way finish and answer, then the socket file goes and the
/// process exits 0; on standard input and output the same, and a last
/// request without a newline is answered.
@Suite struct LifeCycleTests {
    let fixture = ServerFixture()

    /// Categories of com.example.tests whose action "never" Misbehaving never completes.
    static let categories = #"{"app": "com.example.tests", "categories": [{"identifier": "misbehave", "actions": [{"identifier": "never", "title": "Never"}]}]}"#

    init() throws {
        try fixture.installC("Misbehaving", identifier: "com.example.tests.misbehaving", categories: ["misbehave"],
                             interface: ServerTests.misbehavingInterface)
    }

    /// Starts `tidings serve` with `arguments`; a call never completed ends at its 2 s deadline.
    func serve(_ arguments: [String], input: FileHandle? = nil) throws -> BackgroundProcess {
        let home = fixture.directory.file("home")
        return try BackgroundProcess(Locations.product("tidings"), ["serve", "--extensions", fixture.directory.file("extensions"),
                                                                    "--isolation", "in-process", "--deadline", "2"] + arguments,
                                     environment: ["HOME": home, "XDG_STATE_HOME": home + "/state", "XDG_CACHE_HOME": home + "/cache",
                                                   "XDG_CONFIG_HOME": home + "/config", "NO_COLOR": "1"],
                                     log: log, input: input)
    }

    var log: String { fixture.directory.file("serve.log") }
    var logged: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    @Test(arguments: [SIGTERM, SIGINT])
    func aStopSignalAnswersTheCallsUnderWayThenRemovesTheSocketAndExitsZero(signal: Int32) throws {
        let socket = fixture.directory.file("run/tidings.sock")
        let server = try serve(["--socket", socket])
        defer { server.stop(with: SIGKILL) }
        try #require(BackgroundProcess.wait(for: "listening on \(socket)", inFile: log, seconds: 30), "the server did not start: \(logged)")
        let client = try RPCClient(path: socket)
        _ = try client.call("categories.register", json(Self.categories))
        _ = try client.call("notifications.deliver", json(#"{"app": "com.example.tests", "payload": {"identifier": "stuck", "content": {"title": "T", "categoryIdentifier": "misbehave"}}}"#))
        let stuck = client.request("notifications.respond", try json(#"{"identifier": "stuck", "action": "never"}"#))
        // Read after the stuck call, by another reader: once it is answered, the stuck call is under way.
        _ = try client.call("server.describe")
        #expect(!client.hasAnswer(to: stuck))

        kill(server.identifier, signal)
        let outcome = try client.result(of: stuck, timeout: 30)
        #expect(outcome["actionIdentifier"] == .string("never"), "answered at its deadline, not dropped")
        #expect(server.waitUntilExit(within: 30), "still running: \(logged)")
        #expect(server.ending?.status == 0 && server.ending?.bySignal == false, "\(String(describing: server.ending))")
        #expect(FileSystem.status(of: socket) == nil, "the socket file is left")
        #expect(logged.contains("answering the calls under way, then stopping"), "\(logged)")
    }

    @Test func onStandardInputAStopSignalAnswersTheCallsUnderWayAndExitsZero() throws {
        let input = Pipe()
        let server = try serve(["--stdio"], input: input.fileHandleForReading)
        defer { server.stop(with: SIGKILL) }
        let requests = """
            {"jsonrpc": "2.0", "id": "r", "method": "categories.register", "params": \(Self.categories)}
            {"jsonrpc": "2.0", "id": "d", "method": "notifications.deliver", "params": {"app": "com.example.tests", "payload": {"identifier": "stuck", "content": {"title": "T", "categoryIdentifier": "misbehave"}}}}
            {"jsonrpc": "2.0", "id": "stuck", "method": "notifications.respond", "params": {"identifier": "stuck", "action": "never"}}
            {"jsonrpc": "2.0", "id": "after", "method": "server.describe"}

            """
        input.fileHandleForWriting.write(Data(requests.utf8))
        // Standard input stays open: only the signal ends the server.
        // Read after the stuck call, by another reader: once it is answered, the stuck call is under way.
        try #require(BackgroundProcess.wait(for: #""id":"after""#, inFile: log, seconds: 30), "\(logged)")
        #expect(!logged.contains(#""id":"stuck""#))

        kill(server.identifier, SIGTERM)
        #expect(server.waitUntilExit(within: 30), "still running: \(logged)")
        #expect(server.ending?.status == 0 && server.ending?.bySignal == false, "\(String(describing: server.ending))")
        #expect(logged.contains(#""id":"stuck","result""#), "\(logged)")
        try? input.fileHandleForWriting.close()
    }

    @Test func onStandardInputALastRequestWithoutANewlineIsAnswered() throws {
        let result = try ProcessRunner.run("/bin/sh", ["-c", #"printf '%s' "$1" | "$0" serve --stdio --isolation in-process --state "$2""#,
                                                      Locations.product("tidings"),
                                                      #"{"jsonrpc": "2.0", "id": 7, "method": "server.describe"}"#,
                                                      fixture.directory.file("state")],
                                           environment: ["HOME": fixture.directory.file("home")], deadline: 60)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix(#"{"jsonrpc":"2.0","id":7,"result":"#), "\(result.standardOutput)")
    }
}
