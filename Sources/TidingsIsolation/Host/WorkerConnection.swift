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
/// A caller waiting for its answer reads the channel itself, asleep in
/// `poll` until the worker writes (a hand-over from the reader thread would
/// cost a second thread's wake-up, about as much as the call); with
/// spinning turned on (`ChannelReaders.spinTime`) it first looks without
/// sleeping for a moment, which pays only where a core is free. Messages
/// are handled one at a time, in order, whoever reads them.
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
    let channel: WorkerChannel
    /// The read end of the worker's output pipe.
    let output: FileDescriptor
    let extensionName: String
    let settings: WorkerSettings
    /// The host whose completions the worker's extension answers.
    let host: HostEndpoint
    let onEnd: @Sendable (WorkerFault?) -> Void
    let onReport: @Sendable (Diagnostic) -> Void
    /// The bundle's lines in the host's log, shared with its other workers.
    let reports: BundleReports
    /// The worker's attachment requests, one at a time.
    let attachmentQueue = AttachmentQueue()
    /// The sealed copies of the attachments the worker opened.
    let copies = SealedCopies()
    let state: Mutex<State>
    /// The worker's CPU time (seconds) when the pool last read it, and when
    /// (monotonic nanoseconds); nil before it first did (`WorkerPool`).
    let cpuTimeSeen = Mutex<(at: UInt64, used: Double)?>(nil)
    /// Held while a message is received and handled: one at a time, in order.
    let receiving = Mutex(())
    /// Held while a post takes the message held before it and sends them:
    /// a creation held by one thread and sent in another's batch reaches
    /// the worker before the first call the first thread posts next.
    let sending = Mutex(())
    /// Who reads the channel: callers waiting for their answer read it
    /// themselves, and the reader thread stands back while they do and for a
    /// moment after (so that it is not woken by every answer of a burst), but
    /// for callers that stopped reading and wait for it (see `read()`).
    let readers: ChannelReaders

    struct State {
        var nextCall: UInt64 = 1
        var nextInstance: UInt64 = 1
        /// Calls sent and not answered.
        var waiting: [UInt64: CallSlot] = [:]
        /// A message posted to go out with the next one (an instance's creation, with its first call), encoded.
        var held: [UInt8]?
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

    init(sandbox: SandboxBuilder.Started, channel: WorkerChannel, readers: ChannelReaders,
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

        /// The call with `earlier`'s time added to its own: for a call posted
        /// behind `earlier`, which the worker answers first.
        func allowing(_ earlier: PostedCall) -> PostedCall {
            var call = self
            call.deadline = CheckedNumbers.instant(call.deadline, after: earlier.limit)
            return call
        }
    }

    /// Sends the message `make` builds for a new call number (with `files`
    /// beside it) without waiting for its answer. The worker takes its
    /// messages in the order they come: a call posted behind another waits
    /// for it there, and the two answers cost one round trip.
    ///
    /// With `holding`, the message (which carries no files) waits to go
    /// out in one datagram with the next one posted: an instance's creation
    /// with its first call, one wake-up of the worker where there were two.
    /// - Throws: when the worker is gone, or the message cannot be sent.
    func post(_ name: String, timeout: Double? = nil, files: [Int32] = [], holding: Bool = false,
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
        let bytes = make(number).encoded
        let failure = sending.withLock { _ -> WorkerChannel.Failure? in
            let datagrams = state.withLock { state in
                let outgoing = Outgoing(held: state.held, posting: bytes, files: files, holding: holding)
                state.held = outgoing.held
                return outgoing.datagrams
            }
            do throws(WorkerChannel.Failure) {
                for datagram in datagrams { try channel.send(datagram.bytes, files: datagram.files, timeout: limit) }
                return nil
            } catch {
                // Killed before the next post may send: it fails at once rather than wait its own timeout.
                if error.code == .timedOut { terminate(for: .unresponsive) }
                return error
            }
        }
        if let error = failure {
            switch error.code {
            case .timedOut:
                break  // killed above: the reader answers the call with the fault
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
        if let answer = readInline(until: slot, before: deadline) { return try answer.get() }
        readers.beginWaiting()
        defer { readers.endWaiting() }
        if let answer = slot.wait(until: deadline) { return try answer.get() }
        terminate(for: isStopped ? .unresponsive : .hang)
        if let answer = slot.wait(until: MonotonicClock.deadline(after: 5)) { return try answer.get() }
        throw .error(WorkerFault.Kind.hang.code, "\(extensionName)'s worker did not end after it was killed.")
    }

    /// Reads and handles the channel's messages on this thread until `slot`
    /// is answered or `end` (monotonic nanoseconds) passes; the answer, or
    /// nil: at `end`; when the channel closed or the worker ended (the reader
    /// thread then answers with how the worker ended); or when another caller
    /// reads the channel.
    ///
    /// The caller sleeps in `poll` on the channel and the sandbox's end,
    /// holding `receiving`, so that the worker's answer wakes this thread
    /// alone: no hand-over from the reader thread, whose wake-up cost as much
    /// again (it stands back meanwhile, see `ChannelReaders`), and no wake-up
    /// but for a message, the worker's end or `end`, however long the
    /// extension takes. With spinning turned on it looks without sleeping
    /// first. Another caller reading meanwhile (a shared worker's) answers
    /// this one too, and this one waits on its slot (`answer(to:)`): the
    /// reader thread takes the channel once no caller reads it.
    private func readInline(until slot: CallSlot, before end: UInt64) -> Result<Void, Diagnostic>? {
        readers.beginReading()
        defer { readers.endReading() }
        let spinEnd = min(end, MonotonicClock.now() + ChannelReaders.spinTime)
        while true {
            if let answer = slot.answer { return answer }
            let now = MonotonicClock.now()
            if now >= end || readers.channelClosed { return slot.answer }
            // Asleep until `end`, rounded up to the millisecond `poll` counts in; not at all while spinning.
            let sleep: Int32 = now < spinEnd ? 0 : Int32(clamping: (end - now + 999_999) / 1_000_000)
            let reading: Bool? = receiving.withLockIfAvailable { _ in
                guard slot.answer == nil else { return true }
                let ready = channel.waitForInput(within: sleep, or: sandbox.process.endDescriptor)
                if ready.input { drainChannel() }
                // The worker ended: what it left is the reader thread's, which answers with its end.
                return !ready.other
            }
            if reading == false || (reading == nil && sleep > 0) { return slot.answer }
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
            // Held, to go out with the instance's first call (or its destruction).
            let creation = try post("create", holding: true) {
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
    func terminate(for kind: WorkerFault.Kind) {
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
    func read() {
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
            // worker sends outside calls meanwhile waits for the next caller, or the quiet time's end.
            let watched = channelOpen && readers.channelIsTheReaders(now: MonotonicClock.now())
            var entries = [pollfd(fd: watched ? channel.rawValue : -1, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: sandbox.process.endDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: outputOpen ? self.output.rawValue : -1, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: readers.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: readers.alarmDescriptor, events: Int16(POLLIN), revents: 0)]
            // While callers read, the alarm their last one set wakes the reader; no tick meanwhile. With
            // the channel closed, the end must follow soon: a worker that lives on without it is of no use.
            var shortWait: Int32 = channelOpen ? -1 : 1_000
            if sandbox.scratchDirectory != nil && shortWait < 0 { shortWait = 1_000 }
            let wait = min(UInt32(bitPattern: output.millisecondsUntilDue(now: MonotonicClock.now()) ?? -1),
                           UInt32(bitPattern: shortWait))
            _ = SystemCall.retrying { poll(&entries, 5, Int32(bitPattern: wait)) }
            if entries[3].revents != 0 { readers.clearWake() }
            if entries[4].revents != 0 { readers.clearAlarm() }
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
