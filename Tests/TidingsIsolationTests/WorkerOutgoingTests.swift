import Testing
@testable import TidingsIsolation

/// What the host sends a worker, and in how many datagrams: an instance's
/// creation waits to go out with its first call (one wake-up of the worker
/// where there were two), never past a message that carries files or one
/// that would not fit with it.
struct WorkerOutgoingTests {
    typealias Outgoing = WorkerConnection.Outgoing

    let creation = WorkerMessage.create(call: 1, instance: 1, mayOverrideTitle: false, service: false, callRate: nil).encoded
    let call = WorkerMessage.mediaPlay(call: 2, instance: 1).encoded

    @Test func aCreationIsHeldAndGoesOutWithTheFirstCall() throws {
        let held = Outgoing(held: nil, posting: creation, files: [], holding: true)
        #expect(held.datagrams.isEmpty)
        #expect(held.held == creation)
        let sent = Outgoing(held: held.held, posting: call, files: [], holding: false)
        #expect(sent.held == nil)
        #expect(sent.datagrams.count == 1)
        guard case .batch(let parts) = try WorkerMessage(decoding: sent.datagrams[0].bytes), parts.count == 2,
              case .create(1, 1, false, false, nil) = parts[0], case .mediaPlay(2, 1) = parts[1] else {
            Issue.record("not the creation, then the call, in one batch")
            return
        }
    }

    @Test func aMessageWithFilesGoesOutAfterWhatWasHeldNotWithIt() {
        let sent = Outgoing(held: creation, posting: call, files: [7], holding: false)
        #expect(sent.datagrams == [.init(bytes: creation), .init(bytes: call, files: [7])])
        #expect(sent.held == nil)
    }

    @Test func aMessageTooLargeToShareADatagramGoesOutAfterWhatWasHeld() {
        let large = [UInt8](repeating: 6, count: WorkerChannel.maximumMessageSize - 8)
        let sent = Outgoing(held: creation, posting: large, files: [], holding: false)
        #expect(sent.datagrams == [.init(bytes: creation), .init(bytes: large)])
    }

    @Test func nothingIsHeldPastAnotherHeldMessage() throws {
        let sent = Outgoing(held: creation, posting: creation, files: [], holding: true)
        #expect(sent.held == nil)
        #expect(sent.datagrams.count == 1)
        guard case .batch(let parts) = try WorkerMessage(decoding: sent.datagrams[0].bytes), parts.count == 2 else {
            Issue.record("the two creations did not go out together")
            return
        }
    }

    @Test func aMessageNotHeldGoesOutAtOnce() {
        #expect(Outgoing(held: nil, posting: call, files: [], holding: false).datagrams == [.init(bytes: call)])
        #expect(Outgoing(held: nil, posting: creation, files: [3], holding: true).datagrams == [.init(bytes: creation, files: [3])])
    }
}
