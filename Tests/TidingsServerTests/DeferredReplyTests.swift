import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsRegistry
import TidingsRuntime
@testable import TidingsServer

/// `HostService.answer(_:from:reply:)`: `notifications.respond` returns as
/// soon as the extension's handler has been called and replies once, later,
/// when its completion comes (the Misbehaving fixture's "hold" keeps it
/// until another response's "release"); other methods reply at once.
@Suite struct DeferredReplyTests {
    /// A receiver that hears nothing, for calls that push nothing.
    final class Deaf: EventReceiver {
        func push(_ line: [UInt8]) -> Bool { true }
    }

    let fixture = ServerFixture()

    init() throws {
        try fixture.installC("Misbehaving", identifier: "com.example.tests.misbehaving", categories: ["misbehave"],
                             interface: ServerTests.misbehavingInterface)
    }

    func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    @Test func aRespondWaitingForItsCompletionRepliesOnceWhenItComes() throws {
        let index = Discovery.scan(SearchPath(directories: [fixture.directory.file("extensions")], origin: .option))
        let service = HostService(index: index)
        let client = Deaf()
        func call(_ method: String, _ params: String) throws -> Result<JSON, RPCError> {
            service.answer(RPCRequest(id: .number(1), method: method, params: try json(params)), from: client)
        }
        _ = try call("categories.register", #"{"app": "com.example.tests", "categories": [{"identifier": "misbehave", "actions": [{"identifier": "hold", "title": "Hold"}, {"identifier": "release", "title": "Release"}]}]}"#)
        for identifier in ["slow", "other"] {
            _ = try call("notifications.deliver", #"{"app": "com.example.tests", "payload": {"identifier": "\#(identifier)", "content": {"title": "T", "categoryIdentifier": "misbehave", "threadIdentifier": "\#(identifier)"}}}"#)
        }
        let replies = Mutex<[Result<JSON, RPCError>]>([])
        let request = RPCRequest(id: .number(2), method: "notifications.respond",
                                 params: try json(#"{"identifier": "slow", "action": "hold"}"#))
        service.answer(request, from: client) { reply in replies.withLock { $0.append(reply) } }
        // Returned with no reply: the response waits for its completion, and no thread waits with it.
        #expect(replies.withLock { $0.isEmpty })
        let slow = try call("notifications.presentation", #"{"identifier": "slow"}"#).get()
        #expect(slow["view"]?["children"]?.arrayValue?.first?["text"] == .string("holding"), "\(slow)")
        let released = try call("notifications.respond", #"{"identifier": "other", "action": "release"}"#).get()
        #expect(released["presentation"]?["view"]?["children"]?.arrayValue?.first?["text"] == .string("released 0"))
        #expect(eventually { replies.withLock { $0.count } == 1 })
        let outcome = try #require(replies.withLock { $0.first }).get()
        #expect(outcome["option"] == .string("dismiss"), "\(outcome)")
        #expect(outcome["receiver"] == .string("extension"))
        #expect(replies.withLock { $0.count } == 1)
        // A refusal replies at once too.
        let refused = try call("notifications.respond", #"{"identifier": "missing", "action": "hold"}"#)
        guard case .failure(let error) = refused else { return #expect(Bool(false), "\(refused)") }
        #expect(error.code == RPCError.unknownNotification("missing").code)
    }
}
