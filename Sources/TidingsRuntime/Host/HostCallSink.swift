import TidingsABI
import TidingsBase
import TidingsProtocol

/// Where the host functions an extension calls on one instance go: the
/// ABI's context handle names a sink (in its issuer's `ContextRegistry`), and the C
/// functions only read their arguments and hand them here.
///
/// In the host, an instance's `InstanceContext` is its own sink: it applies
/// each call to the state the runtime reads. Where the extension runs
/// elsewhere, another implementation may stand behind the handle (the
/// isolation layer forwards calls from another process to its host), so
/// that the host functions themselves never need to know where they run.
package protocol HostCallSink: AnyObject, Sendable {
    /// Carries out `call` and returns the status the ABI answers.
    func perform(_ call: HostCall) -> tidings_status

    /// `create_attachment`: the request as read from C (or why it could not
    /// be read), checked, and its file taken into the store.
    func createAttachment(_ request: Result<AttachmentRequest, InstanceContext.RequestProblem>)
        -> InstanceContext.AttachmentCreation

    /// `open_attachment`: a new read-only descriptor of the attachment
    /// `identifier` of what the instance serves now; nil when there is none.
    func openAttachment(_ identifier: String) -> FileDescriptor?

    /// `get_actions`: the actions shown with the notification now (those
    /// the extension set, else its category's), or the status refusing the
    /// call with no actions.
    func presentedActions() -> (status: tidings_status, actions: [NotificationAction])
}
