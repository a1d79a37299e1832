import Testing
import TidingsBase
@testable import TidingsServer

/// Reading JSON-RPC 2.0 messages: what a request must be, and the error and
/// id each malformed one is answered with.
@Suite struct RPCMessageTests {
    func single(_ text: String) -> Result<RPCRequest, RPCFailure>? {
        guard case .single(let result) = RPCMessage.read(Array(text.utf8)) else { return nil }
        return result
    }

    func failure(_ text: String) -> RPCFailure? {
        guard case .failure(let failure)? = single(text) else { return nil }
        return failure
    }

    @Test func aRequestWithEachKindOfId() throws {
        for (text, id) in [(#""id": 7"#, RPCID.number(7)), (#""id": "a""#, .string("a")), (#""id": null"#, .null)] {
            let request = try #require(try? single(#"{"jsonrpc": "2.0", \#(text), "method": "m", "params": {"x": 1}}"#)?.get())
            #expect(request.id == id)
            #expect(request.method == "m")
            #expect(request.params?["x"] == .integer(1))
        }
    }

    /// JSON-RPC allows any number as an id: `1.0` and `1.5` are read, and answered as given.
    @Test func aFractionalIdIsAnsweredAsGiven() throws {
        for (text, value) in [("1.5", 1.5), ("1.0", 1.0), ("2e3", 2_000.0)] {
            let request = try #require(try? single(#"{"jsonrpc": "2.0", "id": \#(text), "method": "m"}"#)?.get())
            #expect(request.id == .fraction(value))
            let answer = try JSON.parse(Array(RPCReply.result(.null, id: try #require(request.id)).dropLast()))
            #expect(answer["id"] == .double(value), "\(text)")
        }
    }

    @Test func aClientsAnswerToTheServersRequestIsAResponse() throws {
        func response(_ text: String) -> RPCResponse? {
            guard case .response(let response) = RPCMessage.read(Array(text.utf8)) else { return nil }
            return response
        }
        let result = try #require(response(#"{"jsonrpc": "2.0", "id": "s1", "result": {"options": ["list"]}}"#))
        #expect(result.id == .string("s1"))
        #expect(try result.outcome.get()["options"] == .array([.string("list")]))
        let error = try #require(response(#"{"jsonrpc": "2.0", "id": 3, "error": {"code": -32000, "message": "no"}}"#))
        #expect(error.id == .number(3))
        #expect(throws: RPCError(-32000, "no")) { try error.outcome.get() }
        // With a method it is a request; without an id, or with a null one, it is no response.
        #expect(response(#"{"jsonrpc": "2.0", "id": "s1", "method": "m", "result": 1}"#) == nil)
        #expect(response(#"{"jsonrpc": "2.0", "result": 1}"#) == nil)
        #expect(response(#"{"jsonrpc": "2.0", "id": null, "error": {}}"#) == nil)
    }

    @Test func aNotificationHasNoId() throws {
        let request = try #require(try? single(#"{"jsonrpc": "2.0", "method": "m"}"#)?.get())
        #expect(request.id == nil)
        #expect(request.params == nil)
    }

    @Test(arguments: [
        (#"not json"#, -32700, RPCID.null),
        (#"[]"#, -32600, .null),
        (#"42"#, -32600, .null),
        (#"{"jsonrpc": "2.0", "id": true, "method": "m"}"#, -32600, .null),
        (#"{"jsonrpc": "1.0", "id": 3, "method": "m"}"#, -32600, .number(3)),
        (#"{"id": 3, "method": "m"}"#, -32600, .number(3)),
        (#"{"jsonrpc": "2.0", "id": "x", "method": ""}"#, -32600, .string("x")),
        (#"{"jsonrpc": "2.0", "id": "x", "method": 5}"#, -32600, .string("x")),
        (#"{"jsonrpc": "2.0", "id": 4, "method": "m", "params": "text"}"#, -32600, .number(4)),
        (#"{"jsonrpc": "2.0", "id": 4, "method": "m", "extra": true}"#, -32600, .number(4)),
    ])
    func aMalformedRequestGetsItsErrorUnderTheIdThatCouldBeRead(text: String, code: Int, id: RPCID) throws {
        let found = try #require(failure(text))
        #expect(found.error.code == code)
        #expect(found.id == id)
    }

    /// The envelope is read in one pass: a repeated member counts as first
    /// written, and the first member no request has is the one named.
    @Test func theFirstOfARepeatedMemberCountsAndTheFirstUnknownIsNamed() throws {
        guard case .single(let read) = RPCMessage.read(Array(#"{"jsonrpc": "2.0", "id": 1, "method": "a", "method": "b", "id": 2}"#.utf8))
        else { Issue.record("not a single request"); return }
        let request = try read.get()
        #expect(request.method == "a")
        #expect(request.id == .number(1))
        let found = try #require(failure(#"{"jsonrpc": "2.0", "id": 5, "method": "m", "result": 1, "extra": 2}"#))
        #expect(found.error.message == #""result" is not a member of a JSON-RPC 2.0 request."#)
        #expect(found.id == .number(5))
    }

    @Test func aBatchIsReadElementByElement() {
        guard case .batch(let requests) = RPCMessage.read(Array(#"[{"jsonrpc": "2.0", "id": 1, "method": "a"}, 5]"#.utf8))
        else {
            Issue.record("not a batch")
            return
        }
        #expect(requests.count == 2)
        #expect((try? requests[0].get())?.method == "a")
        guard case .failure(let failure) = requests[1] else {
            Issue.record("the second element was accepted")
            return
        }
        #expect(failure.error.code == -32600)
    }

    @Test func aReplyIsOneLine() {
        let line = RPCReply.result(.object([("text", .string("a\nb"))]), id: .string("7"))
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        #expect(String(decoding: line, as: UTF8.self) == #"{"jsonrpc":"2.0","id":"7","result":{"text":"a\nb"}}"# + "\n")
    }
}
