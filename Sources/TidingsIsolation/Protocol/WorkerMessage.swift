import TidingsBase
import TidingsRuntime

/// A message between the host and a worker process: what the host asks of
/// the extension the worker runs, and what the extension does meanwhile
/// (host functions, completions, attachments), in the order it happens.
///
/// One message per datagram of a `SOCK_SEQPACKET` socket pair; file
/// descriptors travel beside it (`SCM_RIGHTS`). Everything a worker sends
/// is hostile input to the host: it is decoded with bounds, and what it
/// names (instances, tokens, attachments) is checked against what the host
/// gave that worker.
package enum WorkerMessage: Sendable, Equatable {
    // Host → worker.

    /// The first message: the protocol version, the bundle to serve, and the
    /// sandbox the worker puts itself in before it loads the library.
    case hello(version: UInt32, bundle: String, sandbox: WorkerSandboxSettings)
    /// Make instance `instance` (answered with `done`), whose host calls may come at `callRate`.
    case create(call: UInt64, instance: UInt64, mayOverrideTitle: Bool, service: Bool, callRate: CallRate?)
    /// `didReceive(_:)`. Attachments come without paths: the extension opens them through the host.
    case receiveNotification(call: UInt64, instance: UInt64, notification: UserNotification)
    /// `didReceive(_:completionHandler:)` with the host's completion token,
    /// which must be completed before `deadline` (monotonic nanoseconds).
    case receiveResponse(call: UInt64, instance: UInt64, notification: UserNotification, response: ResponseRequest,
                         token: UInt64, deadline: UInt64)
    /// A service extension's `didReceive(_:withContentHandler:)`.
    case receiveRequest(call: UInt64, instance: UInt64, request: UserNotification, token: UInt64, deadline: UInt64)
    /// `serviceExtensionTimeWillExpire()`, run beside a `did_receive_request` that may still run.
    case timeWillExpire(call: UInt64, instance: UInt64)
    case mediaPlay(call: UInt64, instance: UInt64)
    case mediaPause(call: UInt64, instance: UInt64)
    case destroy(call: UInt64, instance: UInt64)
    /// The answer to `createAttachment`, sent on the reply socket that came with it.
    case attachmentMade(AttachmentResult)
    /// The answer to `openAttachment`, on its reply socket; the file comes beside it when `found`.
    case attachmentOpened(found: Bool)

    // Worker → host.

    /// The answer to `hello`: the library loaded, what it handles, and the
    /// sandbox layers the worker put itself under.
    case ready(handlesResponses: Bool, handlesMedia: Bool, sandbox: [SandboxLayer])
    /// The answer to `hello` when the library could not be loaded.
    case launchFailed(Diagnostic)
    /// A call returned; `failure` when it could not be made (no instance, say).
    case done(call: UInt64, failure: Diagnostic?)
    /// The extension called a host function on instance `instance`.
    case hostCall(instance: UInt64, call: HostCall)
    /// The extension called `complete_response` with the host's token.
    case completeResponse(token: UInt64, option: Int32)
    /// The extension called `complete_request` (nil content: show the original).
    case completeRequest(token: UInt64, answer: ServiceAnswer?)
    /// The extension asked to attach a file. Two descriptors come beside the
    /// message: the file, which the worker opened, and a socket for the answer
    /// (so that any thread of the extension may wait for it).
    case createAttachment(instance: UInt64, attachment: AttachmentRequest)
    /// The extension asked to open an attachment of instance `instance`; a
    /// socket for the answer comes beside the message.
    case openAttachment(instance: UInt64, identifier: String)
    /// Something the worker noticed outside any instance.
    case report(Diagnostic)
    /// Several messages of the worker's, in order, in one datagram: what the
    /// extension did during a call, followed by the call's `done`.
    case batch([WorkerMessage])

    /// The version of this protocol; a worker refuses another.
    package static let version: UInt32 = 2
}

/// What became of an attachment a worker's extension asked for.
package enum AttachmentResult: Sendable, Equatable {
    /// Made: its identifier, type and size.
    case made(identifier: String, type: String, size: UInt64)
    /// Refused with Apple's code (100–105).
    case refused(code: Int32)
    /// Refused for another reason, with a TIDINGS_STATUS_… value.
    case failed(status: Int32)
}
