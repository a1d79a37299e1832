import Glibc
import Synchronization
import TidingsABI
import TidingsBase
import TidingsRegistry

/// One running worker process, seen from the host: the process, the host's
/// end of its channel, and a reader thread that applies what the worker's
/// extension does (host functions, completions, attachments) and hands each
/// call its answer.
///
/// When the worker ends, the reader classes how (`WorkerFault`), fails every
/// call under way with that fault, abandons the completions the worker still
/// owed, and tells its owner once. Nothing of the worker's can reach the
/// host but through this class.
final class WorkerConnection: Sendable {
    /// The worker process.
    let process: SpawnedProcess
    /// True when the extension handles responses.
    let handlesResponses: Bool
    /// True when the extension handles media play and pause.
    let handlesMedia: Bool
    private let channel: WorkerChannel
    private let extensionName: String
    private let settings: WorkerSettings
    private let onEnd: @Sendable (WorkerFault?) -> Void
    private let onReport: @Sendable (Diagnostic) -> Void
    private let state = Mutex(State())

    private struct State {
        var nextCall: UInt64 = 1
        var nextInstance: UInt64 = 1
        /// Calls sent and not answered, with their names.
        var waiting: [UInt64: CallSlot] = [:]
        /// The host's contexts of the worker's instances, which its host calls change.
        var contexts: [UInt64: InstanceContext] = [:]
        /// Completion tokens given to this worker: it may complete these and no others.
        var tokens: Set<UInt64> = []
        /// The name of the last call sent, for the fault's message.
        var current: String?
        /// Why the host killed the worker, if it did.
        var killedFor: WorkerFault.Kind?
        /// The host closed the channel on purpose: its end is no fault.
        var retired = false
        /// The worker said it overflowed its stack before it died.
        var overflowedStack = false
        /// The worker said it had reached its memory limit before it died.
        var ranOutOfMemory = false
        /// The worker has ended; `fault` says how, when it was one.
        var ended = false
        var fault: WorkerFault?
    }

    private init(process: SpawnedProcess, channel: WorkerChannel, extensionName: String, settings: WorkerSettings,
                 handlesResponses: Bool, handlesMedia: Bool, onEnd: @escaping @Sendable (WorkerFault?) -> Void,
                 onReport: @escaping @Sendable (Diagnostic) -> Void) {
        self.process = process
        self.channel = channel
        self.extensionName = extensionName
        self.settings = settings
        self.handlesResponses = handlesResponses
        self.handlesMedia = handlesMedia
        self.onEnd = onEnd
        self.onReport = onReport
    }

    /// Starts a worker for `bundle` and waits until it has loaded the library.
    /// - Parameters:
    ///   - onEnd: told once when the worker ends, on the reader thread: its
    ///     fault, or nil when the host retired it.
    ///   - onReport: what the worker reports outside any call (its output).
    /// - Throws: why it did not start: the library's own load failure, as in
    ///   this process, or the worker's end while loading.
    static func start(_ bundle: ExtensionBundle, settings: WorkerSettings,
                      onEnd: @escaping @Sendable (WorkerFault?) -> Void,
                      onReport: @escaping @Sendable (Diagnostic) -> Void) throws(Diagnostic) -> WorkerConnection {
        let name = bundle.manifest?.bundleIdentifier ?? bundle.name
        let location = Diagnostic.Location(file: bundle.path)
        let pair: WorkerChannel.Pair
        do throws(SystemError) {
            pair = try WorkerChannel.pair()
        } catch {
            throw .error(.workerLaunchFailed, "No channel to a worker for \(name) could be made: \(error).", at: location)
        }
        let channel = pair.host
        let process: SpawnedProcess
        do throws(SystemError) {
            process = try SpawnedProcess.spawn(executable: settings.executable, arguments: ["worker"],
                                               environment: workerEnvironment, channel: pair.worker)
        } catch {
            throw .error(.workerLaunchFailed, "The worker for \(name) (\(settings.executable) worker) did not start: \(error).",
                         at: location)
        }
        _ = consume pair  // the worker's end is the worker's now: the host sees its end as the channel's
        func failed(_ message: String) -> Diagnostic {
            process.kill()
            let termination = process.wait()
            return .error(.workerLaunchFailed, "\(name)'s worker \(message) (it \(termination)).", at: location)
        }
        let hello = WorkerMessage.hello(version: WorkerMessage.version, bundle: bundle.path,
                                        memoryLimit: settings.memoryLimit, cpuTimePerCall: settings.cpuTimePerCall)
        guard (try? channel.send(hello.encoded, timeout: settings.launchTimeout)) != nil else {
            throw failed("did not take the host's first message")
        }
        let deadline = MonotonicClock.deadline(after: settings.launchTimeout)
        while true {
            var entry = pollfd(fd: channel.rawValue, events: Int16(POLLIN), revents: 0)
            let now = MonotonicClock.now()
            guard now < deadline else {
                throw failed("did not load the library within \(settings.launchTimeout) s")
            }
            let ready = poll(&entry, 1, Int32(clamping: (deadline - now) / 1_000_000 + 1))
            if ready <= 0 { continue }
            let received: WorkerChannel.Message?
            do throws(WorkerChannel.Failure) {
                received = try channel.receive()
            } catch {
                throw failed("sent what the host cannot read")
            }
            guard let received else { throw failed("ended while it loaded the library") }
            switch try? WorkerMessage(decoding: received.bytes) {
            case let .ready(handlesResponses, handlesMedia)?:
                let connection = WorkerConnection(
                    process: process, channel: channel, extensionName: name, settings: settings,
                    handlesResponses: handlesResponses, handlesMedia: handlesMedia, onEnd: onEnd, onReport: onReport)
                guard Threads.start({ connection.read() }) else {
                    throw failed("got no reader thread in the host")
                }
                return connection
            case .launchFailed(var diagnostic)?:
                _ = process.wait()
                if diagnostic.location.file == nil { diagnostic.location = location }
                throw diagnostic
            case .report(let diagnostic)?:
                onReport(diagnostic)
            default:
                throw failed("answered the host's first message out of turn")
            }
        }
    }

    // MARK: Calls

    /// Sends the message `make` builds for a new call number (with `files`
    /// beside it) and waits for the worker's answer, at most `timeout`
    /// seconds (the settings' call timeout when nil); a worker that takes
    /// longer is killed.
    /// - Throws: the call's own failure, or the worker's fault.
    func call(_ name: String, timeout: Double? = nil, files: [Int32] = [],
              _ make: (UInt64) -> WorkerMessage) throws(Diagnostic) {
        let slot = CallSlot()
        let number: UInt64? = state.withLock { state in
            guard !state.ended, state.killedFor == nil, !state.retired else { return nil }
            let number = state.nextCall
            state.nextCall += 1
            state.waiting[number] = slot
            state.current = name
            return number
        }
        guard let number else { throw goneDiagnostic }
        do throws(WorkerChannel.Failure) {
            try channel.send(make(number).encoded, files: files, timeout: timeout ?? settings.callTimeout)
        } catch {
            switch error.code {
            case .timedOut:
                terminate(for: .unresponsive)
            case .tooLarge:
                state.withLock { _ = $0.waiting.removeValue(forKey: number) }
                throw .error(.workerProtocol, "The host could not send \(name) to \(extensionName)'s worker: \(error)")
            default:
                break  // the worker is gone: the reader answers the call with how it ended
            }
        }
        if let answer = slot.wait(until: MonotonicClock.deadline(after: timeout ?? settings.callTimeout)) {
            return try answer.get()
        }
        terminate(for: isStopped ? .unresponsive : .hang)
        if let answer = slot.wait(until: MonotonicClock.deadline(after: 5)) { return try answer.get() }
        throw .error(WorkerFault.Kind.hang.code, "\(extensionName)'s worker did not end after it was killed.")
    }

    /// Makes an instance in the worker whose host functions change `context`.
    func makeInstance(context: InstanceContext) throws(Diagnostic) -> WorkerInstance {
        let id: UInt64 = state.withLock { state in
            let id = state.nextInstance
            state.nextInstance += 1
            state.contexts[id] = context
            return id
        }
        do throws(Diagnostic) {
            try call("create") { .create(call: $0, instance: id, mayOverrideTitle: context.mayOverrideTitle) }
        } catch {
            forget(instance: id)
            throw error
        }
        return WorkerInstance(connection: self, id: id)
    }

    /// Lets the worker complete `token`, which the host is about to hand it.
    func allow(_ token: UInt64) {
        state.withLock { _ = $0.tokens.insert(token) }
    }

    /// Forgets instance `id`'s context: its host calls change nothing more.
    func forget(instance id: UInt64) {
        state.withLock { _ = $0.contexts.removeValue(forKey: id) }
    }

    /// True while the worker runs and takes calls.
    var isRunning: Bool {
        state.withLock { !$0.ended && $0.killedFor == nil && !$0.retired }
    }

    /// Ends the worker on purpose (its bundle changed or is quarantined, the
    /// host is closing): it sees the channel close and exits; its end is no fault.
    func retire() {
        state.withLock { $0.retired = true }
        channel.shutdown()
    }

    /// Kills the worker, which has stopped answering, for `kind`.
    private func terminate(for kind: WorkerFault.Kind) {
        state.withLock { state in
            if !state.ended && state.killedFor == nil { state.killedFor = kind }
        }
        process.kill()
    }

    /// What a call on an ended worker fails with.
    private var goneDiagnostic: Diagnostic {
        state.withLock { $0.fault?.diagnostic }
            ?? .error(.workerRestarting, "\(extensionName)'s worker has ended; the next notification starts another.")
    }

    /// True when the worker process is stopped (`T` in `/proc/PID/stat`): it cannot read anything.
    private var isStopped: Bool {
        guard let bytes = try? FileSystem.readFile("/proc/\(process.pid)/stat", limit: 4096),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")), close + 2 < bytes.count
        else { return false }
        return bytes[close + 2] == UInt8(ascii: "T") || bytes[close + 2] == UInt8(ascii: "t")
    }

    // MARK: The reader

    /// Reads the worker's messages until it ends, then ends the connection.
    private func read() {
        while true {
            let received: WorkerChannel.Message?
            do throws(WorkerChannel.Failure) {
                received = try channel.receive()
            } catch {
                terminate(for: .protocol)
                continue  // the end of the channel follows
            }
            guard let received else { break }
            guard let message = try? WorkerMessage(decoding: received.bytes) else {
                terminate(for: .protocol)
                continue
            }
            handle(message, files: received)
        }
        end()
    }

    /// Applies one message of the worker's.
    private func handle(_ message: WorkerMessage, files: WorkerChannel.Message) {
        switch message {
        case let .done(call, failure):
            let slot = state.withLock { $0.waiting.removeValue(forKey: call) }
            slot?.fulfil(failure.map { .failure($0) } ?? .success(()))
        case let .hostCall(instance, call):
            _ = state.withLock { $0.contexts[instance] }?.perform(call)
        case let .completeResponse(token, option):
            if state.withLock({ $0.tokens.contains(token) }) { _ = CompletionCenter.shared.complete(token, option: option) }
        case let .completeRequest(token, answer):
            if state.withLock({ $0.tokens.contains(token) }) { _ = CompletionCenter.shared.complete(token, content: answer) }
        case let .createAttachment(instance, request):
            createAttachment(request, for: instance, files: files)
        case .report(let diagnostic) where diagnostic.code == .workerStackOverflow:
            state.withLock { $0.overflowedStack = true }
        case .report(let diagnostic) where diagnostic.code == .workerOutOfMemory:
            state.withLock { $0.ranOutOfMemory = true }
        case .report(let diagnostic):
            onReport(diagnostic)
        case .hello, .create, .receiveNotification, .receiveResponse, .receiveRequest, .timeWillExpire, .mediaPlay,
             .mediaPause, .destroy, .attachmentMade, .ready, .launchFailed:
            terminate(for: .protocol)
        }
    }

    /// A service extension's `create_attachment`, made on a thread of its own
    /// (checking and copying a file takes a while; other messages need not
    /// wait): the file the worker opened is checked and copied into the
    /// store; the answer goes back on the socket that came with it.
    private func createAttachment(_ request: AttachmentRequest, for instance: UInt64, files: WorkerChannel.Message) {
        let context = state.withLock { $0.contexts[instance] }
        guard let file = files.takeFile(at: 0), let reply = files.takeFile(at: 1) else {
            terminate(for: .protocol)
            return
        }
        let (source, answerSocket) = (file.take(), reply.take())
        Threads.start {
            let file = FileDescriptor(adopting: source)
            let answer = WorkerChannel(adopting: answerSocket)
            let result: AttachmentResult
            if let context {
                switch context.createAttachment(.success(request), using: { $0.create($1, from: file) }) {
                case .made(let admission):
                    result = .made(identifier: admission.attachment.identifier, type: admission.attachment.type,
                                   size: admission.attachment.size)
                case .failed(let failure):
                    result = .refused(code: failure.code.rawValue)
                case .refused(let status):
                    result = .failed(status: status)
                }
            } else {
                result = .failed(status: TIDINGS_STATUS_INVALID_CONTEXT)
            }
            try? answer.send(WorkerMessage.attachmentMade(result).encoded, timeout: 1)
        }
    }

    /// The worker has ended: reaps it, classes its end, and answers everything that waited.
    private func end() {
        process.kill()  // whatever it started goes with it
        let termination = process.wait()
        let (fault, slots, tokens): (WorkerFault?, [CallSlot], Set<UInt64>) = state.withLock { state in
            state.ended = true
            if !(state.retired && state.killedFor == nil) {
                state.fault = WorkerFault.classify(
                    termination, killedFor: state.killedFor, overflowedStack: state.overflowedStack,
                    ranOutOfMemory: state.ranOutOfMemory, extensionName: extensionName, call: state.current)
            }
            defer {
                state.waiting = [:]
                state.tokens = []
                state.contexts = [:]
            }
            return (state.fault, Array(state.waiting.values), state.tokens)
        }
        // The owner first, so that a caller who learns of the end finds the restart already planned.
        onEnd(fault)
        let failure = fault?.diagnostic
            ?? .error(.workerRestarting, "\(extensionName)'s worker was stopped by the host before the call ended.")
        for slot in slots { slot.fulfil(.failure(failure)) }
        for token in tokens { CompletionCenter.shared.abandon(token) }
    }

    // MARK: Process facts

    /// The environment a worker starts with: the host's, with the Swift
    /// runtime's backtracer off (a crash is the host's to report, at once).
    private static let workerEnvironment: [String] = {
        var entries: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if !text.hasPrefix("SWIFT_BACKTRACE=") { entries.append(text) }
            cursor += 1
        }
        entries.append("SWIFT_BACKTRACE=enable=no")
        return entries
    }()
}
