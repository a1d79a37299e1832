import Glibc
import Testing
import TidingsBase
import TidingsProtocol
import TestSupport

/// The protocol's client against a scripted server: framing, ids, answers
/// among events, the server's requests, following events.
@Suite struct ProtocolClientTests {
    private var deadline: UInt64 { MonotonicClock.deadline(after: patience) }

    @Test func linesArriveInAnyPieces() throws {
        var input = RPCInput()
        let text = #"{"id":1,"result":"é"}"# + "\n" + #"{"method":"a","params":{}}"# + "\n" + #"{"id":2,"#
        for byte in Array(text.utf8) { input.append([byte]) }
        let first = try #require(try input.nextMessages())
        #expect(first == [.answer(id: .integer(1), try JSON.parse(Array(#"{"id":1,"result":"é"}"#.utf8)))])
        let second = try #require(try input.nextMessages())
        #expect(second.count == 1 && second.first?.params == .object([]))
        #expect(try input.nextMessages() == nil)
        input.append(Array(#""result":null}"#.utf8) + [UInt8(ascii: "\n")])
        #expect(try input.nextLine() == Array(#"{"id":2,"result":null}"#.utf8))
    }

    @Test func aBatchIsEachOfItsAnswers() throws {
        let messages = try ServerMessage.messages(in: Array(#"[{"id":1,"result":1},{"id":2,"error":{"code":-32601,"message":"no"}}]"#.utf8))
        #expect(messages.count == 2)
        #expect(messages[1].reply == .failure(RPCErrorReply(code: -32601, message: "no")))
    }

    @Test func aLineTooLongIsRefusedBeforeItEnds() {
        var input = RPCInput()
        input.append([UInt8](repeating: UInt8(ascii: "x"), count: RPCInput.lineLimit + 1))
        #expect(throws: RPCClientFailure.self) { try input.nextLine() }
    }

    @Test func requestsAreNumberedAndWrittenAsOneLineEach() throws {
        var output = RPCOutput()
        #expect(output.request(.serverPing, nil) == .integer(1))
        #expect(output.request(.inboxTake, .object([("app", .string("a\nb"))])) == .integer(2))
        let lines = output.take().split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == 2)
        #expect(try JSON.parse(Array(lines[1]))["method"] == .string("inbox.take"))
        #expect(output.pending.isEmpty)
    }

    @Test func idsAndNumbersAbove2To53AreExact() throws {
        let server = try ScriptedServer()
        let client = try BlockingRPCClient(path: server.path)
        server.accept()
        let big: Int64 = 9_007_199_254_740_993
        let id = try client.request(.serverPing, nil, id: .integer(big))
        let sent = try #require(try server.readMessage())
        #expect(sent["id"] == .integer(big))
        server.write(#"{"jsonrpc":"2.0","id":9007199254740993,"result":{"n":9223372036854775807}}"# + "\n")
        let result = try client.result(of: id, until: deadline)
        #expect(result["n"] == .integer(.max))
    }

    @Test func answersAmongEventsAndServerRequestsAreMatchedByID() throws {
        let server = try ScriptedServer()
        let client = try BlockingRPCClient(path: server.path)
        server.accept()
        let first = try client.request(.serverPing, nil)
        let second = try client.request(.serverDescribe, nil)
        #expect(try server.readMessage()?["id"] == .integer(1))
        #expect(try server.readMessage()?["id"] == .integer(2))
        // Out of order, among events and a request of the server's, the second answer cut in two.
        server.write(#"{"jsonrpc":"2.0","method":"notification.delivered","params":{"seq":1}}"# + "\n"
                     + #"{"jsonrpc":"2.0","id":2,"res"#)
        server.write(#"ult":"two"}"# + "\n" + #"{"jsonrpc":"2.0","id":"s1","method":"app.willPresent","params":{}}"# + "\n"
                     + #"{"jsonrpc":"2.0","method":"notification.dismissed","params":{"seq":2}}"# + "\n"
                     + #"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"gone","data":{"x":1}}}"# + "\n")
        #expect(throws: RPCCallFailure.self) { try client.result(of: first, until: deadline) }
        #expect(client.hasAnswer(to: second))
        #expect(try client.result(of: second, until: deadline) == .string("two"))
        #expect(client.events.map { $0["method"] } == [.string("notification.delivered"), .string("notification.dismissed")])
        let asked = try #require(try client.serverRequest("app.willPresent", until: deadline))
        try client.respond(to: try #require(asked["id"]), result: .object([("options", .array([]))]))
        let answer = try #require(try server.readMessage())
        #expect(answer["id"] == .string("s1") && answer["result"]?["options"] == .array([]))
        #expect(answer["method"] == nil)
    }

    @Test func anErrorOfTheServersIsTheAnswerWithItsData() throws {
        let server = try ScriptedServer()
        let client = try BlockingRPCClient(path: server.path)
        server.accept()
        let id = try client.request(.requestsAdd, .object([]))
        server.write(#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad","data":{"field":"x"}}}"# + "\n")
        do {
            _ = try client.result(of: id, until: deadline)
            Issue.record("an error answered as a result")
        } catch {
            guard case .answered(let reply) = error else {
                Issue.record("not the server's error: \(error)")
                return
            }
            #expect(reply == RPCErrorReply(code: -32602, message: "bad", data: .object([("field", .string("x"))])))
        }
    }

    @Test func theEndOfTheConnectionEndsAWait() throws {
        let server = try ScriptedServer()
        let client = try BlockingRPCClient(path: server.path)
        server.accept()
        let id = try client.request(.serverPing, nil)
        server.hangUp()
        #expect(throws: RPCCallFailure.self) { try client.result(of: id, until: deadline) }
    }

    @Test func thePolledConnectionHandsOnMessagesInOrder() throws {
        let server = try ScriptedServer()
        let connection = try PolledRPCConnection(path: server.path)
        server.accept()
        var handled: [String] = []
        connection.call(.serverPing) { handled.append("answer \(((try? $0.get()) ?? .null).serialized())") }
        #expect(connection.wantsToWrite && connection.callsWaiting == 1)
        try connection.flush()
        #expect(!connection.wantsToWrite)
        #expect(try server.readMessage()?["method"] == .string("server.ping"))
        server.write(#"{"jsonrpc":"2.0","method":"inbox.taken","params":{"seq":3}}"# + "\n"
                     + #"{"jsonrpc":"2.0","id":1,"result":true}"# + "\n" + #"{"jsonrpc":"2.0","id":"s1","method":"app.willPresent"}"# + "\n")
        while handled.count < 3 {
            var ready = pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, Int32(patience * 1000))
            let closed = try connection.receive { message in
                switch message {
                case .event(let method, _): handled.append("event \(method)")
                case .request(let id, let method, _):
                    handled.append("request \(method)")
                    connection.refuse(id, code: -32601, message: "no")
                case .answer: handled.append("an answer handed on")
                }
            }
            #expect(!closed)
        }
        #expect(handled == ["event inbox.taken", "answer true", "request app.willPresent"])
        try connection.flush()
        #expect(try server.readMessage()?["error"]?["code"] == .integer(-32601))
        server.hangUp()
        var ready = pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&ready, 1, Int32(patience * 1000))
        #expect(try connection.receive { _ in })
    }

    @Test func theAsyncConnectionSettlesCallsAndHandsOnTheRest() async throws {
        let server = try ScriptedServer()
        let connection = try AsyncRPCConnection(path: server.path)
        server.accept()
        async let answer = connection.call(.serverPing, nil)
        #expect(try server.readMessage()?["id"] == .integer(1))
        server.write(#"{"jsonrpc":"2.0","method":"request.fired","params":{"seq":9007199254740993}}"# + "\n"
                     + #"{"jsonrpc":"2.0","id":1,"result":{"id":9007199254740993}}"# + "\n")
        let result = try await answer
        #expect(result["id"] == .integer(9_007_199_254_740_993))
        var messages = connection.incoming.makeAsyncIterator()
        let event = try #require(await messages.next())
        #expect(event.params?["seq"] == .integer(9_007_199_254_740_993))
        let lost = Task { try await connection.call(.serverDescribe, nil) }
        #expect(try server.readMessage()?["method"] == .string("server.describe"))
        server.hangUp()
        guard case .failure(let failure) = await lost.result else {
            Issue.record("a call answered by a hang-up")
            return
        }
        #expect(failure is RPCCallFailure)
        #expect(await messages.next() == nil)
    }

    @Test func aSubscriptionResumesAfterTheLastEventHeard() {
        var subscription = EventSubscription(apps: .string("all"), events: [.notificationDelivered], replay: true)
        #expect(subscription.params["after"] == nil)
        subscription.lastSeq = 7
        #expect(subscription.params["after"] == .integer(7))
        #expect(subscription.params["events"] == .array([.string("notification.delivered")]))
        let resumed = subscription.subscribed(.object([("resumed", .bool(true)), ("seq", .integer(9)), ("missed", .integer(2))]))
        #expect(resumed.resumed && resumed.missed == 2 && subscription.lastSeq == 7)
        // A server that lost its numbering (fresh state) is followed from its own seq.
        let restarted = subscription.subscribed(.object([("resumed", .bool(false)), ("seq", .integer(3))]))
        #expect(!restarted.resumed && subscription.lastSeq == 3)
    }
}
