import Glibc
import Synchronization
import TidingsABI
import TidingsBase
import TidingsRegistry
import TidingsRuntime
import TidingsSystemShims

/// One running worker process, seen from the host: its sandbox, the host's
/// end of its channel, the pipe its output goes to, and a reader thread
/// that applies what the worker's extension does (host functions,
/// completions, attachments) and hands each call its answer.
///
/// A caller waiting for its answer reads the channel itself for a moment
/// (most answers come within tens of microseconds, and handing a message
/// from the reader thread to it costs a thread's wake-up, about as much),
/// then leaves it to the reader. Messages are handled one at a time, in
/// order, whoever reads them.
///
/// The worker's end is its sandbox's end, seen through init's pidfd: the
/// reader classes how (`WorkerFault`), fails every call under way with that
/// fault, abandons the completions the worker still owed, and tells its
/// owner once. Nothing of the worker's reaches the host but through this class.
///
/// The channel is hostile input: every message is checked against what the
/// host gave this worker (its instances, the calls in flight, the tokens
/// handed to it, attachment requests only of instances that may make them)
/// and costs what the host function it stands for costs, never more: host
/// calls and attachment requests are charged to their instance's budget,
/// messages naming nothing of the worker's to the connection's
/// (`ChannelBudget`); a flood ends the worker with fault `abuse`. Attachment
/// work goes to one bounded queue (`AttachmentQueue`), answers are sent
/// without waiting (a worker that does not read its answer loses it), what
/// a worker reports is one quoted line of its bundle's, at its bundle's
/// rate (`BundleReports`), and an attachment reaches the worker as a sealed
/// copy that names no path (`SealedCopies`).
final class WorkerConnection: Sendable {
    /// The sandbox the worker runs in.
    let sandbox: SandboxBuilder.Started
    /// True when the extension handles responses.
    let handlesResponses: Bool
    /// True when the extension handles media play and pause.
    let handlesMedia: Bool
    /// True when the extension offers `tidings.element-events/1`.
    let handlesElementEvents: Bool
    /// The sandbox's layers: the host's and the worker's own.
    let layers: [SandboxLayer]
    private let channel: WorkerChannel
    /// The read end of the worker's output pipe.
    private let output: FileDescriptor
    private let extensionName: String
    private let settings: WorkerSettings
    /// The host whose completions the worker's extension answers.
    private let host: HostEndpoint
    private let onEnd: @Sendable (WorkerFault?) -> Void
    private let onReport: @Sendable (Diagnostic) -> Void
    /// The bundle's lines in the host's log, shared with its other workers.
    private let reports: BundleReports
    /// The worker's attachment requests, one at a time.
    private let attachmentQueue = AttachmentQueue()
    /// The sealed copies of the attachments the worker opened.
    private let copies = SealedCopies()
    private let state: Mutex<State>
    /// Held while a message is received and handled: one at a time, in order.
    private let receiving = Mutex(())
    /// Who reads the channel: callers spinning for their answer read it
    /// themselves, and the reader thread stands back while they do and for a
    /// moment after (so that it is not woken by every answer of a burst), but
    /// for callers that stopped spinning and wait for it (see `read()`).
    private let readers: ChannelReaders

    private struct State {
        var nextCall: UInt64 = 1
        var nextInstance: UInt64 = 1
        /// Calls sent and not answered.
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
        /// Why, when a call under way should say so (the bundle was quarantined meanwhile).
        var retiredFor: Diagnostic?
        /// What the worker said as it died: its stack overflowed, its memory or its CPU time ran out.
        var overflowedStack = false
        var ranOutOfMemory = false
        var usedUpCPUTime = false
        /// The worker's end of the channel is closed.
        /// The worker has ended; `fault` says how, when it was one.
        var ended = false
        var fault: WorkerFault?
        /// What the messages that name nothing of the worker's may cost.
        var budget: ChannelBudget
    }

    private init(sandbox: SandboxBuilder.Started, channel: WorkerChannel, readers: ChannelReaders,
                 output: consuming FileDescriptor, extensionName: String,
                 settings: WorkerSettings, host: HostEndpoint, ready: (Bool, Bool, Bool, [SandboxLayer]),
                 reports: BundleReports, onEnd: @escaping @Sendable (WorkerFault?) -> Void,
                 onReport: @escaping @Sendable (Diagnostic) -> Void) {
        self.sandbox = sandbox
        self.reports = reports
        state = Mutex(State(budget: ChannelBudget(rate: host.table.callRate, now: MonotonicClock.now())))
        self.channel = channel
        self.readers = readers
        self.output = output
        self.extensionName = extensionName
        self.settings = settings
        self.host = host
        (handlesResponses, handlesMedia, handlesElementEvents) = (ready.0, ready.1, ready.2)
        layers = sandbox.layers + ready.3
        self.onEnd = onEnd
        self.onReport = onReport
    }

    /// Starts a worker for `bundle` in its sandbox, serving `host`, and waits
    /// until it has loaded the library.
    /// - Parameters:
    ///   - network: the bundle's policy grants it the network.
    ///   - onEnd: told once when the worker ends, on the reader thread: its
    ///     fault, or nil when the host retired it.
    ///   - reports: the bundle's lines in the host's log, shared by its workers.
    ///   - onReport: what the worker reports outside any call (its output).
    /// - Throws: why it did not start: the library's own load failure, as in
    ///   this process, or the worker's end while loading.
    static func start(_ bundle: ExtensionBundle, for host: HostEndpoint, settings: WorkerSettings,
                      sandboxes: SandboxBuilder, network: Bool,
                      reports: BundleReports, onEnd: @escaping @Sendable (WorkerFault?) -> Void,
                      onReport: @escaping @Sendable (Diagnostic) -> Void) throws(Diagnostic) -> WorkerConnection {
        // The worker's working directory is its view's root: it knows the bundle by its absolute path.
        try start(bundlePath: FileSystem.absolutePath(bundle.path), name: bundle.manifest?.bundleIdentifier ?? bundle.name,
                  location: Diagnostic.Location(file: bundle.path), host: host, settings: settings,
                  sandboxes: sandboxes, network: network,
                  reports: reports, onEnd: onEnd, onReport: onReport)
    }

    /// The layers of the sandbox a worker with `settings` gets on this
    /// machine: a worker started with no bundle puts itself in its sandbox,
    /// says what holds, and ends. A sandbox that cannot be made at all is one missing layer.
    static func probe(settings: WorkerSettings, sandboxes: SandboxBuilder) -> [SandboxLayer] {
        do throws(Diagnostic) {
            let connection = try start(bundlePath: "", name: "the sandbox probe", location: Diagnostic.Location(),
                                       host: HostEndpoint(table: HostFunctions.table(callRate: nil)), settings: settings,
                                       sandboxes: sandboxes,
                                       network: false, reports: BundleReports(bundle: "the sandbox probe"),
                                       onEnd: { _ in }, onReport: { _ in })
            connection.retire()
            return connection.layers
        } catch {
            return [SandboxLayer("sandbox", .missing, error.message)]
        }
    }

    /// Starts a worker serving the bundle at `bundlePath` ("" for a probe).
    private static func start(bundlePath: String, name: String, location: Diagnostic.Location, host: HostEndpoint,
                              settings: WorkerSettings, sandboxes: SandboxBuilder, network: Bool, reports: BundleReports,
                              onEnd: @escaping @Sendable (WorkerFault?) -> Void,
                              onReport: @escaping @Sendable (Diagnostic) -> Void) throws(Diagnostic) -> WorkerConnection {
        func unmade(_ error: SystemError) -> Diagnostic {
            .error(.workerLaunchFailed, "No channel to a worker for \(name) could be made: \(error).", at: location)
        }
        let readers: ChannelReaders
        do throws(SystemError) {
            readers = try ChannelReaders()
        } catch {
            throw unmade(error)
        }
        var pipeEnds: [Int32] = [-1, -1]
        let made = tidings_pipe2(&pipeEnds, O_CLOEXEC)
        guard made == 0 else { throw unmade(SystemError(code: -made)) }
        let pair: WorkerChannel.Pair
        do throws(SystemError) {
            pair = try WorkerChannel.pair()
        } catch {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw unmade(error)
        }
        let channel = pair.host
        let sandbox: SandboxBuilder.Started
        do throws(SandboxedProcess.SpawnFailure) {
            sandbox = try sandboxes.start(
                SandboxBuilder.Plan(executable: FileSystem.absolutePath(settings.executable), bundle: bundlePath,
                                    network: network,
                                    settings: settings),
                channel: pair.worker.rawValue, output: pipeEnds[1])
        } catch {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw .error(.workerLaunchFailed, "The worker for \(name) (\(settings.executable) worker) did not start: \(error).",
                         at: location)
        }
        // The worker's ends are the worker's now: the host sees its end as the channel's and the pipe's.
        _ = consume pair
        close(pipeEnds[1])
        let output = FileDescriptor(adopting: pipeEnds[0])
        func failed(_ message: String) -> Diagnostic {
            sandbox.process.kill()
            let termination = sandbox.process.wait()
            sandbox.cleanUp()
            return .error(.workerLaunchFailed, "\(name)'s worker \(message) (it \(termination)).", at: location)
        }
        let hello = WorkerMessage.hello(
            version: WorkerMessage.version, bundle: sandbox.bundlePath, sandbox: sandbox.settings,
            host: WorkerHostTable(abiVersion: host.table.version, callRate: host.table.callRate))
        guard (try? channel.send(hello.encoded, timeout: settings.launchTimeout)) != nil else {
            throw failed("did not take the host's first message")
        }
        let deadline = MonotonicClock.deadline(after: settings.launchTimeout)
        while true {
            var entries = [pollfd(fd: channel.rawValue, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: sandbox.process.endDescriptor, events: Int16(POLLIN), revents: 0)]
            let now = MonotonicClock.now()
            guard now < deadline else { throw failed("did not load the library within \(settings.launchTimeout) s") }
            let ready = SystemCall.retrying { poll(&entries, 2, Int32(clamping: (deadline - now) / 1_000_000 + 1)) }
            if ready <= 0 { continue }
            let received: WorkerChannel.Received
            do throws(WorkerChannel.Failure) {
                received = try channel.receiveIfReady()
            } catch {
                throw failed("sent what the host cannot read")
            }
            switch received {
            case .none:
                if entries[1].revents != 0 { throw failed("ended while it loaded the library") }
                continue
            case .closed:
                throw failed("ended while it loaded the library")
            case .message(let message):
                switch try? WorkerMessage(decoding: message.bytes) {
                case let .ready(handlesResponses, handlesMedia, handlesElementEvents, layers)?:
                    let connection = WorkerConnection(
                        sandbox: sandbox, channel: channel, readers: readers, output: output, extensionName: name, settings: settings,
                        host: host, ready: (handlesResponses, handlesMedia, handlesElementEvents, layers),
                        reports: reports, onEnd: onEnd, onReport: onReport)
                    guard Threads.start({ connection.read() }) else { throw failed("got no reader thread in the host") }
                    return connection
                case .launchFailed(var diagnostic)?:
                    sandbox.process.kill()
                    _ = sandbox.process.wait()
                    sandbox.cleanUp()
                    if diagnostic.location.file == nil { diagnostic.location = location }
                    throw diagnostic
                case .report(let diagnostic)?:
                    if let line = reports.relay(diagnostic, now: MonotonicClock.now()) { onReport(line) }
                default:
                    throw failed("answered the host's first message out of turn")
                }
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
        try answer(to: post(name, timeout: timeout, files: files, make))
    }

    /// A call sent whose answer has not been waited for.
    struct PostedCall: Sendable {
        fileprivate let slot: CallSlot
        /// Seconds the call may take.
        fileprivate let limit: Double
        fileprivate var deadline: UInt64

        /// The call with its time counted from now: for a call that waited
        /// behind another in the worker, from when that one was answered.
        func countedFromNow() -> PostedCall {
            var call = self
            call.deadline = MonotonicClock.deadline(after: limit)
            return call
        }
    }

    /// Sends the message `make` builds for a new call number (with `files`
    /// beside it) without waiting for its answer. The worker takes its
    /// messages in the order they come: a call posted behind another waits
    /// for it there, and the two answers cost one round trip.
    /// - Throws: when the worker is gone, or the message cannot be sent.
    func post(_ name: String, timeout: Double? = nil, files: [Int32] = [],
              _ make: (UInt64) -> WorkerMessage) throws(Diagnostic) -> PostedCall {
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
        let limit = timeout ?? settings.callTimeout
        do throws(WorkerChannel.Failure) {
            try channel.send(make(number).encoded, files: files, timeout: limit)
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
        return PostedCall(slot: slot, limit: limit, deadline: MonotonicClock.deadline(after: limit))
    }

    /// Waits for the answer to `posted` until its deadline; a worker that
    /// takes longer is killed.
    /// - Throws: the call's own failure, or the worker's fault.
    func answer(to posted: PostedCall) throws(Diagnostic) {
        let (slot, deadline) = (posted.slot, posted.deadline)
        if let answer = readInline(until: slot, before: min(deadline, MonotonicClock.now() + CallSlot.spinTime)) {
            return try answer.get()
        }
        readers.beginWaiting()
        defer { readers.endWaiting() }
        if let answer = slot.wait(until: deadline) { return try answer.get() }
        terminate(for: isStopped ? .unresponsive : .hang)
        if let answer = slot.wait(until: MonotonicClock.deadline(after: 5)) { return try answer.get() }
        throw .error(WorkerFault.Kind.hang.code, "\(extensionName)'s worker did not end after it was killed.")
    }

    /// Reads and handles the channel's messages on this thread until `slot`
    /// is answered or `end` (monotonic nanoseconds) passes; the answer, or nil.
    private func readInline(until slot: CallSlot, before end: UInt64) -> Result<Void, Diagnostic>? {
        readers.beginSpinning()
        defer { readers.endSpinning() }
        while true {
            if let answer = slot.answer { return answer }
            if channel.hasInput { _ = receiving.withLockIfAvailable { _ in drainChannel() } }
            if let answer = slot.answer { return answer }
            if MonotonicClock.now() >= end || readers.channelClosed { return nil }
        }
    }

    /// Handles every message waiting on the channel; call with `receiving` held.
    private func drainChannel() {
        while true {
            let received: WorkerChannel.Received
            do throws(WorkerChannel.Failure) {
                received = try channel.receiveIfReady()
            } catch {
                terminate(for: .protocol)
                return
            }
            switch received {
            case .none:
                return
            case .closed:
                // Most often the worker is dying; one that closed its channel and lives on
                // is ended by the reader (see `read()`).
                readers.noteChannelClosed()
                return
            case .message(let message):
                guard let decoded = try? WorkerMessage(decoding: message.bytes) else {
                    terminate(for: .protocol)
                    continue
                }
                handle(decoded, files: message)
            }
        }
    }

    /// Makes an instance in the worker whose host functions change
    /// `context`. The worker is asked without waiting for its answer: the
    /// instance's first call waits for both (see `WorkerInstance`). When
    /// `owningWorker`, destroying the instance retires the worker too.
    func makeInstance(context: InstanceContext, owningWorker: Bool = false) throws(Diagnostic) -> WorkerInstance {
        let id: UInt64 = state.withLock { state in
            let id = state.nextInstance
            state.nextInstance += 1
            state.contexts[id] = context
            return id
        }
        do throws(Diagnostic) {
            let creation = try post("create") {
                .create(call: $0, instance: id, mayOverrideTitle: context.mayOverrideTitle,
                        service: context.attachments != nil, callRate: context.callRate)
            }
            return WorkerInstance(connection: self, id: id, context: context, creation: creation,
                                  ownsWorker: owningWorker)
        } catch {
            forget(instance: id)
            throw error
        }
    }

    /// Lets the worker complete `token`, which the host is about to hand it.
    func allow(_ token: UInt64) {
        state.withLock { _ = $0.tokens.insert(token) }
    }

    /// Forgets instance `id`'s context: its host calls change nothing more.
    func forget(instance id: UInt64) {
        state.withLock { _ = $0.contexts.removeValue(forKey: id) }
    }

    /// Seconds a call may take before the worker is taken to hang.
    var callTimeout: Double { settings.callTimeout }

    /// True while the worker runs and takes calls.
    var isRunning: Bool {
        state.withLock { !$0.ended && $0.killedFor == nil && !$0.retired }
    }

    /// Ends the worker on purpose (its bundle changed or is quarantined, the
    /// host is closing): its sandbox is torn down; its end is no fault. A
    /// call still under way fails with `reason` when one is given (the
    /// quarantine's), else as stopped by the host.
    func retire(because reason: Diagnostic? = nil) {
        state.withLock { state in
            state.retired = true
            if state.retiredFor == nil { state.retiredFor = reason }
        }
        channel.shutdown()
        sandbox.process.kill()
    }

    /// Kills the worker, which has stopped answering or broke a rule, for `kind`.
    private func terminate(for kind: WorkerFault.Kind) {
        state.withLock { state in
            if !state.ended && state.killedFor == nil { state.killedFor = kind }
        }
        sandbox.process.kill()
    }

    /// What a call on an ended worker fails with.
    private var goneDiagnostic: Diagnostic {
        state.withLock { $0.fault?.diagnostic ?? $0.retiredFor }
            ?? .error(.workerRestarting, "\(extensionName)'s worker has ended; the next notification starts another.")
    }

    /// True when the worker process is stopped (`State` `T` in `/proc/PID/status`): it cannot read anything.
    private var isStopped: Bool {
        guard let worker = sandbox.process.workerPid else { return false }
        return ProcessStatus(of: "\(worker)")?.isStopped ?? false
    }

    // MARK: The reader

    /// Watches the channel, the worker's output and its sandbox's end until
    /// the sandbox has ended, then ends the connection.
    private func read() {
        var output = WorkerOutput(reports: reports)
        var outputOpen = true
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        /// When the reader first found the channel closed (monotonic nanoseconds); 0 while open.
        var closedSince: UInt64 = 0
        /// When the scratch directory (of a worker without a view) was last added up.
        var scratchCounted: UInt64 = 0
        while true {
            let channelOpen = !readers.channelClosed
            // While callers read the channel themselves (and a millisecond after), it is theirs: what the
            // worker sends outside calls meanwhile waits at most that long, or for the next caller.
            let watched = channelOpen && readers.channelIsTheReaders(now: MonotonicClock.now())
            var entries = [pollfd(fd: watched ? channel.rawValue : -1, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: sandbox.process.endDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: outputOpen ? self.output.rawValue : -1, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: readers.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
            // With the channel closed, the end must follow soon: a worker that lives on without it is of no use.
            var shortWait: Int32 = channelOpen && !watched ? ChannelReaders.quietMilliseconds : channelOpen ? -1 : 1_000
            if sandbox.scratchDirectory != nil && shortWait < 0 { shortWait = 1_000 }
            let wait = min(UInt32(bitPattern: output.millisecondsUntilDue(now: MonotonicClock.now()) ?? -1),
                           UInt32(bitPattern: shortWait))
            _ = SystemCall.retrying { poll(&entries, 4, Int32(bitPattern: wait)) }
            if entries[3].revents != 0 { readers.clearWake() }
            if let scratch = sandbox.scratchDirectory, MonotonicClock.now() - scratchCounted >= 1_000_000_000 {
                // On a real disk nothing caps the scratch directory: the host counts it, once a second.
                scratchCounted = MonotonicClock.now()
                if ScratchUsage.bytes(in: scratch) > settings.scratchSize { terminate(for: .disk) }
            }
            if !channelOpen {
                let now = MonotonicClock.now()
                if closedSince == 0 { closedSince = now }
                if now - closedSince > 1_000_000_000 { terminate(for: .protocol) }
            }
            if entries[0].revents != 0 { receiving.withLock { _ in drainChannel() } }
            if entries[2].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { bytes in
                    SystemCall.retrying { Glibc.read(self.output.rawValue, bytes.baseAddress, bytes.count) }
                }
                if count > 0 { output.take(buffer[..<count]) } else { outputOpen = false }
            }
            if let report = output.report(now: MonotonicClock.now()) { onReport(report) }
            if entries[1].revents != 0 { break }
        }
        // What it still had to say.
        receiving.withLock { _ in drainChannel() }
        if let report = output.report(now: MonotonicClock.now(), force: true) { onReport(report) }
        end()
    }

    /// Applies one message of the worker's, checked against what the host
    /// gave the worker and charged to a budget (see the type's summary).
    private func handle(_ message: WorkerMessage, files: WorkerChannel.Message, inBatch: Bool = false) {
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
    private func chargeStray() -> Bool {
        let verdict = state.withLock { $0.budget.charge(now: MonotonicClock.now()) }
        if verdict == .flood { terminate(for: .abuse) }
        return verdict == .allowed
    }

    /// A completion of the worker's extension, of a token the host gave this
    /// worker (others change nothing, and are charged as naming nothing of
    /// the worker's), naming `instance` or none: to the host's center,
    /// naming that instance's context.
    private func complete(_ token: UInt64, with given: CompletionGiven, by instance: UInt64?) {
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
    private func admitAttachmentRequest(of context: InstanceContext?) -> tidings_status? {
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
    private func enqueue(_ job: @escaping @Sendable () -> Void, refusal: WorkerMessage, files: WorkerChannel.Message) {
        guard !attachmentQueue.submit(job) else { return }
        let verdict = state.withLock { $0.budget.refuseQueued(now: MonotonicClock.now()) }
        if verdict == .flood { terminate(for: .abuse) }
        Self.answer(refusal, on: files)
    }

    /// Sends `answer` (with `with` beside it) on the reply socket that came
    /// last with the worker's request, without waiting: a worker that does
    /// not read its reply socket only loses its answer.
    private static func answer(_ answer: WorkerMessage, on files: WorkerChannel.Message, with attached: [Int32] = []) {
        guard let reply = files.takeFile(at: files.fileCount - 1) else { return }
        let channel = WorkerChannel(adopting: reply.take())
        try? channel.send(answer.encoded, files: attached, timeout: 0)
    }

    /// A service extension's `create_attachment`: the file the worker opened
    /// is checked and copied into the store on the attachment queue (it
    /// takes a while; other messages need not wait); the answer goes back on
    /// the socket that came with it.
    private func createAttachment(_ request: AttachmentRequest, for instance: UInt64, files: WorkerChannel.Message) {
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
    private func openAttachment(_ identifier: String, for instance: UInt64, files: WorkerChannel.Message) {
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

    /// The sandbox has ended: reaps it, classes the worker's end, cleans up,
    /// and answers everything that waited.
    private func end() {
        let termination = sandbox.process.wait()
        // In a shared cgroup (v1), the kernel's OOM killer may have ended another worker: this one
        // counts as killed by it only when it died of SIGKILL.
        let oomKilled = sandbox.cgroup?.oomKilledSinceStart == true
            && (sandbox.cgroup?.version == .v2 || termination.status == .signaled(SIGKILL))
        sandbox.cleanUp()
        copies.release()
        let (fault, slots, tokens, retiredFor): (WorkerFault?, [CallSlot], Set<UInt64>, Diagnostic?) = state.withLock { state in
            state.ended = true
            if !(state.retired && state.killedFor == nil) {
                state.fault = WorkerFault.classify(
                    termination, killedFor: state.killedFor,
                    said: WorkerFault.LastWords(overflowedStack: state.overflowedStack,
                                                ranOutOfMemory: state.ranOutOfMemory || oomKilled,
                                                usedUpCPUTime: state.usedUpCPUTime, killedByOOM: oomKilled),
                    extensionName: extensionName, call: state.current)
            }
            defer {
                state.waiting = [:]
                state.tokens = []
                state.contexts = [:]
            }
            return (state.fault, Array(state.waiting.values), state.tokens, state.retiredFor)
        }
        // The owner first, so that a caller who learns of the end finds the restart already planned.
        onEnd(fault)
        let failure = fault?.diagnostic ?? retiredFor
            ?? .error(.workerRestarting, "\(extensionName)'s worker was stopped by the host before the call ended.")
        for slot in slots { slot.fulfil(.failure(failure)) }
        for token in tokens { host.completions.abandon(token) }
    }
}

/// Who reads a worker's channel, and the reader thread's alarm clock: a
/// caller that spins for its answer reads the channel itself; the reader
/// thread watches it only when no caller spins, none has for a millisecond
/// or a caller stopped spinning to wait for it (then it is woken at once).
private final class ChannelReaders: Sendable {
    /// How long after the last spinning caller the reader keeps away from the channel.
    static let quietMilliseconds: Int32 = 1

    private let spinning = Atomic<Int>(0)
    private let waiting = Atomic<Int>(0)
    /// When the last spinning caller stopped (monotonic nanoseconds).
    private let lastSpin = Atomic<UInt64>(0)
    private let closed = Atomic<Bool>(false)
    /// An eventfd that wakes the reader thread.
    private let wake: FileDescriptor

    /// Readers with an eventfd of their own; thrown: why none could be made (`EMFILE`, …).
    init() throws(SystemError) {
        wake = try FileDescriptor(adoptingResult: tidings_eventfd())
    }

    /// The eventfd to poll for the reader's wake-ups.
    var wakeDescriptor: Int32 { wake.rawValue }

    func beginSpinning() {
        spinning.add(1, ordering: .relaxed)
    }

    func endSpinning() {
        lastSpin.store(MonotonicClock.now(), ordering: .relaxed)
        spinning.subtract(1, ordering: .relaxed)
    }

    /// A caller stopped spinning and waits for the reader: it is woken now.
    func beginWaiting() {
        waiting.add(1, ordering: .relaxed)
        var one: UInt64 = 1
        _ = SystemCall.retrying { write(wakeDescriptor, &one, 8) }
    }

    func endWaiting() {
        waiting.subtract(1, ordering: .relaxed)
    }

    /// True when the reader thread should watch the channel now.
    func channelIsTheReaders(now: UInt64) -> Bool {
        guard spinning.load(ordering: .relaxed) == 0 else { return false }
        if waiting.load(ordering: .relaxed) > 0 { return true }
        // A caller may have stopped spinning after `now` was read: then the channel is not the reader's yet.
        let last = lastSpin.load(ordering: .relaxed)
        return now > last && now - last >= UInt64(Self.quietMilliseconds) * 1_000_000
    }

    /// Takes the reader's wake-up.
    func clearWake() {
        var count: UInt64 = 0
        _ = SystemCall.retrying { read(wakeDescriptor, &count, 8) }
    }

    var channelClosed: Bool { closed.load(ordering: .relaxed) }

    func noteChannelClosed() {
        closed.store(true, ordering: .relaxed)
    }
}
