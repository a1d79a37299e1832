import Glibc
import Synchronization
import TidingsABI
import TidingsBase
import TidingsRegistry
import TidingsRuntime

/// The worker's side of the protocol: the loaded extension, its instances,
/// and what their host functions and completions send to the host (through
/// the worker's `WorkerEndpoint`, which its handles and tokens lead to).
///
/// Calls arrive on the worker's main thread and run there, one at a time,
/// but for a service extension's `did_receive_request`, which runs on
/// another thread so that `service_extension_time_will_expire` can come
/// while it still runs (the ABI's thread rule for it): a bounded number at
/// once, more waiting their turn (`ServiceRequests`). Host functions and
/// completions may come from any thread of the extension's; what they send
/// goes out in the order they happen (`Outbox`), so the host applies it
/// before it sees the `done` after it.
final class WorkerServer: Sendable {
    /// One instance the host asked for.
    private struct Served: Sendable {
        /// Its host calls' sink, in front of the worker's copy of its context.
        let sink: RelayingSink
        let instance: any ExtensionInstance
    }

    /// The extension, loaded.
    let provider: any ExtensionProvider
    /// What goes to the host.
    let outbox: Outbox
    private let bundle: ExtensionBundle
    private let channel: WorkerChannel
    private let watchdog: CPUWatchdog?
    private let instances = Mutex<[UInt64: Served]>([:])
    /// The contexts and completion tokens the extension names.
    private let endpoint: WorkerEndpoint
    /// The service requests running and waiting.
    private let requests: ServiceRequests

    /// Loads `bundle` (its path the one it has in the sandbox) in this
    /// process, with a host table saying what `host` says of the host's;
    /// its extension may allocate `memoryLimit` bytes (0: no limit).
    /// - Throws: why it cannot be loaded, as the host would have said in its own process.
    init(bundle: ExtensionBundle, host: WorkerHostTable, channel: WorkerChannel, watchdog: CPUWatchdog?,
         memoryLimit: UInt64) throws(Diagnostic) {
        self.bundle = bundle
        self.channel = channel
        self.watchdog = watchdog
        requests = ServiceRequests(memoryLimit: memoryLimit)
        outbox = Outbox(channel: channel)
        endpoint = WorkerEndpoint(table: HostFunctions.table(callRate: host.callRate, version: host.abiVersion),
                                  outbox: outbox)
        provider = try InProcessLauncher().launch(bundle, table: endpoint.table)
    }

    /// Sends `diagnostic` to the host as a report.
    func report(_ diagnostic: Diagnostic) {
        outbox.send(.report(diagnostic))
    }

    /// Runs one message of the host's; `moreFollows` when the batch it came in holds more.
    func serve(_ message: WorkerMessage, moreFollows: Bool = false) {
        switch message {
        case let .create(call, instance, mayOverrideTitle, service, callRate):
            // The host waits for the creation's answer with its first call's, which it sends with it
            // (or right behind): the creation's `done` goes out with that call's answer (one wake-up).
            run(call, holdingDoneBeforeMore: true, moreFollows: moreFollows) {
                create(instance, mayOverrideTitle: mayOverrideTitle, service: service, callRate: callRate)
            }
        case let .receiveNotification(call, instance, notification, categoryActions):
            run(call) {
                with(instance) { (served: Served) throws(Diagnostic) in
                    served.sink.context.update { state in
                        state.attachments = notification.attachments
                        state.categoryActions = categoryActions
                    }
                    try served.instance.didReceive(notification)
                }
            }
        case let .receiveResponse(call, instance, notification, categoryActions, response, token, deadline):
            run(call) {
                with(instance) { (served: Served) throws(Diagnostic) in
                    served.sink.context.update { state in
                        state.attachments = notification.attachments
                        state.categoryActions = categoryActions
                    }
                    let given = endpoint.token(for: token, kind: .response, deadline: deadline,
                                               context: served.sink.context.handle)
                    try served.instance.didReceive(response, to: notification, token: given, deadline: deadline)
                }
            }
        case let .receiveRequest(call, instance, request, token, deadline):
            serveRequest(call, instance: instance, request: request, token: token, deadline: deadline)
        case let .timeWillExpire(call, instance):
            if let withdrawn = requests.withdraw(instance: instance) {
                // Its request never started: it fails now, and the extension hears nothing of a request it never saw.
                refuse(withdrawn.call, .error(.workerBusy, "The request waited for one of the worker's \(ServiceRequests.threadLimit) service threads until its time was up: it was not started."))
                return run(call) { nil }
            }
            run(call) { with(instance) { (served: Served) throws(Diagnostic) in try served.instance.serviceExtensionTimeWillExpire() } }
        case let .mediaPlay(call, instance):
            run(call) { with(instance) { (served: Served) throws(Diagnostic) in try served.instance.mediaPlay() } }
        case let .mediaPause(call, instance):
            run(call) { with(instance) { (served: Served) throws(Diagnostic) in try served.instance.mediaPause() } }
        case let .elementEvent(call, instance, event):
            run(call) { with(instance) { (served: Served) throws(Diagnostic) in try served.instance.handle(event) } }
        case let .destroy(call, instance):
            run(call) {
                // Nothing of the instance stays but the tokens it was given (the host reports a late
                // completion of one): the worker may serve its bundle's next instance.
                if let served = instances.withLock({ $0.removeValue(forKey: instance) }) {
                    served.instance.destroy()
                    served.sink.context.close()
                }
                return nil
            }
        case .hello, .attachmentMade, .attachmentOpened, .ready, .launchFailed, .done, .hostCall, .completeResponse,
             .completeRequest, .createAttachment, .openAttachment, .attachmentLeftInPlace, .report, .batch:
            report(.error(.workerProtocol, "The worker received a message only a worker sends."))
        }
    }

    /// Runs `body` as call `call` on this thread: the CPU budget starts
    /// afresh with it (and covers the time until the next call), and what
    /// the extension does meanwhile goes out with its `done` — held, when
    /// `holdingDoneBeforeMore` and the host's next message is there (in the
    /// batch this one came in, `moreFollows`, or on the channel), to go out with that one's.
    private func run(_ call: UInt64, holdingDoneBeforeMore: Bool = false, moreFollows: Bool = false,
                     _ body: () -> Diagnostic?) {
        watchdog?.noteCall()
        outbox.beginCall()
        let failure = body()
        outbox.endCall(with: .done(call: call, failure: failure),
                       holding: holdingDoneBeforeMore && (moreFollows || channel.hasInput))
    }

    /// `did_receive_request`, on one of the service threads (now, or once
    /// one is free); its `done` goes out when it returns. One that will not
    /// run is answered now.
    private func serveRequest(_ call: UInt64, instance id: UInt64, request: UserNotification, token: UInt64,
                              deadline: UInt64) {
        guard let served = instances.withLock({ $0[id] }) else {
            return run(call) { .error(.workerProtocol, "The host called instance \(id), which the worker does not have.") }
        }
        served.sink.context.update { $0.attachments = request.attachments }
        let given = endpoint.token(for: token, kind: .request, deadline: deadline, context: served.sink.context.handle)
        let outbox = self.outbox
        let watchdog = self.watchdog
        let refused = requests.submit(ServiceRequests.Request(call: call, instance: id) {
            watchdog?.noteCall()
            var failure: Diagnostic?
            do throws(Diagnostic) {
                try served.instance.didReceive(request: request, token: given, deadline: deadline)
            } catch {
                failure = error
            }
            try? outbox.sendNow(.done(call: call, failure: failure))
        })
        if let refused { refuse(call, refused) }
    }

    /// Answers the service request `call` with `failure` at once, and says so
    /// in the host's log.
    private func refuse(_ call: UInt64, _ failure: Diagnostic) {
        report(failure)
        try? outbox.sendNow(.done(call: call, failure: failure))
    }

    /// Makes instance `id`; the failure, if it made none.
    private func create(_ id: UInt64, mayOverrideTitle: Bool, service: Bool, callRate: CallRate?) -> Diagnostic? {
        // A service extension's context may create attachments: through the host (the sink), never a store here.
        // Its calls are limited as the host's copy limits them, so that the statuses agree.
        let context = InstanceContext(
            extensionIdentifier: bundle.manifest?.bundleIdentifier ?? bundle.name, mayOverrideTitle: mayOverrideTitle,
            mayInteract: bundle.manifest?.userInteractionEnabled ?? false,
            interface: bundle.interface, attachments: service ? ServiceAttachments(store: nil) : nil, callRate: callRate,
            in: endpoint.contexts)
        let sink = RelayingSink(id: id, context: context, server: self)
        do throws(Diagnostic) {
            let instance = try provider.makeInstance(context: context)
            instances.withLock { $0[id] = Served(sink: sink, instance: instance) }
            return nil
        } catch {
            context.close()
            return error
        }
    }

    /// Runs `body` on instance `id`; the failure, if there is no such instance or the call failed.
    private func with(_ id: UInt64, _ body: (Served) throws(Diagnostic) -> Void) -> Diagnostic? {
        guard let served = instances.withLock({ $0[id] }) else {
            return .error(.workerProtocol, "The host called instance \(id), which the worker does not have.")
        }
        do throws(Diagnostic) {
            try body(served)
            return nil
        } catch {
            return error
        }
    }

    // MARK: What the extension asks of the host

    /// `create_attachment` of instance `id`: opens the file the request
    /// names (checked as the host would), sends it to the host with a socket
    /// for the answer, and waits for it. What the host made, it copied; the
    /// file then leaves its place here, as a moved file does on iOS.
    func createAttachment(_ request: AttachmentRequest, instance id: UInt64)
        -> Result<AttachmentStore.Admission, AttachmentFailure>
    {
        do throws(AttachmentFailure) {
            let source = try AttachmentSource(request)
            return relay(source, for: request, instance: id)
        } catch {
            return .failure(error)
        }
    }

    /// Sends the opened `source` to the host and waits for its answer.
    private func relay(_ source: borrowing AttachmentSource, for request: AttachmentRequest, instance id: UInt64)
        -> Result<AttachmentStore.Admission, AttachmentFailure>
    {
        let path = source.path
        let answer = ask(.createAttachment(instance: id, attachment: request), with: [source.file.rawValue])
        switch answer.map({ $0.message }) {
        case let .attachmentMade(.made(identifier, type, size))?:
            var transfer = AttachmentStore.Transfer.moved
            if let reason = source.removeFromItsPlace() {
                // Copied, not moved: the host's record of it says so too.
                outbox.send(.attachmentLeftInPlace(instance: id, identifier: identifier, reason: reason))
                transfer = .copiedInstead(reason: reason)
            }
            let attachment = NotificationAttachment(identifier: identifier, type: type, path: "", size: size)
            let mediaType = MediaType.allCases.first { $0.identifier == type } ?? .png
            return .success(AttachmentStore.Admission(attachment: attachment, mediaType: mediaType, source: path,
                                                      transfer: transfer))
        case .attachmentMade(.refused(let code))?:
            return .failure(AttachmentFailure(AttachmentFailure.Code(rawValue: code) ?? .moveIntoDataStoreFailed,
                                              "The host refused \(path)", request: request))
        default:
            return .failure(AttachmentFailure(.moveIntoDataStoreFailed, "The host did not take \(path) into its store",
                                              request: request))
        }
    }

    /// `open_attachment` of instance `id`: a new descriptor of the store's
    /// file, opened by the host, or nil.
    func openAttachment(_ identifier: String, instance id: UInt64) -> FileDescriptor? {
        guard let answer = ask(.openAttachment(instance: id, identifier: identifier), with: []),
              case .attachmentOpened(found: true) = answer.message
        else { return nil }
        return answer.files.takeFile(at: 0)
    }

    /// Sends `message` with `files` and a new socket for the answer beside
    /// it (last), and waits for the answer on that socket.
    private func ask(_ message: WorkerMessage, with files: [Int32]) -> (message: WorkerMessage, files: WorkerChannel.Message)? {
        let pair: WorkerChannel.Pair
        do throws(SystemError) {
            pair = try WorkerChannel.pair()
        } catch {
            return nil
        }
        let reply = pair.host
        do throws(WorkerChannel.Failure) {
            try outbox.sendNow(message, files: files + [pair.worker.rawValue])
        } catch {
            return nil
        }
        _ = consume pair
        guard let received = try? reply.receive(), let answer = try? WorkerMessage(decoding: received.bytes) else {
            return nil
        }
        return (answer, received)
    }
}
