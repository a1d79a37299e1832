import Testing
import TestSupport
import TidingsBase
@testable import TidingsIsolation

/// What the worker sends the host, and in how many datagrams: a completion
/// made during its call goes out with the call's `done` (one wake-up of the
/// host), one made on another thread at once.
struct OutboxTests {
    /// Both ends of a channel: the host's, and an outbox on the worker's.
    func ends() throws -> (host: WorkerChannel, outbox: Outbox) {
        let pair = try WorkerChannel.pair()
        let host = pair.host
        return (host, Outbox(channel: WorkerChannel(adopting: pair.takeWorker().take())))
    }

    @Test func aCompletionDuringItsCallGoesOutWithItsDone() throws {
        let (host, outbox) = try ends()
        outbox.beginCall()
        outbox.sendCompletion(.completeResponse(token: 7, instance: 1, option: 0))
        #expect(!host.hasInput)
        outbox.endCall(with: .done(call: 3, failure: nil))
        let received = try #require(try host.receive())
        guard case .batch(let parts) = try WorkerMessage(decoding: received.bytes) else {
            Issue.record("the completion and the done came apart")
            return
        }
        guard parts.count == 2, case .completeResponse(7, 1, 0) = parts[0], case .done(3, nil) = parts[1] else {
            Issue.record("not the completion, then the done: \(parts)")
            return
        }
        #expect(!host.hasInput)
    }

    @Test func aCompletionFromAnotherThreadGoesOutAtOnce() throws {
        let (host, outbox) = try ends()
        outbox.beginCall()
        let sent = Latch()
        #expect(Threads.start {
            outbox.sendCompletion(.completeResponse(token: 7, instance: nil, option: 1))
            sent.open()
        })
        #expect(sent.wait(until: MonotonicClock.deadline(after: patience)))
        let received = try #require(try host.receive())
        guard case .completeResponse(7, nil, 1) = try WorkerMessage(decoding: received.bytes) else {
            Issue.record("not the completion alone")
            return
        }
        outbox.endCall(with: .done(call: 3, failure: nil))
    }

    @Test func aHeldDoneGoesOutBeforeWhatFollows() throws {
        let (host, outbox) = try ends()
        outbox.beginCall()
        outbox.endCall(with: .done(call: 1, failure: nil), holding: true)
        #expect(!host.hasInput)
        outbox.beginCall()
        outbox.endCall(with: .done(call: 2, failure: nil))
        let received = try #require(try host.receive())
        guard case .batch(let parts) = try WorkerMessage(decoding: received.bytes), parts.count == 2,
              case .done(1, nil) = parts[0], case .done(2, nil) = parts[1] else {
            Issue.record("the two answers did not come together, in order")
            return
        }
    }
}
