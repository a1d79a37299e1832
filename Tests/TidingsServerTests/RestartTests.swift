import Foundation
import Glibc
import Testing
import ServerTestSupport
import TestSupport
import TidingsBase

/// `tidings serve` as a process that dies: killed with SIGKILL in the middle
/// of a burst of deliveries, it comes back with its categories and every
/// delivery it acknowledged; a torn journal is cut, never read as garbage.
/// Stopped with SIGTERM under load, a subscriber hears every acknowledged
/// delivery and resumes after the restart; after a kill it is told the
/// server restarted.
@Suite struct RestartTests {
    let directory = TemporaryDirectory("restart")
    var socket: String { directory.file("run/tidings.sock") }
    static let categories = #"{"app": "com.example.events", "categories": [{"identifier": "event-invite", "actions": [{"identifier": "accept", "title": "Accept"}]}]}"#

    init() throws {
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        try BundleMaker.installSample("EventInvite", in: directory.file("extensions"))
    }

    func start(_ log: String, _ options: [String] = []) throws -> BackgroundProcess {
        try? FileManager.default.removeItem(atPath: socket)
        let server = try BackgroundProcess(Locations.product("tidings"), [
            "serve", "--socket", socket, "--state", directory.file("state"), "--extensions", directory.file("extensions"),
        ] + options, environment: ["HOME": directory.path, "NO_COLOR": "1"], log: directory.file(log))
        try #require(BackgroundProcess.wait(forListener: socket), "the server did not start")
        return server
    }

    func log(_ name: String) -> String { (try? String(contentsOfFile: directory.file(name), encoding: .utf8)) ?? "" }

    /// The journal segment records are appended to: the newest that holds
    /// any (the next one may be there already, made ahead and empty).
    func newestSegment() throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.file("state"))
        let holding = try names.compactMap { name -> UInt64? in
            guard name.hasPrefix("server.journal."), let generation = UInt64(name.dropFirst(15)) else { return nil }
            let size = try FileManager.default.attributesOfItem(atPath: directory.file("state/\(name)"))[.size] as? Int
            return (size ?? 0) > 20 ? generation : nil
        }
        return directory.file("state/server.journal.\(try #require(holding.max()))")
    }

    func deliverRequest(_ number: Int) -> String {
        #"{"jsonrpc": "2.0", "id": \#(number), "method": "notifications.deliver", "params": {"app": "com.example.events", "identifier": "burst-\#(number)", "payload": {"aps": {"alert": {"title": "Invite \#(number)", "body": "Come"}, "category": "event-invite"}, "title": "Offsite \#(number)"}}}"#
    }

    func deliveredIdentifiers(_ client: RPCClient) throws -> Set<String> {
        let listed = try client.listAll(limit: 1_000)
        return Set(listed.compactMap { $0["notification"]?["identifier"]?.stringValue })
    }

    @Test func killedDuringABurstItComesBackWithEveryAcknowledgedDelivery() throws {
        let first = try start("first.log")
        let client = try RPCClient(path: socket)
        _ = try client.call("categories.register", try JSON.parse(Array(Self.categories.utf8)))
        // One thread sends a burst; this one reads acknowledgements until the server is killed.
        let total = 1_500
        let requests = (1...total).map(deliverRequest)
        let sender = Thread { [socket = client.socket] in
            for request in requests {
                let bytes = Array((request + "\n").utf8)
                var sent = 0
                while sent < bytes.count {
                    let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard count > 0 else { return }
                    sent += count
                }
            }
        }
        sender.start()
        var acknowledged: Set<String> = []
        let deadline = MonotonicClock.deadline(after: patience)
        while acknowledged.count < 300 && MonotonicClock.now() < deadline {
            let number = acknowledged.count + 1
            let answer = try client.answer(to: .integer(Int64(number)))
            #expect(answer["result"]?["presentation"]?["extension"] == .string("com.example.events.invite"))
            acknowledged.insert("burst-\(number)")
        }
        first.stop(with: SIGKILL)
        try #require(acknowledged.count == 300, "only \(acknowledged.count) acknowledged")

        let second = try start("second.log")
        defer { second.stop() }
        let again = try RPCClient(path: socket)
        let kept = try deliveredIdentifiers(again)
        #expect(acknowledged.isSubset(of: kept), "lost: \(acknowledged.subtracting(kept).sorted().prefix(5))")
        #expect(kept.allSatisfy { $0.hasPrefix("burst-") })
        let categories = try again.call("categories.list")["apps"]?.arrayValue?.first?["categories"]?.arrayValue ?? []
        #expect(categories.compactMap { $0["identifier"]?.stringValue } == ["event-invite"])
        #expect(log("second.log").contains("delivered notifications and the categories of 1 apps kept"))

        // A kept notification reaches its content extension again before its first response.
        let outcome = try again.call("notifications.respond", .object([("identifier", .string("burst-1")),
                                                                       ("action", .string("accept"))]))
        #expect(outcome["receiver"] == .string("extension"))
        #expect(outcome["option"] == .string("dismiss"))
        #expect(try deliveredIdentifiers(again).contains("burst-1") == false)
    }

    @Test func whatExpiredStaysExpiredAfterARestart() throws {
        let first = try start("first.log", ["--keep", "3"])
        let client = try RPCClient(path: socket)
        for number in 1...5 { _ = try client.result(of: client.request("notifications.deliver", try JSON.parse(Array(
            #"{"app": "com.example.events", "identifier": "n\#(number)", "payload": {"aps": {"alert": "Hi", "category": "event-invite"}}}"#.utf8)))) }
        first.stop(with: SIGKILL)

        let second = try start("second.log", ["--keep", "3"])
        #expect(try deliveredIdentifiers(RPCClient(path: socket)) == ["n3", "n4", "n5"])
        second.stop(with: SIGKILL)
        // A smaller limit expires the oldest as the server starts, for good.
        let third = try start("third.log", ["--keep", "2"])
        #expect(try deliveredIdentifiers(RPCClient(path: socket)) == ["n4", "n5"])
        third.stop(with: SIGKILL)
        let fourth = try start("fourth.log", ["--keep", "5"])
        defer { fourth.stop() }
        #expect(try deliveredIdentifiers(RPCClient(path: socket)) == ["n4", "n5"])
    }

    @Test func aTornJournalIsCutAndWhatCameBeforeServes() throws {
        let first = try start("first.log")
        let client = try RPCClient(path: socket)
        _ = try client.call("categories.register", try JSON.parse(Array(Self.categories.utf8)))
        for number in 1...5 { _ = try client.result(of: client.request("notifications.deliver", try JSON.parse(Array(
            #"{"app": "com.example.events", "identifier": "n\#(number)", "payload": {"aps": {"alert": "Hi", "category": "event-invite"}}}"#.utf8)))) }
        first.stop(with: SIGKILL)
        // A crash in the middle of writing a record: a length that promises more than follows.
        let journal = try #require(FileHandle(forWritingAtPath: newestSegment()))
        try journal.seekToEnd()
        try journal.write(contentsOf: Data([0x00, 0x10, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef]) + Data("{\"delivered\"".utf8))
        try journal.close()

        let second = try start("second.log")
        defer { second.stop() }
        let again = try RPCClient(path: socket)
        #expect(try deliveredIdentifiers(again) == Set((1...5).map { "n\($0)" }))
        #expect(log("second.log").contains("state.torn-journal"), "\(log("second.log"))")
    }

    // MARK: Resuming across restarts

    /// What a delivering client had acknowledged, and what a subscriber heard.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var acknowledged: Set<String> = []
        private var stopped: String?

        func acknowledge(_ identifier: String) { lock.withLock { _ = acknowledged.insert(identifier) } }
        var all: Set<String> { lock.withLock { acknowledged } }
        /// Why a client stopped delivering.
        var stop: String? {
            get { lock.withLock { stopped } }
            set { lock.withLock { stopped = newValue } }
        }
    }

    /// Delivers one notification after another on a connection of its own
    /// until the server closes it, noting each one acknowledged.
    func deliver(round: Int, client number: Int, into tally: Tally) -> Thread {
        Thread { [socket] in
            do {
                let client = try RPCClient(path: socket)
                for delivery in 1... {
                    let identifier = "r\(round)-c\(number)-\(delivery)"
                    let params: JSON = .object([("app", .string("com.example.events")), ("identifier", .string(identifier)),
                                                ("payload", .object([("aps", .object([("alert", .string("Hi"))]))]))])
                    _ = try client.call("notifications.deliver", params)
                    tally.acknowledge(identifier)
                }
            } catch {
                tally.stop = "\(error)"
            }
        }
    }

    /// The events `lines` hold: each `notification.delivered` identifier, and the largest `seq`.
    func heard(_ events: [JSON]) -> (delivered: Set<String>, last: Int64?) {
        let delivered = events.filter { $0["method"] == .string("notification.delivered") }
            .compactMap { $0["params"]?["notification"]?["identifier"]?.stringValue }
        return (Set(delivered), events.compactMap { $0["params"]?["seq"]?.integerValue }.max())
    }

    @Test func aSubscriberResumesAfterEveryCleanStopUnderLoad() throws {
        var after: Int64?
        for round in 1...20 {
            let server = try start("round-\(round).log")
            defer { server.stop(with: SIGKILL) }
            let subscriber = try RPCClient(path: socket)
            let subscribed = try subscriber.call("events.subscribe", after.map { .object([("after", .integer($0))]) } ?? .object([]))
            if after != nil {
                #expect(subscribed["resumed"] == .bool(true), "round \(round): \(subscribed)")
            }
            var events = subscriber.events
            let tally = Tally()
            let clients = (1...2).map { deliver(round: round, client: $0, into: tally) }
            for client in clients { client.start() }
            try #require(eventually { tally.all.count >= 20 }, "round \(round): nothing delivered: \(tally.stop ?? "")")

            kill(server.identifier, SIGTERM)
            // The subscriber hears every event until the server closes its connection.
            while let line = try? subscriber.readLine(until: MonotonicClock.deadline(after: patience)) {
                events.append(try JSON.parse(Array(line.utf8)))
            }
            #expect(server.waitUntilExit(), "round \(round): still running: \(log("round-\(round).log"))")
            #expect(server.ending?.status == 0, "round \(round): \(String(describing: server.ending))")
            let (delivered, last) = heard(events)
            let unheard = tally.all.subtracting(delivered)
            #expect(unheard.isEmpty, "round \(round): \(unheard.count) acknowledged deliveries unheard, such as \(unheard.sorted().prefix(3))")
            after = last ?? subscribed["seq"]?.integerValue
        }

        // Killed: the events after the last heard may have gone with it, and the answer says why.
        let killed = try start("killed.log")
        let client = try RPCClient(path: socket)
        _ = try client.call("notifications.deliver", .object([("app", .string("com.example.events")), ("identifier", .string("last")),
                                                               ("payload", .object([("aps", .object([("alert", .string("Hi"))]))]))]))
        let last = try #require(try client.call("events.subscribe")["seq"]?.integerValue)
        killed.stop(with: SIGKILL)
        let restarted = try start("restarted.log")
        defer { restarted.stop() }
        let answer = try RPCClient(path: socket).call("events.subscribe", .object([("after", .integer(last))]))
        #expect(answer["resumed"] == .bool(false) && answer["restarted"] == .bool(true), "\(answer)")
        #expect(answer["reason"] == .string("server restarted: re-list"))
    }
}
