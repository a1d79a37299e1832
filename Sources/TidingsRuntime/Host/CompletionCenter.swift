import Synchronization
import TidingsABI
import TidingsBase

/// Issues one host's completion tokens and matches each completion call to
/// what waits for it: a response's completion (`complete_response`) or a
/// service request's content handler (`complete_request`), and their `_for`
/// forms, which name the instance the token was given to.
///
/// Tokens are numbers of the host's directory slot, never reused. A
/// completion that comes twice, late, through the wrong function, naming
/// another instance, or with a token nobody issued changes nothing and is
/// reported, never a crash.
package final class CompletionCenter: Sendable {
    /// The directory slot its tokens carry.
    private let slot: HandleSlot
    /// How many finished tokens are remembered, to tell a late or repeated
    /// completion from a forged one.
    private let rememberedFinishedTokens: Int

    /// How a finished token ended.
    private enum Ending {
        case completed
        case expired
    }

    /// What is remembered of a finished token.
    private struct Finished {
        var ending: Ending
        var kind: PendingCompletion.Kind
        var report: @Sendable (Diagnostic) -> Void
    }

    private struct Table {
        var pending: [UInt64: PendingCompletion] = [:]
        var finished: [UInt64: Finished] = [:]
        /// The finished tokens in the order they finished, as a ring once full.
        var finishedOrder: [UInt64] = []
        /// In a full ring, the slot of the oldest token: the next one to forget and overwrite.
        var oldest = 0
    }

    private let table = Mutex(Table())

    /// A center whose tokens carry `slot`, remembering the last `count`
    /// finished tokens (at least one).
    package init(slot: HandleSlot, remembering count: Int = 4096) {
        self.slot = slot
        rememberedFinishedTokens = max(1, count)
    }

    /// Opens a pending completion of `kind`, given to the instance whose
    /// context handle is `context`, that must arrive before `deadline`
    /// (monotonic nanoseconds). `report` receives what goes wrong after it
    /// is finished (a late or repeated call).
    package func begin(_ kind: PendingCompletion.Kind = .response, for context: UInt64, deadline: UInt64,
                       extensionIdentifier: String, report: @escaping @Sendable (Diagnostic) -> Void)
        -> PendingCompletion
    {
        let pending = PendingCompletion(kind: kind, token: slot.makeHandle(), context: context, deadline: deadline,
                                        extensionIdentifier: extensionIdentifier, report: report)
        table.withLock { $0.pending[pending.token] = pending }
        return pending
    }

    /// The ABI's completion functions: hands `given` to the pending
    /// completion of `token` when it is of the kind `given` completes and,
    /// for a call naming a context (`context`), was given to that context's
    /// instance; otherwise reports the misuse on the token's owner. A token
    /// nobody issued only gets TIDINGS_STATUS_INVALID_COMPLETION back, as
    /// there is nothing to report it on.
    package func complete(_ token: UInt64, with given: CompletionGiven, by context: UInt64?) -> tidings_status {
        let kind = given.kind
        enum Found {
            case pending(PendingCompletion)
            case finished(Finished)
            case unknown
        }
        let found: Found = table.withLock { table in
            if let pending = table.pending[token] { return .pending(pending) }
            if let finished = table.finished[token] { return .finished(finished) }
            return .unknown
        }
        switch found {
        case .pending(let pending) where context != nil && context != pending.context:
            pending.report(.warning(.completionWrongInstance,
                                    "\(kind.function)_for named an instance that \(pending.kind.noun) was not given to; the call was ignored."))
        case .pending(let pending) where pending.kind == kind:
            return pending.complete(given)
        case .pending(let pending):
            pending.report(.warning(.completionWrongKind,
                                    "\(kind.function) was called with the token of \(pending.kind.noun); the call was ignored."))
        case .finished(let finished):
            switch finished.ending {
            case .completed:
                finished.report(.warning(.completionRepeated,
                                         "\(finished.kind.noun.capitalizedFirst) was completed again after it had completed; the call was ignored."))
            case .expired:
                finished.report(.warning(.completionLate,
                                         "\(finished.kind.noun.capitalizedFirst) was completed after its deadline; the call was ignored."))
            }
        case .unknown:
            break
        }
        return TIDINGS_STATUS_INVALID_COMPLETION
    }

    /// Gives up on `token`'s completion, if it is pending: whoever owed it is
    /// gone (a worker process that ended), so its waiter stops waiting now.
    package func abandon(_ token: UInt64) {
        table.withLock { $0.pending[token] }?.abandon()
    }

    /// Closes a pending completion: later calls with its token are reported.
    package func finish(_ pending: PendingCompletion) {
        let ending: Ending = pending.result == nil ? .expired : .completed
        table.withLock { table in
            table.pending[pending.token] = nil
            table.finished[pending.token] = Finished(ending: ending, kind: pending.kind, report: pending.report)
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

/// One response or service request waiting for its extension's answer.
package final class PendingCompletion: Sendable {
    /// What is waited for.
    package enum Kind: Sendable, Equatable {
        /// A content extension's answer to a response (`complete_response`).
        case response
        /// A service extension's rewritten content (`complete_request`).
        case request

        /// "a response's completion", for messages.
        var noun: String {
            switch self {
            case .response: "a response's completion"
            case .request: "a service request's content handler"
            }
        }

        /// The host function that completes this kind.
        var function: String {
            switch self {
            case .response: "complete_response"
            case .request: "complete_request"
            }
        }
    }

    /// What the extension answered.
    package enum Answer: Sendable, Equatable {
        /// One of Apple's response options.
        case option(ResponseOption)
        /// A response option outside Apple's three.
        case invalid(Int32)
        /// A service extension's content; nil to show the original. Boxed
        /// (`indirect`), so that a response's answer, copied on every
        /// response, stays two words instead of a whole content.
        indirect case content(ServiceAnswer?)
    }

    package let kind: Kind
    /// The ABI's token.
    package let token: UInt64
    /// The context handle of the instance it was given to.
    package let context: UInt64
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
        /// A later end than the deadline, during a grace period; 0 when none.
        var graceUntil: UInt64 = 0
        /// Nothing will answer any more (the extension's worker process is gone): waits end at once.
        var abandoned = false
        /// The gate a waiter waits at: made by the first wait that finds no
        /// answer yet, so that an extension that completes during the call
        /// costs no gate at all.
        var latch: Latch?
    }

    private let state = Mutex(State())

    fileprivate init(kind: Kind, token: UInt64, context: UInt64, deadline: UInt64, extensionIdentifier: String,
                     report: @escaping @Sendable (Diagnostic) -> Void) {
        self.kind = kind
        self.token = token
        self.context = context
        self.deadline = deadline
        self.extensionIdentifier = extensionIdentifier
        self.report = report
    }

    /// The answer, once it has come in time.
    package var result: Answer? { state.withLock { $0.answer } }

    /// Problems seen while waiting: a repeated call, a late one.
    package var problems: [Diagnostic] { state.withLock { $0.extra } }

    /// True when the wait was given up because nothing could answer any more
    /// (the extension's worker process ended).
    package var isAbandoned: Bool { state.withLock { $0.abandoned } }

    /// Waits for the completion until the deadline; nil when it did not come.
    package func wait() -> Answer? {
        wait(until: deadline)
    }

    /// Waits for the completion until `instant` (monotonic nanoseconds), which
    /// may lie past the deadline: a service extension's grace period after
    /// time-will-expire. Nil when it did not come.
    package func wait(until instant: UInt64) -> Answer? {
        let latch: Latch? = state.withLock { state in
            guard state.answer == nil && !state.abandoned else { return nil }
            if state.latch == nil { state.latch = Latch() }
            return state.latch
        }
        if let latch { _ = latch.wait(until: instant) }
        return result
    }

    /// Gives up waiting: nothing can answer any more (the extension's worker
    /// process is gone). A wait under way ends now, as will later ones.
    package func abandon() {
        let latch: Latch? = state.withLock { state in
            state.abandoned = true
            return state.latch
        }
        latch?.open()
    }

    /// Lets a completion in until `instant` instead of the deadline (the grace
    /// period a service extension gets after time-will-expire).
    package func extend(until instant: UInt64) {
        state.withLock { $0.graceUntil = instant }
    }

    fileprivate func complete(_ given: CompletionGiven) -> tidings_status {
        let now = MonotonicClock.now()
        let (accepted, latch): (Bool, Latch?) = state.withLock { state in
            if state.answer != nil {
                state.extra.append(.warning(.completionRepeated,
                                            "\(extensionIdentifier) called \(kind.noun) twice; the second call was ignored."))
                return (false, nil)
            }
            if now > max(deadline, state.graceUntil) {
                state.extra.append(.warning(.completionLate,
                                            "\(extensionIdentifier) called \(kind.noun) after its deadline; the call was ignored."))
                return (false, nil)
            }
            switch given {
            case .option(let option): state.answer = ResponseOption(rawValue: option).map(Answer.option) ?? .invalid(option)
            case .content(let content): state.answer = .content(content)
            }
            return (true, state.latch)
        }
        latch?.open()
        return accepted ? TIDINGS_STATUS_OK : TIDINGS_STATUS_INVALID_COMPLETION
    }
}

private extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

extension Diagnostic.Code {
    /// The extension never completed a response before its deadline.
    package static let completionTimeout = Self("response.completion-timeout")
    /// The extension's worker ended before it completed a response.
    package static let completionAbandoned = Self("response.completion-abandoned")
    /// A completion came after its deadline.
    package static let completionLate = Self("response.completion-late")
    /// A completion came twice.
    package static let completionRepeated = Self("response.completion-repeated")
    /// A completion's option is not doNotDismiss, dismiss or dismissAndForwardAction.
    package static let completionInvalidOption = Self("response.invalid-option")
    /// complete_response was called with a request's token, or complete_request with a response's.
    package static let completionWrongKind = Self("response.completion-wrong-function")
    /// complete_response_for or complete_request_for named an instance the token was not given to.
    package static let completionWrongInstance = Self("response.completion-wrong-instance")
}

extension Diagnostic.Code {
    /// True for a completion never called, called twice, through the wrong
    /// function or with an invalid option: misuse that counts as a fault of
    /// the extension where faults are counted.
    package var isCompletionMisuse: Bool {
        self == .completionTimeout || self == .completionRepeated || self == .completionInvalidOption
            || self == .completionWrongKind
    }
}
