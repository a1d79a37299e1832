import Synchronization
import TidingsABI
import TidingsBase

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
        /// What waits without a thread (`whenAnswered`), until it is called.
        var waiter: Waiter?
        /// The wait without a thread ended at its deadline: a call from now on is late.
        var gaveUp = false
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

    init(kind: Kind, token: UInt64, context: UInt64, deadline: UInt64, clock: DeadlineClock,
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
            if state.waiter != nil { state.gaveUp = true }
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
        let waiter: Waiter? = state.withLock { state in
            state.abandoned = true
            defer { state.waiter = nil }
            return state.waiter
        }
        release(waiter, with: result)
    }

    /// Lets a completion in until `instant` instead of the deadline (the grace
    /// period a service extension gets after time-will-expire).
    package func extend(until instant: UInt64) {
        state.withLock { state in
            state.graceUntil = instant
            state.gaveUp = false
        }
    }

    /// The waiter is done: a misuse seen meanwhile counts now, and what
    /// comes from now on is reported and counted as it comes.
    func close() {
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
    func take(_ given: CompletionGiven, by context: UInt64?, at now: UInt64) -> tidings_status {
        typealias Taken = (answered: Bool, waiter: Waiter?, problem: Diagnostic?, reportNow: Bool, counts: Bool)
        let taken: Taken = state.withLock { state in
            let unanswered = state.answer == nil
            let verdict = judge(given, by: context, at: now, in: &state)
            let answered = unanswered && state.answer != nil
            let waiter = answered ? state.waiter : nil
            if answered { state.waiter = nil }
            switch verdict {
            case .accepted:
                return (answered, waiter, nil, false, false)
            case .late(let problem):
                if !state.closed { state.extra.append(problem) }
                return (answered, waiter, problem, state.closed, false)
            case .misuse(let problem):
                let first = !state.misused
                state.misused = true
                guard state.closed else {
                    state.extra.append(problem)
                    if first { state.uncounted = problem }
                    return (answered, waiter, problem, false, false)
                }
                return (answered, waiter, problem, true, first)
            }
        }
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
        if now > max(deadline, state.graceUntil) || state.closed || state.gaveUp {
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
