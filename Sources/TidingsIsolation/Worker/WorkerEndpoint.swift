import Synchronization
import TidingsABI
import TidingsBase
import TidingsRuntime

/// The worker process's side of the ABI: the contexts of its instances, the
/// table its extension is given, and the completion tokens it hands the
/// extension in place of the host's.
///
/// A token of the host's names the host's slot, which means nothing in this
/// process: the extension gets a token of this worker's own slot instead,
/// and its completion calls come here. Each is answered as the host's
/// center would answer it (OK the first time, in time, of the right kind,
/// from the instance it was given to; INVALID_COMPLETION otherwise) and is
/// sent on to the host with the host's token, which decides and reports misuse.
final class WorkerEndpoint: HandleOwner {
    /// The contexts of the worker's instances.
    let contexts: ContextRegistry
    /// The table the extension is given, saying what the host's says.
    let table: HostTable
    private let outbox: Outbox
    /// How many tokens are remembered.
    private static let remembered = 4096

    /// A token handed to the extension.
    private struct Given {
        /// The host's token it stands for.
        var hostToken: UInt64
        var kind: PendingCompletion.Kind
        var deadline: UInt64
        /// The context handle of the instance it was given to.
        var context: UInt64
        /// Completed once already.
        var completed = false
    }

    private struct Tokens {
        var given: [UInt64: Given] = [:]
        /// The tokens in the order they were given, as a ring once full.
        var order: [UInt64] = []
        /// In a full ring, the slot of the oldest token: the next to forget.
        var oldest = 0
    }

    private let tokens = Mutex(Tokens())

    /// The worker's side, whose extension is given `table` and whose
    /// completions go out through `outbox`.
    init(table: HostTable, outbox: Outbox) {
        contexts = ContextRegistry(slot: HandleSlot())
        self.table = table
        self.outbox = outbox
        HandleDirectory.shared.bind(contexts.slot, to: self)
    }

    /// The token to hand the extension for the host's `token`, which awaits
    /// a completion of `kind` before `deadline` (monotonic nanoseconds) from
    /// the instance whose context handle is `context`.
    func token(for hostToken: UInt64, kind: PendingCompletion.Kind, deadline: UInt64, context: UInt64) -> UInt64 {
        let token = contexts.slot.makeHandle()
        tokens.withLock { tokens in
            tokens.given[token] = Given(hostToken: hostToken, kind: kind, deadline: deadline, context: context)
            // A ring, not removeFirst(), which would move every token on each response.
            if tokens.order.count < Self.remembered {
                tokens.order.append(token)
            } else {
                tokens.given[tokens.order[tokens.oldest]] = nil
                tokens.order[tokens.oldest] = token
                tokens.oldest = (tokens.oldest + 1) % Self.remembered
            }
        }
        return token
    }

    func complete(_ token: UInt64, with given: CompletionGiven, by context: UInt64?) -> tidings_status {
        let now = MonotonicClock.now()
        let answered: (status: tidings_status, hostToken: UInt64)? = tokens.withLock { tokens in
            guard var handed = tokens.given[token] else { return nil }
            let accepted = !handed.completed && handed.kind == given.kind && now <= handed.deadline
                && (context == nil || context == handed.context)
            if accepted { handed.completed = true }
            tokens.given[token] = handed
            return (accepted ? TIDINGS_STATUS_OK : TIDINGS_STATUS_INVALID_COMPLETION, handed.hostToken)
        }
        // A token this worker never handed out stands for nothing of the host's.
        guard let answered else { return TIDINGS_STATUS_INVALID_COMPLETION }
        // The instance named, as the host knows it: 0 for a context that is no instance's.
        let instance = context.map { (contexts.sink($0) as? RelayingSink)?.id ?? 0 }
        switch given {
        case .option(let option):
            outbox.sendCompletion(.completeResponse(token: answered.hostToken, instance: instance, option: option))
        case .content(let answer):
            outbox.sendCompletion(.completeRequest(token: answered.hostToken, instance: instance, answer: answer))
        }
        return answered.status
    }
}
