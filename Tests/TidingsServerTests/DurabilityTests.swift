import Foundation
import Glibc
import Testing
import ServerTestSupport
import TestSupport
import TidingsBase

/// `tidings serve` on a disk that fills up: every change is answered either
/// done (and written) or refused with the cause, memory and disk agree, the
/// state says it is degraded and recovers by itself when room comes back,
/// and after `kill -9` every acknowledged change is there.
@Suite struct DurabilityTests {
    let directory = TemporaryDirectory("durability")
    var socket: String { directory.file("run/tidings.sock") }
    static let app = "com.example.events"
    static let categories = #"{"app": "com.example.events", "categories": [{"identifier": "event-invite", "actions": [{"identifier": "accept", "title": "Accept"}]}]}"#

    init() throws {
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        try BundleMaker.installSample("EventInvite", in: directory.file("extensions"))
    }

    /// Starts the server with its state in `state`, its output to `log`.
    func start(state: String, log: String) throws -> BackgroundProcess {
        try? FileManager.default.removeItem(atPath: socket)
        let server = try BackgroundProcess(Locations.product("tidings"), [
            "serve", "--socket", socket, "--state", state, "--extensions", directory.file("extensions"),
        ], environment: ["HOME": directory.path, "NO_COLOR": "1"], log: directory.file(log))
        try #require(BackgroundProcess.wait(forFile: socket), "the server did not start: \(self.log(log))")
        return server
    }

    func log(_ name: String) -> String { (try? String(contentsOfFile: directory.file(name), encoding: .utf8)) ?? "" }

    /// The request delivering `identifier`, with JSON-RPC id `id`.
    static func deliver(_ identifier: String, id: Int) -> String {
        #"{"jsonrpc": "2.0", "id": \#(id), "method": "notifications.deliver", "params": {"identifier": "\#(identifier)", "payload": {"aps": {"alert": {"title": "Invite \#(identifier)", "body": "Come to the offsite"}, "category": "event-invite"}, "room": "Pier 3"}}}"#
    }

    /// The identifiers of the notifications delivered.
    static func delivered(_ client: RPCClient) throws -> Set<String> {
        let listed = try client.call("notifications.list", timeout: 30)["notifications"]?.arrayValue ?? []
        return Set(listed.compactMap { $0["notification"]?["identifier"]?.stringValue })
    }

    /// The apps with registered categories.
    static func registered(_ client: RPCClient) throws -> Set<String> {
        Set((try client.call("categories.list")["apps"]?.arrayValue ?? []).compactMap { $0["app"]?.stringValue })
    }

    /// The categories of app `name`, registered under it.
    static func registration(_ name: String) throws -> JSON {
        try JSON.parse(Array(#"{"app": "\#(name)", "categories": [{"identifier": "c", "actions": []}]}"#.utf8))
    }

    /// What a refused change must look like: -32010, its cause the disk's refusal.
    func expectRefused(_ answer: JSON, by disk: SmallDisk, _ what: String) {
        #expect(answer["error"]?["code"] == .integer(-32010), "\(what): \(answer)")
        #expect(answer["error"]?["data"]?["cause"] == .string(disk.refusal), "\(what): \(answer)")
    }

    @Test func aFullDiskRefusesWhatItCannotWriteAndLosesNothingAcknowledged() throws {
        let disk = try SmallDisk()
        let server = try start(state: disk.path, log: "first.log")
        try disk.confine(server.identifier)
        let watcher = try RPCClient(path: socket)
        _ = try watcher.call("events.subscribe")
        let client = try RPCClient(path: socket)
        _ = try client.call("categories.register", try JSON.parse(Array(Self.categories.utf8)))

        var acknowledged: Set<String> = []  // delivered, and still delivered as far as the client knows
        var registeredApps: Set<String> = [Self.app]
        var refused = 0
        // Ids of their own, far from those `call` picks.
        let total = 20_000, window = 100, firstID = 10_000_000
        for start in stride(from: 0, to: total, by: window) {
            let identifiers = (start..<start + window).map { "n\($0)" }
            for (offset, identifier) in identifiers.enumerated() {
                client.send(Self.deliver(identifier, id: firstID + start + offset))
            }
            for (offset, identifier) in identifiers.enumerated() {
                let answer = try client.answer(to: .integer(Int64(firstID + start + offset)), timeout: 30)
                if answer["result"] != nil {
                    acknowledged.insert(identifier)
                } else {
                    expectRefused(answer, by: disk, "deliver \(identifier)")
                    refused += 1
                }
            }
            // Now and then a registration, a removal and a response, each done or refused as a whole.
            guard start % 1_000 == 0 else { continue }
            let app = "com.example.app\(start)"
            let registration = try client.answer(to: client.request("categories.register", try Self.registration(app)))
            if registration["result"] != nil { registeredApps.insert(app) } else { expectRefused(registration, by: disk, "register") }

            if let removed = acknowledged.sorted().first {
                let answer = try client.answer(to: client.request("notifications.remove", .object([("identifiers", .array([.string(removed)]))])))
                if answer["result"] != nil {
                    #expect(answer["result"]?["removed"] == .array([.string(removed)]))
                    acknowledged.remove(removed)
                } else {
                    expectRefused(answer, by: disk, "remove")
                }
            }
            if let answered = acknowledged.sorted().last {
                let outcome = try client.call("notifications.respond", .object([("identifier", .string(answered)),
                                                                                ("action", .string("accept"))]))
                // The extension dismisses it; when that cannot be written the notification stays, and says why.
                if outcome["dismissed"] == .bool(true) {
                    acknowledged.remove(answered)
                } else {
                    let codes = outcome["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
                    #expect(codes.contains(disk.refusal), "\(outcome)")
                }
            }
        }
        #expect(refused > 0, "the disk never filled")
        #expect(acknowledged.count > 1_000, "too few deliveries fitted to tell anything: \(acknowledged.count)")

        // Memory holds what was acknowledged, no more: a refused change was not made.
        #expect(try Self.delivered(client) == acknowledged)
        #expect(try Self.registered(client) == registeredApps)
        let degraded = try #require(try watcher.event("state.degraded", timeout: 10), "no state.degraded event")
        #expect(degraded["cause"]?["code"] == .string(disk.refusal))
        let state = try client.call("server.describe")["state"]
        #expect(state?["status"] == .string("degraded"))
        #expect(state?["cause"]?["code"] == .string(disk.refusal))
        #expect(log("first.log").contains("the state is degraded"))

        // Room comes back: the state recovers by itself (the keeper tries
        // every second), and changes are made again. On the nearly full disk
        // a small record could fit where a large one did not, so the events
        // may have gone back and forth; the last one says it recovered.
        try disk.makeRoom(for: server.identifier)
        let deadline = MonotonicClock.deadline(after: 20)
        while try client.call("server.describe")["state"]?["status"] != .string("ok") && MonotonicClock.now() < deadline {
            try watcher.drain(for: 0.2)
        }
        #expect(try client.call("server.describe")["state"]?["status"] == .string("ok"))
        try watcher.drain(for: 0.5)
        let lastStateEvent = watcher.events.last { $0["method"]?.stringValue?.hasPrefix("state.") == true }
        #expect(lastStateEvent?["method"] == .string("state.recovered"), "\(watcher.events.suffix(3))")
        let last = try client.answer(to: client.request("notifications.deliver", try JSON.parse(Array(
            #"{"identifier": "after", "payload": {"aps": {"alert": "Hi", "category": "event-invite"}}}"#.utf8))))
        #expect(last["result"] != nil, "\(last)")
        acknowledged.insert("after")

        // After kill -9, every acknowledged change is there, and nothing refused.
        server.stop(with: SIGKILL)
        let second = try start(state: disk.path, log: "second.log")
        defer { second.stop() }
        let again = try RPCClient(path: socket)
        let kept = try Self.delivered(again)
        #expect(acknowledged.subtracting(kept).isEmpty, "lost \(acknowledged.subtracting(kept).count): \(acknowledged.subtracting(kept).sorted().prefix(5))")
        #expect(kept.subtracting(acknowledged).isEmpty, "came back though refused or removed: \(kept.subtracting(acknowledged).sorted().prefix(5))")
        #expect(try Self.registered(again) == registeredApps)
    }
}
