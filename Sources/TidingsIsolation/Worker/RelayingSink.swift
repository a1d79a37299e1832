import Synchronization
import TidingsABI
import TidingsBase
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
            // Refused here as the host would refuse it; a storm that goes on is the host's to end.
            // At once, not with the call's answer: a storm may go on long after.
            if context.isAbusive && !abuseReported.exchange(true, ordering: .relaxed) {
                try? server.outbox.sendNow(.report(.error(
                    WorkerFault.Kind.abuse.code,
                    "\(context.extensionIdentifier) went on calling host functions through its rate limit's refusals.")))
            }
        default:
            server.outbox.send(.hostCall(instance: id, call: call))
        }
        return status
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
