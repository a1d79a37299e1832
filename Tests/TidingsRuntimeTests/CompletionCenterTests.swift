import RuntimeTestSupport
import Foundation
import Synchronization
import Testing
import TidingsABI
import TidingsBase
import TidingsRuntime

/// Which finished completion tokens the center remembers, to tell a repeated
/// completion (reported) from an unknown one (not); and waiting, whether the
/// completion comes before the wait, during it, or never.
@Suite struct CompletionCenterTests {
    /// Counts the reports made after a completion finished.
    final class Reports: Sendable {
        private let count = Mutex(0)
        /// Adds one report.
        func add() { count.withLock { $0 += 1 } }
        /// The reports so far.
        var total: Int { count.withLock { $0 } }
    }

    /// Waits for `pending`'s answer (nil at its deadline) through `whenAnswered`.
    func answer(of pending: PendingCompletion) -> PendingCompletion.Answer? {
        let answer = Rendezvous<PendingCompletion.Answer?>()
        pending.whenAnswered { answer.give($0) }
        return answer.take()
    }

    @Test func remembersTheLastFinishedTokens() {
        // A center of its own, so that no other test's tokens are pushed out.
        let center = CompletionCenter(slot: HandleSlot(), remembering: 4096)
        let reports = Reports()
        var tokens: [UInt64] = []
        for _ in 0..<4097 {
            let pending = center.begin(for: 1, deadline: MonotonicClock.deadline(after: 60), extensionIdentifier: "test",
                                       report: { _ in reports.add() })
            #expect(center.complete(pending.token, with: .option(TIDINGS_RESPONSE_DO_NOT_DISMISS), by: nil) == TIDINGS_STATUS_OK)
            center.finish(pending)
            tokens.append(pending.token)
        }
        // The oldest is forgotten: a completion naming it is unknown, and reported nowhere.
        #expect(center.complete(tokens[0], with: .option(TIDINGS_RESPONSE_DISMISS), by: nil) == TIDINGS_STATUS_INVALID_COMPLETION)
        #expect(reports.total == 0)
        // Later ones are remembered: a repetition is reported.
        #expect(center.complete(tokens[100], with: .option(TIDINGS_RESPONSE_DISMISS), by: nil) == TIDINGS_STATUS_INVALID_COMPLETION)
        #expect(center.complete(tokens[4096], with: .option(TIDINGS_RESPONSE_DISMISS), by: nil) == TIDINGS_STATUS_INVALID_COMPLETION)
        #expect(reports.total == 2)
        // And the ring keeps turning: 4,096 more push those out too.
        for _ in 0..<4096 {
            let pending = center.begin(for: 1, deadline: MonotonicClock.deadline(after: 60), extensionIdentifier: "test",
                                       report: { _ in })
            center.finish(pending)
        }
        #expect(center.complete(tokens[4096], with: .option(TIDINGS_RESPONSE_DISMISS), by: nil) == TIDINGS_STATUS_INVALID_COMPLETION)
        #expect(reports.total == 2)
    }

    @Test func aCompletionBeforeTheWaitIsTheAnswer() {
        let center = CompletionCenter(slot: HandleSlot(), remembering: 16)
        let pending = center.begin(for: 1, deadline: MonotonicClock.deadline(after: 60), extensionIdentifier: "test", report: { _ in })
        #expect(center.complete(pending.token, with: .option(TIDINGS_RESPONSE_DISMISS), by: nil) == TIDINGS_STATUS_OK)
        #expect(answer(of: pending) == .option(.dismiss))
        center.finish(pending)
    }

    @Test func aCompletionFromAnotherThreadEndsTheWait() {
        let center = CompletionCenter(slot: HandleSlot(), remembering: 16)
        for option in [TIDINGS_RESPONSE_DO_NOT_DISMISS, TIDINGS_RESPONSE_DISMISS_AND_FORWARD_ACTION, 7] {
            let pending = center.begin(for: 1, deadline: MonotonicClock.deadline(after: 60), extensionIdentifier: "test",
                                       report: { _ in })
            let status = Mutex<tidings_status?>(nil)
            let token = pending.token
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.05)
                status.withLock { $0 = center.complete(token, with: .option(option), by: nil) }
            }
            // The completion's answer, not the 60 s deadline's timeout: the completion ended the wait.
            let expected: PendingCompletion.Answer = ResponseOption(rawValue: option).map { .option($0) } ?? .invalid(option)
            #expect(answer(of: pending) == expected)
            #expect(status.withLock { $0 } == TIDINGS_STATUS_OK)
            center.finish(pending)
        }
    }

    @Test func aWaitWithoutCompletionEndsAtTheDeadline() {
        let center = CompletionCenter(slot: HandleSlot(), remembering: 16)
        let pending = center.begin(for: 1, deadline: MonotonicClock.deadline(after: 0.05), extensionIdentifier: "test",
                                   report: { _ in })
        #expect(answer(of: pending) == nil)
        #expect(MonotonicClock.now() >= pending.deadline)
        #expect(center.complete(pending.token, with: .option(TIDINGS_RESPONSE_DISMISS), by: nil) == TIDINGS_STATUS_INVALID_COMPLETION)
        #expect(pending.problems.map(\.code) == [.completionLate])
        center.finish(pending)
    }
}
