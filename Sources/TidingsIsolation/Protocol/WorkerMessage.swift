import TidingsBase
import TidingsManifest
import TidingsProtocol
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

    /// The first message: the protocol version, the bundle to serve (its
    /// path, and the manifest and interface the host validated: the worker
    /// never reads its own verdict from disk, so a bundle whose manifest has
    /// since broken serves its last good version), the sandbox the worker
    /// puts itself in before it loads the library, and what the worker's
    /// host table says of the host. A probe of the sandbox names no bundle.
    case hello(version: UInt32, bundle: String, manifest: Manifest?, interface: Interface?,
               sandbox: WorkerSandboxSettings, host: WorkerHostTable)
    /// Make instance `instance` (answered with `done`), whose host calls may come at `callRate`.
    case create(call: UInt64, instance: UInt64, mayOverrideTitle: Bool, service: Bool, callRate: CallRate?)
    /// `didReceive(_:)`. Attachments come without paths: the extension opens
    /// them through the host. The actions of the notification's category
    /// come along, for `get_actions` to answer in the worker.
    case receiveNotification(call: UInt64, instance: UInt64, notification: UserNotification,
                             categoryActions: [NotificationAction])
    /// `didReceive(_:completionHandler:)` with the host's completion token,
    /// which must be completed before `deadline` (monotonic nanoseconds).
    case receiveResponse(call: UInt64, instance: UInt64, notification: UserNotification,
                         categoryActions: [NotificationAction], response: ResponseRequest, token: UInt64, deadline: UInt64)
    /// A service extension's `didReceive(_:withContentHandler:)`.
    case receiveRequest(call: UInt64, instance: UInt64, request: UserNotification, token: UInt64, deadline: UInt64)
    /// `serviceExtensionTimeWillExpire()`, run beside a `did_receive_request` that may still run.
    case timeWillExpire(call: UInt64, instance: UInt64)
    case mediaPlay(call: UInt64, instance: UInt64)
    case mediaPause(call: UInt64, instance: UInt64)
    case destroy(call: UInt64, instance: UInt64)
    /// An event of the instance's view (`tidings.element-events/1`), already
    /// admitted by the host's copy of the view.
    case elementEvent(call: UInt64, instance: UInt64, event: ElementEvent)
    /// The answer to `createAttachment`, sent on the reply socket that came with it.
    case attachmentMade(AttachmentResult)
    /// The answer to `openAttachment`, on its reply socket; the file comes beside it when `found`.
    case attachmentOpened(found: Bool)

    // Worker → host.

    /// The answer to `hello`: the library loaded, what it handles, and the
    /// sandbox layers the worker put itself under.
    case ready(handlesResponses: Bool, handlesMedia: Bool, handlesElementEvents: Bool, sandbox: [SandboxLayer])
    /// The answer to `hello` when the library could not be loaded.
    case launchFailed(Diagnostic)
    /// A call returned; `failure` when it could not be made (no instance, say).
    case done(call: UInt64, failure: Diagnostic?)
    /// The extension called a host function on instance `instance`.
    case hostCall(instance: UInt64, call: HostCall)
    /// The extension called `complete_response` for the host's token, or
    /// `complete_response_for` naming `instance`.
    case completeResponse(token: UInt64, instance: UInt64?, option: Int32)
    /// The extension called `complete_request` (nil content: show the
    /// original), or `complete_request_for` naming `instance`.
    case completeRequest(token: UInt64, instance: UInt64?, answer: ServiceAnswer?)
    /// The extension asked to attach a file. Two descriptors come beside the
    /// message: the file, which the worker opened, and a socket for the answer
    /// (so that any thread of the extension may wait for it).
    case createAttachment(instance: UInt64, attachment: AttachmentRequest)
    /// The extension asked to open an attachment of instance `instance`; a
    /// socket for the answer comes beside the message.
    case openAttachment(instance: UInt64, identifier: String)
    /// Something the worker noticed outside any instance.
    case report(Diagnostic)
    /// The file of attachment `identifier`, which the host made for instance
    /// `instance`, could not be removed from its place in the worker
    /// (`reason`): it was copied, not moved. Sent before the extension hears
    /// that the attachment was made.
    case attachmentLeftInPlace(instance: UInt64, identifier: String, reason: String)
    /// Several messages of the worker's, in order, in one datagram: what the
    /// extension did during a call, followed by the call's `done`.
    case batch([WorkerMessage])

    /// The version of this protocol; a worker refuses another. 3: the host
    /// table's version and call rate in `hello`, category actions with a
    /// notification or response, the instance a completion names. 4: element
    /// events, and whether the extension handles them in `ready`. 5: the
    /// manifest and interface the host validated in `hello`. 6: a
    /// notification's trigger. 7: an attachment's file left in its place.
    package static let version: UInt32 = 7
    /// The most category actions a notification or response carries.
    package static let categoryActionLimit = 1024
}

/// What a worker's host table says of the host that started it: the ABI
/// version it speaks and how fast it lets each instance call (for the
/// limits interface).
package struct WorkerHostTable: Sendable, Equatable {
    /// The ABI version the host speaks with its extensions.
    package var abiVersion: UInt32
    /// How fast the host lets each instance call; nil for no limit.
    package var callRate: CallRate?

    package init(abiVersion: UInt32, callRate: CallRate?) {
        self.abiVersion = abiVersion
        self.callRate = callRate
    }
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
