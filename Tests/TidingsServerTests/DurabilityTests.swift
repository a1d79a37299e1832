import Foundation
import Glibc
import Testing
import ServerTestSupport
import TestSupport
import TidingsBase

/// `tidings serve` on a disk that fills up: every change is answered either
/// done (and written) or refused with the cause, memory and disk agree, the
/// state says it is degraded and recovers by itself when room comes back,
/// and after `kill -9` every acknowledged change is there. On a disk that
/// damages its files: what is intact is kept, and what was lost is reported.
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
        try #require(BackgroundProcess.wait(forListener: socket), "the server did not start: \(self.log(log))")
        return server
    }

    func log(_ name: String) -> String { (try? String(contentsOfFile: directory.file(name), encoding: .utf8)) ?? "" }

    /// The request delivering `identifier`, with JSON-RPC id `id`.
    static func deliver(_ identifier: String, id: Int) -> String {
        #"{"jsonrpc": "2.0", "id": \#(id), "method": "notifications.deliver", "params": {"app": "com.example.events", "identifier": "\#(identifier)", "payload": {"aps": {"alert": {"title": "Invite \#(identifier)", "body": "Come to the offsite"}, "category": "event-invite"}, "room": "Pier 3"}}}"#
    }

    /// The identifiers of the notifications delivered.
    static func delivered(_ client: RPCClient) throws -> Set<String> {
        let listed = try client.listAll(limit: 1_000)
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
        // A subscriber of an app that gets nothing: the state's events reach every subscriber,
        // and those of 20,000 deliveries would bury them (a notification.delivered each).
        let watcher = try RPCClient(path: socket)
        _ = try watcher.call("events.subscribe", .object([("apps", .array([.string("com.example.elsewhere")]))]))
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
                let answer = try client.answer(to: .integer(Int64(firstID + start + offset)))
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
        let degraded = try #require(try watcher.event("state.degraded"), "no state.degraded event")
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
        let deadline = MonotonicClock.deadline(after: patience)
        while try client.call("server.describe")["state"]?["status"] != .string("ok") && MonotonicClock.now() < deadline {
            try watcher.drain(for: 0.2)
        }
        #expect(try client.call("server.describe")["state"]?["status"] == .string("ok"))
        try watcher.drain(for: 0.5)
        let lastStateEvent = watcher.events.last { $0["method"]?.stringValue?.hasPrefix("state.") == true }
        #expect(lastStateEvent?["method"] == .string("state.recovered"), "\(watcher.events.suffix(3))")
        let last = try client.answer(to: client.request("notifications.deliver", try JSON.parse(Array(
            #"{"app": "com.example.events", "identifier": "after", "payload": {"aps": {"alert": "Hi", "category": "event-invite"}}}"#.utf8))))
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

    // MARK: Damage

    /// Delivers `count` notifications (n0, n1, …) in one burst, kills the
    /// server, and returns the journal segment that holds them.
    func stateHolding(_ count: Int, in state: String) throws -> String {
        let server = try start(state: state, log: "first.log")
        let client = try RPCClient(path: socket)
        _ = try client.call("categories.register", try JSON.parse(Array(Self.categories.utf8)))
        for number in 0..<count { client.send(Self.deliver("n\(number)", id: 10_000_000 + number)) }
        for number in 0..<count {
            #expect(try client.answer(to: .integer(Int64(10_000_000 + number)))["result"] != nil)
        }
        server.stop(with: SIGKILL)
        // The segment written to; beside it may be the next one, made ahead and empty.
        let segments = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasPrefix("server.journal.") }
            .map { state + "/" + $0 }
        let sizes = try segments.map { try #require(try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) }
        try #require(sizes.filter { $0 > 20 }.count == 1, "\(segments) \(sizes)")
        return segments[sizes.firstIndex { $0 > 20 }!]
    }

    /// Flips one bit of the byte at `offset` in the file at `path`.
    func flip(_ path: String, at offset: Int) throws {
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        try file.seek(toOffset: UInt64(offset))
        let byte = try #require(try file.read(upToCount: 1)?.first)
        try file.seek(toOffset: UInt64(offset))
        try file.write(contentsOf: [byte ^ 0x08])
        try file.close()
    }

    /// A byte flipped a quarter into a journal of 1,000 deliveries costs the
    /// record it is in, no more: reading resumes at the next whole record.
    /// What was lost is in `server.describe` and in the `state.repaired`
    /// event a subscriber gets, with the byte range.
    @Test func aFlippedByteLosesOnlyTheDamagedRecordAndSaysSo() throws {
        let state = directory.file("state")
        let journal = try stateHolding(1_000, in: state)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int)
        try flip(journal, at: size / 4)

        let server = try start(state: state, log: "second.log")
        defer { server.stop() }
        let client = try RPCClient(path: socket)
        let kept = try Self.delivered(client)
        #expect(kept.count >= 999, "\(1_000 - kept.count) lost")
        #expect(kept.isSubset(of: Set((0..<1_000).map { "n\($0)" })))
        let described = try #require(try client.call("server.describe")["state"])
        #expect(described["status"] == .string("ok"))
        let losses = described["losses"]?.arrayValue ?? []
        #expect(losses.count == 1)
        let range = losses.first?["ranges"]?.arrayValue?.first?.arrayValue?.compactMap(\.integerValue) ?? []
        #expect(range.count == 2 && range[0] <= Int64(size / 4) && Int64(size / 4) < range[1], "\(losses)")
        #expect(range.count == 2 && range[1] - range[0] < 1_000, "more than a record skipped: \(range)")
        let repaired = described["repaired"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(repaired == ["state.corrupt-journal", "state.rewritten"])

        _ = try client.call("events.subscribe")
        let event = try #require(try client.event("state.repaired"))
        #expect(event["losses"] == described["losses"])
        // Reported once: what was kept was written anew, and the next start finds whole files.
        server.stop(with: SIGKILL)
        let third = try start(state: state, log: "third.log")
        defer { third.stop() }
        let later = try RPCClient(path: socket)
        #expect(try Self.delivered(later) == kept)
        #expect(try later.call("server.describe")["state"]?["repaired"] == .array([]))
    }

    /// A byte flipped in the journal's header keeps every record after it.
    @Test func aFlippedHeaderByteKeepsEveryRecord() throws {
        let state = directory.file("state")
        let journal = try stateHolding(1_000, in: state)
        try flip(journal, at: 9)

        let server = try start(state: state, log: "second.log")
        defer { server.stop() }
        let client = try RPCClient(path: socket)
        #expect(try Self.delivered(client) == Set((0..<1_000).map { "n\($0)" }))
        let losses = try client.call("server.describe")["state"]?["losses"]?.arrayValue ?? []
        #expect(losses.count == 1)
        #expect(losses.first?["ranges"] == .array([.array([.integer(0), .integer(20)])]))
        #expect(losses.first?["recordsLost"] == .integer(0))
    }

    /// A state file that is not what it must be — a directory where a
    /// journal segment or the snapshot should be — stops the server with one
    /// line saying so (exit status 77, as every file Tidings keeps), before
    /// it says it listens, and leaves no socket behind.
    @Test(arguments: ["server.journal.0", "server.snapshot"])
    func aDirectoryWhereAStateFileShouldBeStopsTheServerBeforeListening(planted: String) throws {
        let state = directory.file("state")
        try FileManager.default.createDirectory(atPath: state + "/" + planted, withIntermediateDirectories: true)
        let result = try ProcessRunner.run(Locations.product("tidings"), [
            "serve", "--socket", socket, "--state", state, "--extensions", directory.file("extensions"),
        ], environment: ["HOME": directory.path, "NO_COLOR": "1"])
        #expect(result.status == 77, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(result.standardError)")
        #expect(lines.first?.contains(planted) == true && lines.first?.contains("not a regular file") == true)
        #expect(!result.standardError.contains("listening"))
        #expect(!FileManager.default.fileExists(atPath: socket))
    }
}
