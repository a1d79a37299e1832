import Foundation
import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsServer

/// The transport's bounds: connections in all and per process, with a
/// reserve that leaves a new process room when one process took its all,
/// and a request begun and never finished, each refused with one -32012
/// line (`data: {limit, value}`) and the connection closed.
@Suite struct ConnectionLimitTests {
    let fixture = ServerFixture()

    /// The first line the server sends `client` after it pings: the ping's
    /// answer, or the refusal the server sent when it took the connection.
    func firstLine(of client: RPCClient) throws -> JSON {
        client.request("server.ping", nil)
        let line = try #require(try client.readLine(until: MonotonicClock.deadline(after: patience)))
        return try JSON.parse(Array(line.utf8))
    }

    /// Opens clients from this one process until the server refuses one (at
    /// most `most`); the clients it took, and the refusal.
    func exhaust(most: Int) throws -> (taken: [RPCClient], refusal: JSON?) {
        var taken: [RPCClient] = []
        while taken.count < most {
            let client = try fixture.client()
            let line = try firstLine(of: client)
            if line["error"] != nil { return (taken, line) }
            taken.append(client)
        }
        return (taken, nil)
    }

    @Test func oneProcessExhaustingItsShareLeavesRoomForANewFrontEnd() throws {
        var limits = Server.Limits()
        limits.connections = 24
        limits.connectionReserve = 4
        try fixture.start(limits: limits)
        let (taken, refusal) = try exhaust(most: 200)
        #expect(taken.count == 20, "the reserve of 4 is kept from a process that has connections")
        #expect(refusal?["id"] == .null)
        #expect(refusal?["error"]?["code"] == .integer(-32012), "\(refusal.map { "\($0)" } ?? "never refused")")
        #expect(refusal?["error"]?["data"]?["limit"] == .string("connections"))
        #expect(refusal?["error"]?["data"]?["value"] == .integer(24))
        // A new process (a front end that had no connection) still gets in.
        let script = try fixture.directory.write(SandboxPeerTests.client, to: "client.py")
        let run = try ProcessRunner.run(SandboxPeerTests.python, [script, fixture.socketPath, "plain",
                                                                  #"server.hello {"role": "frontEnd"}"#, "server.describe"])
        let answers = try run.standardOutput.split(separator: "\n").map { try JSON.parse(Array($0.utf8)) }
        #expect(answers.first?["result"]?["role"] == .string("frontEnd"), "\(run.standardOutput) \(run.standardError)")
        let described = answers.last?["result"]?["limits"]
        #expect(described?["connections"] == .integer(24) && described?["connectionReserve"] == .integer(4))
        #expect(described?["connectionsPerProcess"] == .integer(Int64(Server.Limits().connectionsPerProcess)))
        #expect(described?["partialRequestTimeout"] == .double(10))
        // The connections taken still work.
        #expect(try taken[0].call("server.ping", nil)["pong"] == .bool(true))
    }

    @Test func aProcessGetsAtMostItsConnectionsPerProcess() throws {
        var limits = Server.Limits()
        limits.connectionsPerProcess = 5
        try fixture.start(limits: limits)
        var exhausted = try exhaust(most: 200)
        let refusal = exhausted.refusal
        #expect(exhausted.taken.count == 5)
        #expect(refusal?["error"]?["code"] == .integer(-32012))
        #expect(refusal?["error"]?["data"]?["limit"] == .string("connectionsPerProcess"))
        #expect(refusal?["error"]?["data"]?["value"] == .integer(5))
        // One closed makes room for one more.
        exhausted.taken.removeLast()
        #expect(try eventually { try firstLine(of: try fixture.client())["result"] != nil })
    }

    @Test func aRequestBegunAndNeverFinishedTimesOut() throws {
        var limits = Server.Limits()
        limits.partialRequestTimeout = 0.05
        try fixture.start(limits: limits)
        let client = try fixture.client()
        #expect(try firstLine(of: client)["result"]?["pong"] == .bool(true))
        let partial = Array(#"{"jsonrpc": "2.0", "id": 2, "method": "server.pi"#.utf8)
        #expect(partial.withUnsafeBytes { Glibc.send(client.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == partial.count)
        let line = try #require(try client.readLine(until: MonotonicClock.deadline(after: patience)))
        let refusal = try JSON.parse(Array(line.utf8))
        #expect(refusal["id"] == .null)
        #expect(refusal["error"]?["code"] == .integer(-32012))
        #expect(refusal["error"]?["data"]?["limit"] == .string("partialRequestTimeout"))
        #expect(refusal["error"]?["data"]?["value"] == .double(0.05))
        // Then the connection ends: reading finds its end.
        #expect(throws: (any Error).self) { try client.readLine(until: MonotonicClock.deadline(after: patience)) }
    }

    /// However many connections are asked for, the total stays under the
    /// soft limit of open files less the descriptors kept for the rest.
    @Test func theTotalStaysUnderTheLimitOfOpenFiles() throws {
        var limits = Server.Limits()
        limits.connections = 100_000_000
        try fixture.start(limits: limits)
        var files = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files) == 0)
        let described = try fixture.client().call("server.describe", nil)["limits"]?["connections"]?.integerValue
        if files.rlim_cur == rlim_t.max {
            #expect(described == 100_000_000)
        } else {
            #expect(described == max(Int64(files.rlim_cur) - Int64(Server.Limits.descriptorSpare), Int64(limits.connectionReserve + 1)))
        }
    }
}
