import Synchronization
import TidingsABI
import TidingsBase

/// Issues the ABI's completion tokens and matches each completion call to
/// the response waiting for it.
///
/// Tokens are numbers, never reused. A completion that comes twice, late, or
/// with a token nobody issued changes nothing and is reported, never a crash.
package final class CompletionCenter: Sendable {
    /// The one center of the process: `complete_response` finds tokens here.
    package static let shared = CompletionCenter(remembering: 4096)

    /// How many finished tokens are remembered, to tell a late or repeated
    /// completion from a forged one.
    private let rememberedFinishedTokens: Int

    /// How a finished token ended.
    private enum Ending {
        case completed
        case expired
    }

    private struct Table {
        var next: UInt64 = 1
        var pending: [UInt64: PendingCompletion] = [:]
        var finished: [UInt64: (ending: Ending, report: @Sendable (Diagnostic) -> Void)] = [:]
        /// The finished tokens in the order they finished, as a ring once full.
        var finishedOrder: [UInt64] = []
        /// In a full ring, the slot of the oldest token: the next one to forget and overwrite.
        var oldest = 0
    }

    private let table = Mutex(Table())

    /// A center that remembers the last `count` finished tokens (at least one).
    package init(remembering count: Int) {
        rememberedFinishedTokens = max(1, count)
    }

    /// Opens a pending completion that must arrive before `deadline`
    /// (monotonic nanoseconds). `report` receives what goes wrong after it
    /// is finished (a late or repeated call).
    package func begin(deadline: UInt64, extensionIdentifier: String,
                       report: @escaping @Sendable (Diagnostic) -> Void) -> PendingCompletion {
        table.withLock { table in
            let pending = PendingCompletion(token: table.next, deadline: deadline,
                                            extensionIdentifier: extensionIdentifier, report: report)
            table.pending[table.next] = pending
            table.next += 1
            return pending
        }
    }

    /// The ABI's `complete_response`: records `option` for `token`. A token
    /// nobody issued only gets TIDINGS_STATUS_INVALID_COMPLETION back, as
    /// there is no response to report it on.
    package func complete(_ token: UInt64, option: Int32) -> tidings_status {
        enum Found {
            case pending(PendingCompletion)
            case finished(Ending, @Sendable (Diagnostic) -> Void)
            case unknown
        }
        let found: Found = table.withLock { table in
            if let pending = table.pending[token] { return .pending(pending) }
            if let finished = table.finished[token] { return .finished(finished.ending, finished.report) }
            return .unknown
        }
        switch found {
        case .pending(let pending):
            return pending.complete(option: option)
        case .finished(.completed, let report):
            report(.warning(.completionRepeated,
                            "A response's completion was called again after it had completed; the call was ignored."))
        case .finished(.expired, let report):
            report(.warning(.completionLate, "A response's completion arrived after its deadline; the call was ignored."))
        case .unknown:
            break
        }
        return TIDINGS_STATUS_INVALID_COMPLETION
    }

    /// Closes a pending completion: later calls with its token are reported.
    package func finish(_ pending: PendingCompletion) {
        let ending: Ending = pending.result == nil ? .expired : .completed
        table.withLock { table in
            table.pending[pending.token] = nil
            table.finished[pending.token] = (ending, pending.report)
            // A ring, not removeFirst(), which moved all 4,096 tokens on every response.
            if table.finishedOrder.count < rememberedFinishedTokens {
                table.finishedOrder.append(pending.token)
            } else {
                table.finished[table.finishedOrder[table.oldest]] = nil
                table.finishedOrder[table.oldest] = pending.token
                table.oldest = (table.oldest + 1) % rememberedFinishedTokens
            }
        }
    }
}

/// One response waiting for its extension's completion.
package final class PendingCompletion: Sendable {
    /// What the extension answered: Apple's option, or a value outside it.
    package enum Answer: Sendable, Equatable {
        case option(ResponseOption)
        case invalid(Int32)
    }

    /// The ABI's token for this response.
    package let token: UInt64
    /// Monotonic nanoseconds by which the completion must arrive.
    package let deadline: UInt64
    fileprivate let report: @Sendable (Diagnostic) -> Void
    private let extensionIdentifier: String

    /// What the lock guards.
    private struct State {
        /// The answer, once it has come in time.
        var answer: Answer?
        /// Problems seen while waiting.
        var extra: [Diagnostic] = []
        /// The gate a waiter waits at: made by the first wait that finds no
        /// answer yet, so that an extension that completes during the call
        /// costs no gate at all.
        var latch: Latch?
    }

    private let state = Mutex(State())

    fileprivate init(token: UInt64, deadline: UInt64, extensionIdentifier: String,
                     report: @escaping @Sendable (Diagnostic) -> Void) {
        self.token = token
        self.deadline = deadline
        self.extensionIdentifier = extensionIdentifier
        self.report = report
    }

    /// The answer, once it has come in time.
    package var result: Answer? { state.withLock { $0.answer } }

    /// Problems seen while waiting: a repeated call, a late one.
    package var problems: [Diagnostic] { state.withLock { $0.extra } }

    /// Waits for the completion until the deadline; nil when it did not come.
    package func wait() -> Answer? {
        let latch: Latch? = state.withLock { state in
            guard state.answer == nil else { return nil }
            if state.latch == nil { state.latch = Latch() }
            return state.latch
        }
        if let latch { _ = latch.wait(until: deadline) }
        return result
    }

    fileprivate func complete(option: Int32) -> tidings_status {
        let late = MonotonicClock.now() > deadline
        let (accepted, latch): (Bool, Latch?) = state.withLock { state in
            if state.answer != nil {
                state.extra.append(.warning(.completionRepeated,
                                            "\(extensionIdentifier) called a response's completion twice; the second call was ignored."))
                return (false, nil)
            }
            if late {
                state.extra.append(.warning(.completionLate,
                                            "\(extensionIdentifier) completed a response after its deadline; the call was ignored."))
                return (false, nil)
            }
            state.answer = ResponseOption(rawValue: option).map(Answer.option) ?? .invalid(option)
            return (true, state.latch)
        }
        latch?.open()
        return accepted ? TIDINGS_STATUS_OK : TIDINGS_STATUS_INVALID_COMPLETION
    }
}

extension Diagnostic.Code {
    /// The extension never completed a response before its deadline.
    package static let completionTimeout = Self("response.completion-timeout")
    /// A completion came after its deadline.
    package static let completionLate = Self("response.completion-late")
    /// A completion came twice.
    package static let completionRepeated = Self("response.completion-repeated")
    /// A completion's option is not doNotDismiss, dismiss or dismissAndForwardAction.
    package static let completionInvalidOption = Self("response.invalid-option")
}
