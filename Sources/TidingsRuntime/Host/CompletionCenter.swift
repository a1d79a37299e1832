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
    /// order they came: never on the thread that completed it (an
    /// extension's, a worker's reader), which must not wait for it.
    private let finishers = SerialQueue()

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
                                        clock: clock, timer: timer, finishers: finishers,
                                        extensionIdentifier: extensionIdentifier, report: report, fault: fault)
        table.withLock { $0.pending[pending.token] = pending }
        return pending
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
    /// The instant (of `clock`) by which the completion must arrive.
    package let deadline: UInt64
    private let clock: DeadlineClock
    private let timer: DeadlineTimer
    private let finishers: SerialQueue
    private let report: @Sendable (Diagnostic) -> Void
    private let fault: @Sendable (Diagnostic) -> Void
    private let extensionIdentifier: String

    /// What the lock guards.
    private struct State {
        /// The answer, once it has come in time.
        var answer: Answer?
        /// Problems seen while waiting.
        var extra: [Diagnostic] = []
        /// A later end than the deadline, during a grace period; 0 when none.
        var graceUntil: UInt64 = 0
        /// Nothing will answer any more (the extension, run elsewhere, is gone): waits end at once.
        var abandoned = false
        /// The waiter is done (`CompletionCenter.finish`): problems are reported as they come.
        var closed = false
        /// A call came too late: it was the extension's completion, and another call is a second one.
        var calledLate = false
        /// The token was misused: it counts as a fault once, never again.
        var misused = false
        /// The misuse to count when the waiter is done: a fault counted
        /// while the response is under way could end the extension
        /// (the quarantine) in the middle of it.
        var uncounted: Diagnostic?
        /// The gate a waiter waits at: made by the first wait that finds no
        /// answer yet, so that an extension that completes during the call
        /// costs no gate at all.
        var latch: Latch?
        /// What waits without a thread (`whenAnswered`), until it is called.
        var waiter: Waiter?
    }

    /// A wait without a thread: what to call, and its deadline in the timer.
    private struct Waiter {
        let body: @Sendable (Answer?) -> Void
        let timer: UInt64
    }

    /// How a call was judged.
    private enum Verdict {
        /// The answer (an undefined option is a misuse, though taken).
        case accepted
        /// Reported, and no fault.
        case late(Diagnostic)
        /// Reported, and a fault the first time.
        case misuse(Diagnostic)
    }

    private let state = Mutex(State())

    fileprivate init(kind: Kind, token: UInt64, context: UInt64, deadline: UInt64, clock: DeadlineClock,
                     timer: DeadlineTimer, finishers: SerialQueue, extensionIdentifier: String,
                     report: @escaping @Sendable (Diagnostic) -> Void,
                     fault: @escaping @Sendable (Diagnostic) -> Void) {
        self.kind = kind
        self.token = token
        self.context = context
        self.deadline = deadline
        self.clock = clock
        self.timer = timer
        self.finishers = finishers
        self.extensionIdentifier = extensionIdentifier
        self.report = report
        self.fault = fault
    }

    /// The answer, once it has come in time.
    package var result: Answer? { state.withLock { $0.answer } }

    /// Problems seen while waiting: a late call, a misuse.
    package var problems: [Diagnostic] { state.withLock { $0.extra } }

    /// True when the wait was given up because nothing could answer any more
    /// (the extension, run elsewhere, ended).
    package var isAbandoned: Bool { state.withLock { $0.abandoned } }

    /// Waits for the completion until the deadline; nil when it did not come.
    package func wait() -> Answer? {
        wait(until: deadline)
    }

    /// Waits for the completion until `instant` (of the center's clock),
    /// which may lie past the deadline: a service extension's grace period
    /// after time-will-expire. Nil when it did not come.
    package func wait(until instant: UInt64) -> Answer? {
        let latch: Latch? = state.withLock { state in
            guard state.answer == nil && !state.abandoned else { return nil }
            if state.latch == nil { state.latch = Latch() }
            return state.latch
        }
        if let latch { _ = latch.wait(until: clock.systemInstant(at: instant)) }
        return result
    }

    /// Calls `body` once with the answer, or nil when none came by `instant`
    /// (the deadline when nil; a later one for a grace period) or the wait
    /// was given up (`abandon()`), holding no thread meanwhile.
    ///
    /// When the answer is there already (the extension completed during its
    /// call), the wait is over or the instant has passed, `body` runs at
    /// once on this thread; otherwise later, on the center's finishing
    /// thread (in the order the answers came), its deadline kept by the
    /// center's one timer. Call it once per completion.
    package func whenAnswered(until instant: UInt64? = nil, _ body: @escaping @Sendable (Answer?) -> Void) {
        let instant = instant ?? deadline
        let now: Answer?? = state.withLock { state in
            guard state.answer == nil && !state.abandoned && clock.now() < instant else { return .some(state.answer) }
            let number = timer.schedule(at: instant) { [weak self] in self?.expire() }
            state.waiter = Waiter(body: body, timer: number)
            return .none
        }
        if case .some(let answer) = now { body(answer) }
    }

    /// The deadline of a wait without a thread passed: it is called without an answer.
    private func expire() {
        let waiter = state.withLock { state in
            defer { state.waiter = nil }
            return state.waiter
        }
        guard let waiter else { return }
        let answer = result
        finishers.async { waiter.body(answer) }
    }

    /// Ends a wait without a thread with `answer`, taken out under the lock
    /// (nil when there was none): its deadline is cancelled, its body runs on the finishing thread.
    private func release(_ waiter: Waiter?, with answer: Answer?) {
        guard let waiter else { return }
        timer.cancel(waiter.timer)
        finishers.async { waiter.body(answer) }
    }

    /// Gives up waiting: nothing can answer any more (the extension, run
    /// elsewhere, is gone). A wait under way ends now, as will later ones.
    package func abandon() {
        let (latch, waiter): (Latch?, Waiter?) = state.withLock { state in
            state.abandoned = true
            defer { state.waiter = nil }
            return (state.latch, state.waiter)
        }
        latch?.open()
        release(waiter, with: result)
    }

    /// Lets a completion in until `instant` instead of the deadline (the grace
    /// period a service extension gets after time-will-expire).
    package func extend(until instant: UInt64) {
        state.withLock { $0.graceUntil = instant }
    }

    /// The waiter is done: a misuse seen meanwhile counts now, and what
    /// comes from now on is reported and counted as it comes.
    fileprivate func close() {
        let uncounted: Diagnostic? = state.withLock { state in
            state.closed = true
            defer { state.uncounted = nil }
            return state.uncounted
        }
        if let uncounted { fault(uncounted) }
    }

    /// Judges one completion call made at `now` (see `CompletionCenter`),
    /// naming the instance `context` when it is a `_for` call; returns what
    /// the extension is answered. Every problem is reported once, with the
    /// response while it is under way and on its own after; a token's first
    /// misuse is counted as a fault (when the waiter is done), outside the lock.
    fileprivate func take(_ given: CompletionGiven, by context: UInt64?, at now: UInt64) -> tidings_status {
        typealias Taken = (answered: Bool, latch: Latch?, waiter: Waiter?, problem: Diagnostic?, reportNow: Bool,
                           counts: Bool)
        let taken: Taken = state.withLock { state in
            let unanswered = state.answer == nil
            let verdict = judge(given, by: context, at: now, in: &state)
            let answered = unanswered && state.answer != nil
            let latch = answered ? state.latch : nil
            let waiter = answered ? state.waiter : nil
            if answered { state.waiter = nil }
            switch verdict {
            case .accepted:
                return (answered, latch, waiter, nil, false, false)
            case .late(let problem):
                if !state.closed { state.extra.append(problem) }
                return (answered, latch, waiter, problem, state.closed, false)
            case .misuse(let problem):
                let first = !state.misused
                state.misused = true
                guard state.closed else {
                    state.extra.append(problem)
                    if first { state.uncounted = problem }
                    return (answered, latch, waiter, problem, false, false)
                }
                return (answered, latch, waiter, problem, true, first)
            }
        }
        taken.latch?.open()
        release(taken.waiter, with: result)
        if let problem = taken.problem {
            if taken.reportNow { report(problem) }
            if taken.counts { fault(problem) }
        }
        // An undefined option is still the answer (taken as dismissAndForwardAction): OK, and reported.
        return taken.answered ? TIDINGS_STATUS_OK : TIDINGS_STATUS_INVALID_COMPLETION
    }

    /// What a call made at `now` is, the state changed as it says.
    private func judge(_ given: CompletionGiven, by caller: UInt64?, at now: UInt64, in state: inout State) -> Verdict {
        let name = extensionIdentifier
        if let caller, caller != context {
            return .misuse(.warning(.completionWrongInstance,
                                    "\(name) called \(given.kind.function)_for naming an instance that \(kind.noun) was not given to; the call was ignored."))
        }
        if given.kind != kind {
            return .misuse(.warning(.completionWrongKind,
                                    "\(name) called \(given.kind.function) with the token of \(kind.noun); the call was ignored."))
        }
        if state.answer != nil || state.calledLate {
            return .misuse(.warning(.completionRepeated,
                                    "\(name) called \(kind.noun) a second time; the call was ignored."))
        }
        if now > max(deadline, state.graceUntil) || state.closed {
            state.calledLate = true
            return .late(.warning(.completionLate,
                                  "\(name) called \(kind.noun) after its deadline; the call was ignored. A late completion is no fault."))
        }
        switch given {
        case .option(let option):
            guard let known = ResponseOption(rawValue: option) else {
                state.answer = .invalid(option)
                return .misuse(.error(.completionInvalidOption,
                                      "\(name) completed with option \(option), which is not 0, 1 or 2 (doNotDismiss, dismiss, dismissAndForwardAction); the notification is closed and the action forwarded to the app."))
            }
            state.answer = .option(known)
        case .content(let content):
            state.answer = .content(content)
        }
        return .accepted
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
