import Testing
import ServerTestSupport
import TestSupport
import TidingsBase
import TidingsServer

/// Resuming over the real server: a front end that lost its connection
/// reconnects, gives the last `seq` it heard, and hears what it missed
/// before its subscription is answered, then what comes.
@Suite struct EventSequenceServerTests {
    let fixture = ServerFixture()
    static let app = "com.example.resume"

    func badge(_ client: RPCClient, _ count: Int) throws {
        _ = try client.call("badge.set", .object([("app", .string(Self.app)), ("count", .integer(Int64(count)))]))
    }

    @Test func aFrontEndThatReconnectsHearsWhatItMissedAndNothingTwice() throws {
        let server = try fixture.start()
        let other = try fixture.client()
        var last: Int64 = 0
        do {
            let frontEnd = try fixture.client()
            _ = try frontEnd.call("events.subscribe", .object([("events", .array([.string("app.badge-changed")]))]))
            try badge(other, 1)
            last = try #require(try frontEnd.event("app.badge-changed")?["seq"]?.integerValue)
        }
        #expect(eventually { server.clientCount == 1 }, "the front end's connection ended")
        for count in 2...4 { try badge(other, count) }

        let frontEnd = try fixture.client()
        let answer = try frontEnd.call("events.subscribe", .object([
            ("events", .array([.string("app.badge-changed")])), ("after", .integer(last)),
        ]))
        #expect(answer["resumed"] == .bool(true) && answer["missed"] == .integer(3))
        // Pushed before the answer: already read.
        #expect(frontEnd.events.map { $0["params"]?["badge"] } == [.integer(2), .integer(3), .integer(4)])
        #expect(frontEnd.events.map { $0["params"]?["seq"] } == [.integer(last + 1), .integer(last + 2), .integer(last + 3)])
        // Then what comes: pushed before the call that made it is answered, so read by the front end's next answer.
        try badge(other, 5)
        _ = try frontEnd.call("server.ping")
        #expect(frontEnd.events.map { $0["params"]?["seq"] } == (1...4).map { .integer(last + $0) })
    }

    @Test func aFractionalIdIsAnsweredAsGiven() throws {
        try fixture.start()
        let client = try fixture.client()
        let answer = try client.answer(to: client.request("server.ping", id: .double(1.5)))
        #expect(answer["id"] == .double(1.5) && answer["result"]?["pong"] == .bool(true))
    }
}
