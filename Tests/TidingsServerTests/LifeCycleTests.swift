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
}
