import Synchronization
import TidingsABI
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// The sink of an instance's host calls in a worker process: each call is
/// applied to the worker's copy of the instance's context — so that the
/// extension gets the status the host's would answer — and goes to the
/// host, whose context is the one that counts. Attachments are created and
/// opened by the host, which alone knows its store.
final class RelayingSink: HostCallSink {
    /// The instance's number, as the host names it.
    let id: UInt64
    /// The worker's copy of the context; what it reports is the host's to collect.
    let context: InstanceContext
    private let server: WorkerServer

    /// A sink for instance `id`, standing in front of `context`.
    init(id: UInt64, context: InstanceContext, server: WorkerServer) {
        self.id = id
        self.context = context
        self.server = server
        context.route(to: self)
    }

    func perform(_ call: HostCall) -> tidings_status {
        let status = context.perform(call)
        context.discardReports()
        switch status {
        case TIDINGS_STATUS_INVALID_CONTEXT:
            break
        case TIDINGS_STATUS_RATE_LIMITED:
            reportAbuse()
        default:
            server.outbox.send(.hostCall(instance: id, call: call))
        }
        return status
    }

    /// Answered from the worker's copy of the context, which has every
    /// action the extension set (each `set_actions` is applied here as at
    /// the host) and its category's, sent with each notification and
    /// response. What it refuses is reported to the host.
    func presentedActions() -> (status: tidings_status, actions: [NotificationAction]) {
        let presented = context.presentedActions()
        let refusals = context.drainReports { reports, _ in reports.diagnostics }
        for refusal in refusals { server.outbox.send(.report(refusal)) }
        if presented.status == TIDINGS_STATUS_RATE_LIMITED { reportAbuse() }
        return presented
    }

    /// Tells the host, once, that the extension called on through its rate
    /// limit's refusals: refused here as the host would refuse it, a storm
    /// that goes on is the host's to end. At once, not with the call's
    /// answer: a storm may go on long after.
    private func reportAbuse() {
        if context.isAbusive && !abuseReported.exchange(true, ordering: .relaxed) {
            try? server.outbox.sendNow(.report(.error(
                WorkerFault.Kind.abuse.code,
                "\(context.extensionIdentifier) went on calling host functions through its rate limit's refusals.")))
        }
    }

    /// The storm was reported to the host.
    private let abuseReported = Atomic<Bool>(false)

    func createAttachment(_ request: Result<AttachmentRequest, InstanceContext.RequestProblem>)
        -> InstanceContext.AttachmentCreation
    {
        context.createAttachment(request) { _, request in server.createAttachment(request, instance: id) }
    }

    func openAttachment(_ identifier: String) -> FileDescriptor? {
        server.openAttachment(identifier, instance: id)
    }
}
