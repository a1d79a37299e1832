import Glibc
import Synchronization
import TidingsABI
import TidingsBase
import TidingsRegistry
import TidingsRuntime
import TidingsSystemShims

/// What a worker writes on its channel, as the host takes it: each message
/// checked against what the host gave that worker, charged to a budget, and
/// applied (host calls, completions, attachment requests on the bounded queue).
extension WorkerConnection {
    /// Applies one message of the worker's, checked against what the host
    /// gave the worker and charged to a budget (see the type's summary).
    func handle(_ message: WorkerMessage, files: WorkerChannel.Message, inBatch: Bool = false) {
        switch message {
        case let .done(call, failure):
            let (slot, killedFor, name) = state.withLock { ($0.waiting.removeValue(forKey: call), $0.killedFor, $0.current) }
            // A call not in flight is answered by nothing: the message names nothing of the worker's.
            guard let slot else { return _ = chargeStray() }
            // A call during which the host ended the worker (for a storm, say) failed, whatever the worker said.
            if let killedFor {
                slot.fulfil(.failure(WorkerFault.killed(for: killedFor, extensionName: extensionName, call: name).diagnostic))
            } else {
                slot.fulfil(failure.map { .failure($0) } ?? .success(()))
            }
        case let .hostCall(instance, call):
            guard let context = state.withLock({ $0.contexts[instance] }) else { return _ = chargeStray() }
            if context.perform(call) == TIDINGS_STATUS_RATE_LIMITED && context.isAbusive { terminate(for: .abuse) }
        case let .completeResponse(token, instance, option):
            complete(token, with: .option(option), by: instance)
        case let .completeRequest(token, instance, answer):
            complete(token, with: .content(answer), by: instance)
        case let .createAttachment(instance, request) where !inBatch:
            createAttachment(request, for: instance, files: files)
        case let .openAttachment(instance, identifier) where !inBatch:
            openAttachment(identifier, for: instance, files: files)
        case let .attachmentLeftInPlace(instance, identifier, reason):
            guard let context = state.withLock({ $0.contexts[instance] }),
                  context.leftInPlace(identifier, reason: String(reason.prefix(256)))
            else { return _ = chargeStray() }
        case .report(let diagnostic) where diagnostic.code == .workerStackOverflow:
            state.withLock { $0.overflowedStack = true }
        case .report(let diagnostic) where diagnostic.code == .workerOutOfMemory:
            state.withLock { $0.ranOutOfMemory = true }
        case .report(let diagnostic) where diagnostic.code == .workerCPUTime:
            state.withLock { $0.usedUpCPUTime = true }
        case .report(let diagnostic) where diagnostic.code == WorkerFault.Kind.abuse.code:
            terminate(for: .abuse)
        case .report(let diagnostic):
            guard chargeStray(), let line = reports.relay(diagnostic, now: MonotonicClock.now()) else { return }
            onReport(line)
        case .batch(let messages) where !inBatch:
            for message in messages { handle(message, files: files, inBatch: true) }
        default:
            terminate(for: .protocol)
        }
    }

    /// Charges a message that names nothing of the worker's (or a report)
    /// to the connection's budget: true when it may be taken; a flood ends
    /// the worker (`abuse`).
    func chargeStray() -> Bool {
        let verdict = state.withLock { $0.budget.charge(now: MonotonicClock.now()) }
        if verdict == .flood { terminate(for: .abuse) }
        return verdict == .allowed
    }

    /// A completion of the worker's extension, of a token the host gave this
    /// worker (others change nothing, and are charged as naming nothing of
    /// the worker's), naming `instance` or none: to the host's center,
    /// naming that instance's context.
    func complete(_ token: UInt64, with given: CompletionGiven, by instance: UInt64?) {
        let (allowed, context) = state.withLock { state in
            // An instance the worker does not have names no context: 0, which no token was given to.
            (state.tokens.contains(token), instance.map { state.contexts[$0]?.handle ?? 0 })
        }
        guard allowed else { return _ = chargeStray() }
        _ = host.completions.complete(token, with: given, by: context)
    }

    /// Whether an attachment request of `instance` may go to the queue: the
    /// instance is the worker's and its budget allows the call (charged as
    /// the host function is); nil when it may, else the status to answer.
    /// A request for no instance of the worker's is charged to the connection.
    func admitAttachmentRequest(of context: InstanceContext?) -> tidings_status? {
        guard let context else {
            _ = chargeStray()
            return TIDINGS_STATUS_INVALID_CONTEXT
        }
        guard let refusal = context.admitRelayedCall() else { return nil }
        if context.isAbusive { terminate(for: .abuse) }
        return refusal
    }

    /// Queues `job` on the attachment queue; a request beyond its capacity
    /// is refused (answered with `refusal`) and counted: a flood of them
    /// ends the worker (`abuse`).
    func enqueue(_ job: @escaping @Sendable () -> Void, refusal: WorkerMessage, files: WorkerChannel.Message) {
        guard !attachmentQueue.submit(job) else { return }
        let verdict = state.withLock { $0.budget.refuseQueued(now: MonotonicClock.now()) }
        if verdict == .flood { terminate(for: .abuse) }
        Self.answer(refusal, on: files)
    }

    /// Sends `answer` (with `with` beside it) on the reply socket that came
    /// last with the worker's request, without waiting: a worker that does
    /// not read its reply socket only loses its answer.
    static func answer(_ answer: WorkerMessage, on files: WorkerChannel.Message, with attached: [Int32] = []) {
        guard let reply = files.takeFile(at: files.fileCount - 1) else { return }
        let channel = WorkerChannel(adopting: reply.take())
        try? channel.send(answer.encoded, files: attached, timeout: 0)
    }

    /// A service extension's `create_attachment`: the file the worker opened
    /// is checked and copied into the store on the attachment queue (it
    /// takes a while; other messages need not wait); the answer goes back on
    /// the socket that came with it.
    func createAttachment(_ request: AttachmentRequest, for instance: UInt64, files: WorkerChannel.Message) {
        guard files.fileCount == 2 else { return terminate(for: .protocol) }
        let context = state.withLock { $0.contexts[instance] }
        if let refusal = admitAttachmentRequest(of: context) {
            return Self.answer(.attachmentMade(.failed(status: refusal)), on: files)
        }
        guard let context, context.attachments != nil else {
            // Only a service extension may make attachments: refused as the host function refuses it.
            return Self.answer(.attachmentMade(.failed(status: TIDINGS_STATUS_NOT_SUPPORTED)), on: files)
        }
        enqueue({
            let result: AttachmentResult
            if let file = files.takeFile(at: 0) {
                switch context.createAttachment(.success(request), using: {
                    $0.create($1, opened: file,
                              removedBy: "it came open from the extension's worker process, which removes it from its place")
                }) {
                case .made(let admission):
                    result = .made(identifier: admission.attachment.identifier, type: admission.attachment.type,
                                   size: admission.attachment.size)
                case .failed(let failure):
                    result = .refused(code: failure.code.rawValue)
                case .refused(let status):
                    result = .failed(status: status)
                }
            } else {
                result = .failed(status: TIDINGS_STATUS_INVALID_ARGUMENT)
            }
            Self.answer(.attachmentMade(result), on: files)
        }, refusal: .attachmentMade(.failed(status: TIDINGS_STATUS_RATE_LIMITED)), files: files)
    }

    /// An extension's `open_attachment`, on the attachment queue: the host
    /// opens the store's file of the instance's attachment and sends back a
    /// read-only descriptor of its sealed copy (`SealedCopies`), which names
    /// nothing: the worker never learns where the store is.
    func openAttachment(_ identifier: String, for instance: UInt64, files: WorkerChannel.Message) {
        guard files.fileCount == 1 else { return terminate(for: .protocol) }
        let context = state.withLock { $0.contexts[instance] }
        guard admitAttachmentRequest(of: context) == nil, let context else {
            return Self.answer(.attachmentOpened(found: false), on: files)
        }
        let copies = self.copies
        enqueue({
            if let stored = context.openAttachment(identifier), let copy = copies.open(stored) {
                Self.answer(.attachmentOpened(found: true), on: files, with: [copy.rawValue])
            } else {
                Self.answer(.attachmentOpened(found: false), on: files)
            }
        }, refusal: .attachmentOpened(found: false), files: files)
    }
}
