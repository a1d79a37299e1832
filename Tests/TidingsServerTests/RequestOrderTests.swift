import Foundation
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsServer

/// Requests on one connection that touch the same state are applied in the
/// order sent; the others still run at once. Before, a connection handed a
/// slow call's client to another reader after 2 ms, and a respond sent right
/// after its deliver overtook it: `-32001 No delivered notification has the
/// identifier`, 50 times of 50 with a 120 ms extension.
@Suite struct RequestOrderTests {
    let fixture = ServerFixture()

    /// How a client reaches the server.
    enum Transport: String, CaseIterable, Sendable, CustomStringConvertible {
        case socket = "on a socket"
        case standardIO = "on standard input and output"

        var description: String { rawValue }
    }

    init() throws {
        try fixture.installC("Ledger", identifier: LedgerFixture.identifier, categories: [LedgerFixture.category],
                             interface: LedgerFixture.interface)
    }

    /// Fifty notifications, each delivered to an extension that takes 120 ms
    /// and responded to in the very next line, every line sent at once: each
    /// respond is applied after its deliver, and reaches the instance that
    /// received the notification.
    @Test(arguments: Transport.allCases, IsolationMode.allCases)
    func aRespondSentRightAfterItsDeliverIsAppliedAfterIt(_ transport: Transport, _ isolation: IsolationMode) throws {
        let identifiers = (1...50).map { "n\($0)" }
        let lines = [LedgerRequests.register] + identifiers.flatMap { identifier in
            [LedgerRequests.deliver(identifier, userInfo: [("milliseconds", .string("120"))]),
             LedgerRequests.respond(identifier)]
        }
        var answers: [String: JSON] = [:]
        switch transport {
        case .standardIO:
            let result = try fixture.serveStandardIO(isolation, lines: lines)
            #expect(result.status == 0, "\(result.standardError)")
            for line in result.standardOutput.split(separator: "\n") {
                let answer = try JSON.parse(Array(line.utf8))
                if let id = answer["id"]?.stringValue { answers[id] = answer }
            }
        case .socket:
            let server = try fixture.startProcess(isolation)
            defer { server.stop() }
            let client = try fixture.client()
            for line in lines { client.send(line) }
            for id in ["register"] + identifiers.flatMap({ ["deliver \($0)", "respond \($0)"] }) {
                answers[id] = try client.answer(to: .string(id))
            }
        }
        #expect(answers.count == 101, "\(fixture.serveLog)")
        for identifier in identifiers {
            let delivered = answers["deliver \(identifier)"]?["result"]?["presentation"]
            #expect(LedgerRequests.label("received", in: delivered) == identifier,
                    "\(answers["deliver \(identifier)"] ?? .null)")
            let response = answers["respond \(identifier)"]
            #expect(response?["error"] == nil, "\(response ?? .null)")
            #expect(response?["result"]?["receiver"] == .string("extension"))
            #expect(response?["result"]?["option"] == .string("dismiss"))
            let seen = LedgerRequests.label("response", in: response?["result"]?["presentation"])
            #expect(seen?.hasPrefix("\(identifier) seen by ") == true, "\(seen ?? "no label")")
        }
    }

    /// While a delivery waits (its extension waits for a file the test makes
    /// only later), the same client's unrelated requests are answered — a
    /// describe, another delivery — and those that touch the waiting
    /// notification wait for it, in the order sent: its respond, then a list.
    @Test func unrelatedRequestsGoOnWhileASlowDeliveryRuns() throws {
        try fixture.start()
        let gate = fixture.directory.file("gate")
        let client = try fixture.client()
        client.send(LedgerRequests.register)
        client.send(LedgerRequests.deliver("slow", userInfo: [("gate", .string(gate))]))
        client.send(LedgerRequests.deliver("quick"))
        client.send(LedgerRequests.respond("slow"))
        client.send(LedgerRequests.call("server.describe"))
        client.send(LedgerRequests.call("notifications.list"))
        var order: [String] = []
        var answers: [String: JSON] = [:]
        /// Reads answers, in the order they come, until `ids` have all come.
        func read(until ids: Set<String>) throws {
            let deadline = MonotonicClock.deadline(after: patience)
            while !ids.isSubset(of: Set(order)), let line = try client.readLine(until: deadline) {
                let answer = try JSON.parse(Array(line.utf8))
                let id = answer["id"]?.stringValue ?? "?"
                order.append(id)
                answers[id] = answer
            }
        }
        // "deliver quick" may go to the interface "slow" opens (a thread-mate): it waits too.
        try read(until: ["register", "server.describe"])
        #expect(Set(order) == ["register", "server.describe"], "answered while the slow delivery waits: \(order)")
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        try read(until: ["deliver slow", "deliver quick", "respond slow", "notifications.list"])
        let after = Array(order.dropFirst(2))
        #expect(after.first == "deliver slow" && after.last == "notifications.list", "\(after)")
        #expect(Set(after.dropFirst().dropLast()) == ["deliver quick", "respond slow"], "\(after)")
        #expect(answers["respond slow"]?["result"]?["option"] == .string("dismiss"), "\(answers["respond slow"] ?? .null)")
        let listed = answers["notifications.list"]?["result"]?["notifications"]?.arrayValue?.compactMap { $0["notification"]?["identifier"]?.stringValue }
        #expect(listed == ["quick"], "the list comes after the response that closed \"slow\"")
    }

    /// Pairs of requests, in the order sent, and whether the second waits for the first.
    static let pairs: [(String, String, Bool)] = {
        let presentation = LedgerRequests.call("notifications.presentation", [("identifier", .string("n1"))])
        let unnamed = LedgerRequests.call("notifications.deliver", [("app", .string(LedgerFixture.app)),
                                                                     ("payload", .object([("aps", .object([]))]))])
        let removeTwo = LedgerRequests.call("notifications.remove",
                                            [("identifiers", .array([.string("n1"), .string("n2")]))])
        let removeApp = LedgerRequests.call("notifications.remove", [("app", .string(LedgerFixture.app))])
        return [
            (LedgerRequests.deliver("n1"), LedgerRequests.respond("n1"), true),
            (LedgerRequests.deliver("n1"), LedgerRequests.respond("n2"), false),
            (LedgerRequests.deliver("n1"), presentation, true),
            (presentation, presentation, false),
            (unnamed, unnamed, false),
            (unnamed, LedgerRequests.call("notifications.list"), true),
            (LedgerRequests.deliver("n1"), LedgerRequests.call("notifications.list"), true),
            (LedgerRequests.deliver("n1"), LedgerRequests.call("server.describe"), false),
            (LedgerRequests.register, LedgerRequests.deliver("n1"), true),
            (LedgerRequests.call("categories.list"), LedgerRequests.respond("n1"), false),
            (removeTwo, LedgerRequests.respond("n2"), true),
            (removeTwo, LedgerRequests.respond("n3"), false),
            (removeApp, presentation, true),
            (LedgerRequests.call("events.subscribe"), LedgerRequests.deliver("n1"), true),
            (LedgerRequests.call("events.subscribe"), LedgerRequests.call("server.describe"), false),
        ]
    }()

    /// Which requests are ordered, as `HostService.scope(of:)` says: those
    /// where one changes what the other reads or changes.
    @Test(arguments: pairs)
    func requestsAreOrderedWhenOneChangesWhatTheOtherTouches(_ first: String, _ second: String, _ ordered: Bool) {
        /// What the request on `line` touches.
        func scope(_ line: String) -> RequestScope {
            guard case .single(let request) = RPCMessage.read(Array(line.utf8)) else { return .nothing }
            return HostService.scope(of: request)
        }
        #expect(scope(first).conflicts(with: scope(second)) == ordered)
        #expect(scope(second).conflicts(with: scope(first)) == ordered)
    }
}
