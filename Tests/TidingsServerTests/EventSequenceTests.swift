import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsRegistry
@testable import TidingsServer

/// Event sequence numbers and resuming after one: every event carries `seq`,
/// larger than the last, across restarts; a subscription that resumes hears
/// exactly what it missed, then the events as they come; one too far behind
/// is told to re-list; filters by event name.
@Suite struct EventSequenceTests {
    static let app = "com.example.seq"
    let directory = TemporaryDirectory("event-sequence")

    /// A service over no bundles, recording in `state`, keeping `replayLimit` events for resuming.
    func service(state: (any ServerState)? = nil, replayLimit: Int = 1_000) -> HostService {
        var configuration = HostService.Configuration()
        configuration.eventReplayLimit = replayLimit
        configuration.host.attachmentDirectory = directory.file("attachments")
        return HostService(index: ExtensionIndex(searchPath: SearchPath(directories: [], origin: .option), bundles: []),
                           configuration: configuration, state: state)
    }

    /// Calls `method` of `service` with `params` (JSON text).
    func call(_ service: HostService, _ method: String, _ params: String,
              from receiver: any EventReceiver = EventRecorder()) throws -> Result<JSON, RPCError> {
        service.answer(RPCRequest(id: .number(1), method: method, params: try JSON.parse(Array(params.utf8))), from: receiver)
    }

    /// Publishes one `app.badge-changed` event: the badge set to `count`.
    func badge(_ service: HostService, _ count: Int) throws {
        _ = try call(service, "badge.set", #"{"app": "\#(Self.app)", "count": \#(count)}"#).get()
    }

    /// The `seq` of each event `recorder` heard of `method`.
    func seqs(_ recorder: EventRecorder, _ method: String = "app.badge-changed") -> [Int64] {
        recorder.events(method).compactMap { $0["seq"]?.integerValue }
    }

    @Test func everyEventCarriesALargerSeqAcrossARestart() throws {
        var before: [Int64] = []
        do {
            let service = service(state: try JournaledState(directory: directory.file("state")))
            let events = EventRecorder()
            _ = try call(service, "events.subscribe", "{}", from: events).get()
            for count in 1...3 { try badge(service, count) }
            before = seqs(events)
            #expect(before.count == 3 && before == before.sorted() && Set(before).count == 3)
        }
        // Killed: the numbers the block reserved are skipped, and who heard the last must re-list.
        var second: Int64 = 0
        do {
            let service = service(state: try JournaledState(directory: directory.file("state")))
            let events = EventRecorder()
            let subscribed = try call(service, "events.subscribe", #"{"after": \#(before.last!)}"#, from: events).get()
            #expect(subscribed["resumed"] == .bool(false), "the events of the last run are not kept")
            #expect(subscribed["reason"] == .string("server restarted: re-list") && subscribed["restarted"] == .bool(true),
                    "the answer says why: \(subscribed)")
            try badge(service, 9)
            second = try #require(seqs(events).first)
            #expect(second > before.last!, "a restart never gives a number again")
            // Stopped cleanly: the last number given is recorded.
            service.subscribers.settle()
        }
        let service = service(state: try JournaledState(directory: directory.file("state")))
        let events = EventRecorder()
        let subscribed = try call(service, "events.subscribe", #"{"after": \#(second)}"#, from: events).get()
        #expect(subscribed["resumed"] == .bool(true) && subscribed["missed"] == .integer(0),
                "a front end that heard the last event before a clean stop misses nothing")
        try badge(service, 10)
        #expect(seqs(events) == [second + 1])
    }

    @Test func theLastBlockReservedComesBackThroughAFold() throws {
        do {
            let state = try JournaledState(directory: directory.file("state"), foldThreshold: 2_000)
            try state.recordSequence(through: 3_000)
            for count in 0..<200 { try state.recordBadge(Int64(count), of: Self.app) }
            #expect(eventually { state.folds.count > 0 })
        }
        let kept = try JournaledState(directory: directory.file("state")).kept
        #expect(kept.eventSequence == 3_000)
        #expect(kept.diagnostics.isEmpty)
    }

    @Test func resumingHearsExactlyWhatWasMissedWhileEventsKeepComing() throws {
        let service = service()
        let first = EventRecorder()
        _ = try call(service, "events.subscribe", "{}", from: first).get()
        for count in 1...5 { try badge(service, count) }
        let last = try #require(seqs(first).last)
        _ = try call(service, "events.unsubscribe", "{}", from: first).get()
        for count in 6...10 { try badge(service, count) }

        // A front end resumes while another client keeps setting badges.
        let resumed = EventRecorder()
        let answer = Mutex<JSON>(.null)
        onThreads(2) { thread in
            if thread == 0 {
                for count in 11...60 { try? badge(service, count) }
            } else {
                answer.withLock { $0 = (try? call(service, "events.subscribe", #"{"after": \#(last)}"#, from: resumed).get()) ?? .null }
            }
        }
        try badge(service, 61)
        #expect(answer.withLock { $0["resumed"] } == .bool(true))
        let heard = seqs(resumed)
        // Every event is about the one app, so the numbers run on one by one: no gap, none twice.
        #expect(heard == Array((last + 1)...(last + 56)), "heard \(heard)")
        #expect(resumed.events("app.badge-changed").map { $0["badge"] } == (6...61).map { .integer(Int64($0)) })
    }

    @Test func aSubscriberTooFarBehindIsToldToReList() throws {
        let service = service(replayLimit: 3)
        let events = EventRecorder()
        _ = try call(service, "events.subscribe", "{}", from: events).get()
        for count in 1...10 { try badge(service, count) }
        let seqs = seqs(events)

        let behind = try call(service, "events.subscribe", #"{"after": \#(seqs[1])}"#, from: EventRecorder()).get()
        #expect(behind["resumed"] == .bool(false) && behind["reason"] == .string("too far behind: re-list"))
        #expect(behind["restarted"] == nil, "no restart lost them")
        #expect(behind["seq"] == .integer(seqs.last!), "the answer says where the stream is")

        let near = EventRecorder()
        let answer = try call(service, "events.subscribe", #"{"after": \#(seqs[6])}"#, from: near).get()
        #expect(answer["resumed"] == .bool(true) && answer["missed"] == .integer(3))
        #expect(self.seqs(near) == Array(seqs[7...]))

        let unknown = try call(service, "events.subscribe", #"{"after": \#(seqs.last! + 5)}"#, from: EventRecorder()).get()
        #expect(unknown["resumed"] == .bool(false), "a number this server never gave")
    }

    @Test func aSubscriberHearsOnlyTheEventsItNames() throws {
        let service = service()
        let events = EventRecorder()
        let answer = try call(service, "events.subscribe", #"{"events": ["authorization.changed"]}"#, from: events).get()
        #expect(answer["events"] == .array([.string("authorization.changed")]))
        try badge(service, 2)
        _ = try call(service, "authorization.decide", #"{"app": "\#(Self.app)", "decision": "deny"}"#).get()
        #expect(events.events("app.badge-changed").isEmpty)
        #expect(events.events("authorization.changed").count == 1)

        guard case .failure(let error) = try call(service, "events.subscribe", #"{"events": ["app.badge-changd"]}"#) else {
            Issue.record("an unknown event name was accepted")
            return
        }
        #expect(error.code == -32602 && error.message.contains("app.badge-changed"), "\(error.message)")
    }

    @Test func pingAnswersAtOnce() throws {
        let answer = try call(service(), "server.ping", "{}").get()
        #expect(answer["pong"] == .bool(true))
        #expect(answer["time"]?.stringValue?.hasSuffix("Z") == true)
    }

    @Test func describeSaysTheProtocolsVersionAndCapabilities() throws {
        let described = try call(service(), "server.describe", "{}").get()
        #expect(described["protocol"]?["version"] == .integer(2))
        let capabilities = described["protocol"]?["capabilities"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(capabilities).isSuperset(of: ["events.seq", "events.resume", "events.filter", "events.lagging", "server.ping"]))
        #expect(described["limits"]?["eventReplay"] == .integer(1_000))
    }
}
