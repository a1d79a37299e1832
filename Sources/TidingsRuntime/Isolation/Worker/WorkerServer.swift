import Glibc
import Synchronization
import TidingsABI
import TidingsBase
import TidingsRegistry

/// The worker's side of the protocol: the loaded extension, its instances,
/// and what their host functions and completions send to the host.
///
/// Calls arrive on the worker's main thread, one at a time; host functions
/// and completions may come from any thread of the extension's, and every
/// message they cause goes out on the one channel, in the order they
/// happen, so the host applies them before it sees the `done` after them.
final class WorkerServer: Sendable {
    /// One instance the host asked for.
    private struct Served: Sendable {
        /// The worker's copy of its context: it answers host functions with
        /// the same status the host's would, and relays each to the host.
        let context: InstanceContext
        let instance: any ExtensionInstance
        /// The attachment files of what it serves now (the notification, the
        /// request), which it names as `/proc/self/fd/N`.
        var files: DescriptorList
    }

    /// The extension, loaded.
    let provider: any ExtensionProvider
    private let bundle: ExtensionBundle
    private let channel: WorkerChannel
    private let instances = Mutex<[UInt64: Served]>([:])
    private let completions = RelayedCompletions()

    /// Loads `bundle`'s extension in this process.
    /// - Throws: why it cannot be loaded, as the host would have said in its own process.
    init(bundle: ExtensionBundle, channel: WorkerChannel) throws(Diagnostic) {
        self.bundle = bundle
        self.channel = channel
        provider = try InProcessLauncher().launch(bundle)
        let completions = completions
        CompletionCenter.shared.relay { token, given in
            let status = completions.complete(token, with: given)
            switch given {
            case .option(let option):
                channel.sendQuietly(.completeResponse(token: token, option: option))
            case .content(let answer):
                channel.sendQuietly(.completeRequest(token: token, answer: answer))
            }
            return status
        }
    }

    /// Sends `diagnostic` to the host as a report.
    func report(_ diagnostic: Diagnostic) {
        channel.sendQuietly(.report(diagnostic))
    }

    /// Runs one message of the host's; `files` holds the descriptors that came with it.
    func serve(_ message: WorkerMessage, files: WorkerChannel.Message) {
        switch message {
        case let .create(call, instance, mayOverrideTitle):
            done(call, failure: create(instance, mayOverrideTitle: mayOverrideTitle))
        case let .receiveNotification(call, instance, notification):
            done(call, failure: with(instance) { (served: inout Served) throws(Diagnostic) in
                let local = adopt(notification, files: files, into: &served)
                try served.instance.didReceive(local)
            })
        case let .receiveResponse(call, instance, notification, response, token):
            completions.expect(token, kind: .response)
            done(call, failure: with(instance) { (served: inout Served) throws(Diagnostic) in
                let local = adopt(notification, files: files, into: &served)
                try served.instance.didReceive(response, to: local, token: token)
            })
        case let .receiveRequest(call, instance, request, token):
            completions.expect(token, kind: .request)
            done(call, failure: with(instance) { (served: inout Served) throws(Diagnostic) in
                let local = adopt(request, files: files, into: &served)
                try served.instance.didReceive(request: local, token: token)
            })
        case let .timeWillExpire(call, instance):
            done(call, failure: with(instance) { (served: inout Served) throws(Diagnostic) in try served.instance.serviceExtensionTimeWillExpire() })
        case let .mediaPlay(call, instance):
            done(call, failure: with(instance) { (served: inout Served) throws(Diagnostic) in try served.instance.mediaPlay() })
        case let .mediaPause(call, instance):
            done(call, failure: with(instance) { (served: inout Served) throws(Diagnostic) in try served.instance.mediaPause() })
        case let .destroy(call, instance):
            if let served = instances.withLock({ $0.removeValue(forKey: instance) }) {
                served.instance.destroy()
                served.context.close()
            }
            done(call, failure: nil)
        case .hello, .attachmentMade, .ready, .launchFailed, .done, .hostCall, .completeResponse, .completeRequest,
             .createAttachment, .report:
            report(.error(.workerProtocol, "The worker received a message only a worker sends."))
        }
    }

    /// Makes instance `id`; the failure, if it made none.
    private func create(_ id: UInt64, mayOverrideTitle: Bool) -> Diagnostic? {
        let channel = self.channel
        let service = bundle.manifest?.point == .service
        let context = InstanceContext(
            extensionIdentifier: bundle.manifest?.bundleIdentifier ?? bundle.name, mayOverrideTitle: mayOverrideTitle,
            interface: bundle.interface,
            attachments: service ? ServiceAttachments(relay: { [weak self] request in
                guard let self else { return .failure(AttachmentFailure(.moveIntoDataStoreFailed, "The worker is ending", request: request)) }
                return self.relayAttachment(request, instance: id)
            }) : nil,
            relay: { call in channel.sendQuietly(.hostCall(instance: id, call: call)) })
        do throws(Diagnostic) {
            let instance = try provider.makeInstance(context: context)
            instances.withLock { $0[id] = Served(context: context, instance: instance, files: DescriptorList()) }
            return nil
        } catch {
            context.close()
            return error
        }
    }

    /// Runs `body` on instance `id`; the failure, if there is no such instance or the call failed.
    private func with(_ id: UInt64, _ body: (inout Served) throws(Diagnostic) -> Void) -> Diagnostic? {
        guard var served = instances.withLock({ $0[id] }) else {
            return .error(.workerProtocol, "The host called instance \(id), which the worker does not have.")
        }
        do throws(Diagnostic) {
            try body(&served)
            instances.withLock { if $0[id] != nil { $0[id] = served } }
            return nil
        } catch {
            return error
        }
    }

    /// `notification` as this process sees it: each attachment the host sent
    /// a descriptor for (its path is the descriptor's index among `files`) is
    /// named `/proc/self/fd/N`; the others have no path. The descriptors
    /// replace those of what the instance served before, and the instance's
    /// context lists the attachments.
    private func adopt(_ notification: UserNotification, files: WorkerChannel.Message, into served: inout Served)
        -> UserNotification
    {
        var local = notification
        let list = DescriptorList()
        local.content.attachments = notification.attachments.map { attachment in
            var attachment = attachment
            if let index = Int(attachment.path), let file = files.takeFile(at: index) {
                attachment.path = HostFunctions.descriptorDirectory + String(list.keep(file))
            } else {
                attachment.path = ""
            }
            return attachment
        }
        served.files = list
        served.context.update { $0.attachments = local.attachments }
        return local
    }

    /// Answers call `call`.
    private func done(_ call: UInt64, failure: Diagnostic?) {
        channel.sendQuietly(.done(call: call, failure: failure))
    }

    /// `create_attachment` of instance `id`: opens the file the request
    /// names (checked as the host would), sends it to the host with a socket
    /// for the answer, and waits for it. What the host made, it copied; the
    /// file then leaves its place here, as a moved file does on iOS.
    private func relayAttachment(_ request: AttachmentRequest, instance id: UInt64)
        -> Result<AttachmentStore.Admission, AttachmentFailure>
    {
        do throws(AttachmentFailure) {
            let source = try AttachmentSource(request)
            return .success(try relay(source, for: request, instance: id))
        } catch {
            return .failure(error)
        }
    }

    /// Sends the opened `source` to the host and waits for its answer.
    private func relay(_ source: borrowing AttachmentSource, for request: AttachmentRequest, instance id: UInt64)
        throws(AttachmentFailure) -> AttachmentStore.Admission
    {
        let (path, file) = (source.path, source.file.rawValue)
        let pair: WorkerChannel.Pair
        do throws(SystemError) {
            pair = try WorkerChannel.pair()
        } catch {
            throw AttachmentFailure(.moveIntoDataStoreFailed, "The worker could not reach the host: \(error)",
                                    request: request)
        }
        let reply = pair.host
        var answer: AttachmentResult?
        do throws(WorkerChannel.Failure) {
            try channel.send(WorkerMessage.createAttachment(instance: id, attachment: request).encoded,
                             files: [file, pair.worker.rawValue])
            _ = consume pair
            if let received = try reply.receive(),
               case .attachmentMade(let result)? = try? WorkerMessage(decoding: received.bytes) {
                answer = result
            }
        } catch {
            answer = nil
        }
        switch answer {
        case let .made(identifier, type, size)?:
            var current = stat()
            if lstat(path, &current) == 0 && source.isSameFile(as: current) { unlink(path) }
            let kept = instances.withLock { instances -> String in
                let duplicate = fcntl(file, F_DUPFD_CLOEXEC, 0)
                guard duplicate >= 0, let served = instances[id] else {
                    if duplicate >= 0 { close(duplicate) }
                    return ""
                }
                return HostFunctions.descriptorDirectory + String(served.files.keep(FileDescriptor(adopting: duplicate)))
            }
            let attachment = NotificationAttachment(identifier: identifier, type: type, path: kept, size: size)
            let mediaType = MediaType.allCases.first { $0.identifier == type } ?? .png
            return AttachmentStore.Admission(attachment: attachment, mediaType: mediaType, source: path,
                                             transfer: .moved)
        case .refused(let code)?:
            throw AttachmentFailure(AttachmentFailure.Code(rawValue: code) ?? .moveIntoDataStoreFailed,
                                    "The host refused \(path)", request: request)
        case .failed?, nil:
            throw AttachmentFailure(.moveIntoDataStoreFailed, "The host did not take \(path) into its store",
                                    request: request)
        }
    }
}

extension WorkerChannel {
    /// Sends `message`, dropping it when the host is gone or not reading
    /// (the host then ends this worker anyway).
    func sendQuietly(_ message: WorkerMessage) {
        try? send(message.encoded, timeout: 5)
    }
}

/// Descriptors the worker holds for an instance, closed together when the
/// list goes away.
final class DescriptorList: @unchecked Sendable {
    private var descriptors: [Int32] = []

    /// Keeps `file` open as long as the list; its number.
    func keep(_ file: consuming FileDescriptor) -> Int32 {
        let descriptor = file.take()
        descriptors.append(descriptor)
        return descriptor
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }
}

/// The completion tokens the host sent this worker, so that it answers
/// `complete_response` and `complete_request` with the status the host's
/// center would: OK the first time for a token of the right kind,
/// INVALID_COMPLETION otherwise. Each call still goes to the host, which
/// decides and reports misuse.
final class RelayedCompletions: Sendable {
    /// How many tokens are remembered.
    private static let remembered = 4096

    private struct Table {
        var open: [UInt64: PendingCompletion.Kind] = [:]
        /// The tokens in the order they came, as a ring once full.
        var order: [UInt64] = []
        /// In a full ring, the slot of the oldest token: the next to forget.
        var oldest = 0
    }

    private let table = Mutex(Table())

    /// Notes that `token` awaits a completion of `kind`.
    func expect(_ token: UInt64, kind: PendingCompletion.Kind) {
        table.withLock { table in
            table.open[token] = kind
            // A ring, not removeFirst(), which would move every token on each response.
            if table.order.count < Self.remembered {
                table.order.append(token)
            } else {
                table.open[table.order[table.oldest]] = nil
                table.order[table.oldest] = token
                table.oldest = (table.oldest + 1) % Self.remembered
            }
        }
    }

    /// The status a completion of `token` with `given` gets.
    func complete(_ token: UInt64, with given: CompletionCenter.Relayed) -> tidings_status {
        let kind: PendingCompletion.Kind
        switch given {
        case .option: kind = .response
        case .content: kind = .request
        }
        return table.withLock { table in
            guard table.open[token] == kind else { return TIDINGS_STATUS_INVALID_COMPLETION }
            table.open[token] = nil
            return TIDINGS_STATUS_OK
        }
    }
}
