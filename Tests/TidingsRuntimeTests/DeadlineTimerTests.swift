import RuntimeTestSupport
import Synchronization
import Testing
import TestSupport
import TidingsABI
import TidingsBase
import TidingsRuntime

/// The host's one deadline timer, and completions waited for without a
/// thread (`whenAnswered`): jobs run once their instant passes, in the order
/// of their instants, a cancelled one never; the answer, the deadline or
/// the abandonment calls a waiter exactly once. Time passes by a clock the
/// test moves forward.
@Suite struct DeadlineTimerTests {
    /// What ran, in order.
    final class Ran: Sendable {
        private let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    @Test func jobsRunInTheOrderOfTheirInstantsAndACancelledOneNever() {
        let time = TestClock()
        let clock = time.clock
        let timer = DeadlineTimer(clock: clock)
        let ran = Ran()
        _ = timer.schedule(at: clock.deadline(after: 30)) { ran.add("30") }
        _ = timer.schedule(at: clock.deadline(after: 10)) { ran.add("10") }
        let cancelled = timer.schedule(at: clock.deadline(after: 15)) { ran.add("15") }
        _ = timer.schedule(at: clock.deadline(after: 20)) { ran.add("20") }
        timer.cancel(cancelled)
        time.advance(seconds: 12)
        #expect(eventually { ran.all == ["10"] })
        time.advance(seconds: 100)
        #expect(eventually { ran.all == ["10", "20", "30"] })
        // A job due already runs at once.
        _ = timer.schedule(at: 0) { ran.add("now") }
        #expect(eventually { ran.all.last == "now" })
    }

    @Test func aWaiterIsCalledOnceWithTheAnswerTheDeadlineOrTheAbandonment() {
        let time = TestClock()
        let center = CompletionCenter(slot: HandleSlot(), clock: time.clock, remembering: 16)
        let answers = Mutex<[String: [PendingCompletion.Answer?]]>([:])
        func wait(_ name: String) -> PendingCompletion {
            let pending = center.begin(for: 1, deadline: time.clock.deadline(after: 60), extensionIdentifier: "test",
                                       report: { _ in })
            pending.whenAnswered { answer in answers.withLock { $0[name, default: []].append(answer) } }
            return pending
        }
        let answered = wait("answered")
        let abandoned = wait("abandoned")
        let expired = wait("expired")
        #expect(answers.withLock { $0.isEmpty })
        #expect(center.complete(answered.token, with: .option(TIDINGS_RESPONSE_DISMISS), by: nil) == TIDINGS_STATUS_OK)
        center.abandon(abandoned.token)
        #expect(eventually { answers.withLock { $0.count } == 2 })
        time.advance(seconds: 61)
        #expect(eventually { answers.withLock { $0.count } == 3 })
        // Nothing more comes: a completion after the deadline is late, and calls no waiter again.
        #expect(center.complete(expired.token, with: .option(TIDINGS_RESPONSE_DISMISS), by: nil) == TIDINGS_STATUS_INVALID_COMPLETION)
        for pending in [answered, abandoned, expired] { center.finish(pending) }
        let all = answers.withLock { $0 }
        #expect(all["answered"] == [.option(.dismiss)])
        #expect(all["abandoned"] == [nil])
        #expect(all["expired"] == [nil])
        // Answered before it is waited for: called at once, on this thread.
        let early = center.begin(for: 1, deadline: time.clock.deadline(after: 60), extensionIdentifier: "test",
                                 report: { _ in })
        #expect(center.complete(early.token, with: .option(TIDINGS_RESPONSE_DO_NOT_DISMISS), by: nil) == TIDINGS_STATUS_OK)
        let atOnce = Mutex<PendingCompletion.Answer??>(nil)
        early.whenAnswered { answer in atOnce.withLock { $0 = .some(answer) } }
        #expect(atOnce.withLock { $0 } == .some(.option(.doNotDismiss)))
        center.finish(early)
    }
}
