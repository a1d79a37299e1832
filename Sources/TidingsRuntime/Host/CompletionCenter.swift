import Synchronization
import TidingsABI
import TidingsBase

/// Issues one host's completion tokens and matches each completion call to
/// what waits for it: a response's completion (`complete_response`) or a
/// service request's content handler (`complete_request`), and their `_for`
/// forms, which name the instance the token was given to.
///
/// Tokens are numbers of the host's directory slot, never reused. Whatever
/// a completion call does, it changes nothing beyond its own token and is
/// never a crash. The center alone decides what a call is (`PendingCompletion`):
/// - on time, of the right function, from the right instance: the answer;
/// - late (after the deadline, or after the host gave up waiting): reported
///   (`response.completion-late`), ignored, and no fault;
/// - misuse — a second call, an option outside Apple's three, the wrong
///   function (`complete_request` with a response's token or the reverse),
///   or naming another instance: reported, ignored (an undefined option is
///   taken as dismissAndForwardAction), and counted as one fault of the
///   extension however often the token is misused.
/// A token nobody issued gets TIDINGS_STATUS_INVALID_COMPLETION and nothing
/// else: there is nobody to report it on.
package final class CompletionCenter: Sendable {
    /// The directory slot its tokens carry.
    private let slot: HandleSlot
    /// The clock deadlines are set and judged by.
    package let clock: DeadlineClock
    /// How many finished tokens are remembered, to tell a late or repeated
    /// completion from a forged one.
    private let rememberedFinishedTokens: Int
    /// The one thread keeping the deadlines of completions waited for without a thread (`whenAnswered`).
    private let timer: DeadlineTimer
    /// Where what waits for a completion runs once it comes later, in the
    /// order they came, one queue per extension: never on the thread that
    /// completed it (an extension's, a worker's reader), which must not wait
    /// for it, and never behind another extension's (a hung worker's
    /// time-will-expire holds up only its own). Each queue's thread exists
    /// only while it has work.
    private let finishers = Mutex<[String: SerialQueue]>([:])

    private struct Table {
        var pending: [UInt64: PendingCompletion] = [:]
        var finished: [UInt64: PendingCompletion] = [:]
        /// The finished tokens in the order they finished, as a ring once full.
        var finishedOrder: [UInt64] = []
        /// In a full ring, the slot of the oldest token: the next one to forget and overwrite.
        var oldest = 0
    }

    private let table = Mutex(Table())

    /// A center whose tokens carry `slot`, judging deadlines by `clock`,
    /// remembering the last `count` finished tokens (at least one).
    package init(slot: HandleSlot, clock: DeadlineClock = .monotonic, remembering count: Int = 4096) {
        self.slot = slot
        self.clock = clock
        rememberedFinishedTokens = max(1, count)
        timer = DeadlineTimer(clock: clock)
    }

    /// Opens a pending completion of `kind`, given to the instance whose
    /// context handle is `context`, that must arrive before `deadline`
    /// (nanoseconds of the center's clock). `report` receives what goes
    /// wrong after the waiter is done (a late call, a misuse); `fault` counts
    /// a misuse of the token as a fault of the extension, once per token.
    package func begin(_ kind: PendingCompletion.Kind = .response, for context: UInt64, deadline: UInt64,
                       extensionIdentifier: String, report: @escaping @Sendable (Diagnostic) -> Void,
                       fault: @escaping @Sendable (Diagnostic) -> Void = { _ in }) -> PendingCompletion
    {
        let pending = PendingCompletion(kind: kind, token: slot.makeHandle(), context: context, deadline: deadline,
                                        clock: clock, timer: timer, finishers: finishers(of: extensionIdentifier),
                                        extensionIdentifier: extensionIdentifier, report: report, fault: fault)
        table.withLock { $0.pending[pending.token] = pending }
        return pending
    }

    /// The finishing queue of `extensionIdentifier`'s completions, made at its first.
    private func finishers(of extensionIdentifier: String) -> SerialQueue {
        finishers.withLock { queues in
            if let queue = queues[extensionIdentifier] { return queue }
            let queue = SerialQueue()
            queues[extensionIdentifier] = queue
            return queue
        }
    }

    /// The ABI's completion functions: hands `given` to the pending or
    /// finished completion of `token`, which judges it (see the type's
    /// summary); `context` is the instance a `_for` call named.
    package func complete(_ token: UInt64, with given: CompletionGiven, by context: UInt64?) -> tidings_status {
        let found = table.withLock { $0.pending[token] ?? $0.finished[token] }
        return found?.take(given, by: context, at: clock.now()) ?? TIDINGS_STATUS_INVALID_COMPLETION
    }

    /// Gives up on `token`'s completion, if it is pending: whoever owed it is
    /// gone (an extension, run elsewhere, that ended), so its waiter stops waiting now.
    package func abandon(_ token: UInt64) {
        table.withLock { $0.pending[token] }?.abandon()
    }

    /// Closes a pending completion: the waiter is done, and later calls with
    /// its token are reported as they come.
    package func finish(_ pending: PendingCompletion) {
        pending.close()
        table.withLock { table in
            table.pending[pending.token] = nil
            table.finished[pending.token] = pending
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

extension Diagnostic.Code {
    /// The extension never completed a response before its deadline.
    package static let completionTimeout = Self("response.completion-timeout")
    /// The extension ended (run elsewhere) before it completed a response.
    package static let completionAbandoned = Self("response.completion-abandoned")
    /// A completion came after its deadline: reported, never a fault.
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
