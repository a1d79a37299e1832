import Foundation
import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// `tidings serve` keeps the completion contract: a response waiting for its
/// extension's completion holds back no request on another notification,
/// even on the same connection; a completion after the deadline is heard as
/// `extension.late-completion` and is no fault; `server.describe` lists the
/// deadline, 120 s unless `--deadline` says otherwise. Against the
/// Misbehaving fixture, whose "hold" keeps a completion until "release".
@Suite struct CompletionServerTests {
    static let app = "com.example.tests"
    static let categories = #"{"app": "com.example.tests", "categories": [{"identifier": "misbehave", "actions": [{"identifier": "hold", "title": "Hold"}, {"identifier": "release", "title": "Release"}]}]}"#
    let fixture = ServerFixture()

    init() throws {
        // "hold" and "release" pass a completion between instances through the fixture's globals.
        try fixture.installC("Misbehaving", identifier: "com.example.tests.misbehaving", categories: ["misbehave"],
                             interface: ServerTests.misbehavingInterface, sharedWorker: true)
    }

    func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    /// Delivers `identifier`, in a thread of its own, through `client`.
    func deliver(_ identifier: String, _ client: RPCClient) throws {
        _ = try client.call("notifications.deliver", json(#"{"app": "com.example.tests", "open": true, "payload": {"identifier": "\#(identifier)", "content": {"title": "T", "categoryIdentifier": "misbehave", "threadIdentifier": "\#(identifier)"}}}"#))
    }

    /// The fixture's label "count" in `presentation`.
    func count(_ presentation: JSON?) -> String? {
        presentation?["view"]?["children"]?.arrayValue?.first?["text"]?.stringValue
    }

    /// Responds to `identifier` with `action`, without waiting for the answer; its id.
    func respond(_ identifier: String, _ action: String, _ client: RPCClient) throws -> JSON {
        client.request("notifications.respond", try json(#"{"identifier": "\#(identifier)", "action": "\#(action)"}"#))
    }

    @Test(arguments: IsolationMode.allCases)
    func aWaitingCompletionHoldsBackNoOtherNotification(_ isolation: IsolationMode) throws {
        let server = try fixture.startProcess(isolation)
        defer { server.stop(with: SIGKILL) }
        let client = try fixture.client()
        let watcher = try fixture.client()
        #expect(try client.call("server.describe")["limits"]?["responseDeadline"] == .double(120))
        _ = try client.call("categories.register", json(Self.categories))
        try deliver("slow", client)
        try deliver("other", client)
        let held = try respond("slow", "hold", client)
        // Another client sees the extension holding the completion: the response waits for it.
        try #require(try eventually {
            count(try watcher.call("notifications.presentation", json(#"{"identifier": "slow"}"#))) == "holding"
        }, "the extension never held the completion")
        // On the same connection, meanwhile: a delivery and a response on other notifications are answered.
        try deliver("third", client)
        #expect(!client.hasAnswer(to: held))
        let released = try client.call("notifications.respond", json(#"{"identifier": "other", "action": "release"}"#))
        #expect(count(released["presentation"]) == "released 0", "\(released)")
        // The release was the waiting response's completion, in time.
        let outcome = try client.result(of: held)
        #expect(outcome["option"] == .string("dismiss"), "\(outcome)")
        // Only what reopening its interface reported (the fixture's misuse of its view), nothing of the completion.
        #expect(outcome["diagnostics"]?.arrayValue?.allSatisfy { $0["severity"] == .string("warning") } == true, "\(outcome)")
        #expect(outcome["diagnostics"]?.arrayValue?.contains { $0["code"]?.stringValue?.hasPrefix("response.") == true } == false)
    }

    @Test(arguments: IsolationMode.allCases)
    func aLateCompletionIsHeardAsItsOwnEventAndIsNoFault(_ isolation: IsolationMode) throws {
        let server = try fixture.startProcess(isolation, options: ["--deadline", "0.2"])
        defer { server.stop(with: SIGKILL) }
        let client = try fixture.client()
        let subscriber = try fixture.client()
        _ = try subscriber.call("events.subscribe", .object([("apps", .array([.string(Self.app)]))]))
        #expect(try client.call("server.describe")["limits"]?["responseDeadline"] == .double(0.2))
        _ = try client.call("categories.register", json(Self.categories))
        try deliver("keeper", client)
        try deliver("late", client)
        let timedOut = try client.result(of: try respond("late", "hold", client))
        #expect(timedOut["diagnostics"]?.arrayValue?.map { $0["code"] } == [.string("response.completion-timeout")])
        #expect(timedOut["forwarded"]?.arrayValue?.count == 1, "dismissAndForwardAction applied")
        // The server's log says so, in one line.
        let said = fixture.serveLog.split(separator: "\n").filter { $0.contains("response.completion-timeout") }
        #expect(said.count == 1 && said.first?.contains("The response to late of \(Self.app) was not completed") == true,
                "\(fixture.serveLog)")
        let released = try client.result(of: try respond("keeper", "release", client))
        #expect(count(released["presentation"]) == "released 7", "\(released)")

        let event = try #require(try subscriber.event("extension.late-completion"))
        #expect(event["app"] == .string(Self.app))
        #expect(event["notification"] == .string("late"))
        #expect(event["extension"] == .string("com.example.tests.misbehaving"))
        #expect(event["diagnostic"]?["code"] == .string("response.completion-late"))
        #expect(event["diagnostic"]?["severity"] == .string("warning"))
        // No fault was counted: the fault ledger (which a worker's faults go to) holds nothing of it.
        let ledger = (try? String(contentsOfFile: fixture.directory.file(".local/state/tidings/faults.json"), encoding: .utf8)) ?? ""
        #expect(!ledger.contains("Misbehaving"), "\(ledger)")
    }
}
