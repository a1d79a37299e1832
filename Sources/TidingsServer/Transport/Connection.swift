import Glibc
import Synchronization
import TidingsBase

/// One client: a socket, or standard input and output.
///
/// The server's event loop reads what the client sends, splits it into
/// messages and admits each into the connection's `RequestOrder`; a
/// message whose turn has come is answered on the loop's thread
/// (`EventLoop.answerInline`), and one that touches what an earlier one
/// still under way touches waits, holding no thread, until that one is
/// answered, then goes to a thread of the server's `CallPool`. An answer
/// may come later from any thread (`HostService.answer(_:from:reply:)`),
/// even after the client left. Answers and events are written without
/// waiting (`ConnectionOutput`), on standard output too: what the client
/// does not take at once is sent by the loop when the socket (or standard
/// output) takes more, and a client that lets too much wait is disconnected. Past `callsPerConnection` messages under way,
/// the loop reads no more from the client until one is answered.
///
/// The server may also ask the client (`ask`): its request goes out under
/// an id of its own, and the client's response (read like any message, but
/// never admitted as a call) is handed to whoever asked, on a thread of the
/// pool; the loop's timer ends the wait at its deadline, and a client whose
/// input ends leaves nothing waiting.
final class Connection: RequestReceiver, IdentifiedClient, LoopSource, @unchecked Sendable {
    /// A number for logs.
    let number: Int
    /// Who the client is: its peer and sandbox, read at accept, and what its hello made it.
    let identity: ConnectionIdentity
    /// Where requests come from.
    private let input: Int32
    /// The socket, owned here; nil for standard input and output, which are the process's.
    private let socket: FileDescriptor?
    /// For standard I/O, the private copy of standard output answers go to.
    private let ownedOutput: FileDescriptor?
    private let output: ConnectionOutput
    let context: Context
    /// The requests sent to the client, waiting for its answers.
    let asked = ServerRequests()
    /// Opened when the connection closed and every message read was answered.
    let finished = Latch()

    /// What every connection of a server shares.
    struct Context: Sendable {
        let service: HostService
        let limits: Server.Limits
        let loop: EventLoop
        let pool: CallPool
        /// Told once, when the connection closed and every message read was answered.
        let ended: @Sendable (Connection) -> Void
    }

    /// A message read, waiting for its turn or being answered.
    private struct Pending {
        /// Nil for a line too long.
        let message: RPCMessage?
        /// The positions of its requests (0 for a single one) whose id was
        /// under way already as it was read: they are refused.
        var duplicates: Set<Int> = []
    }

    /// The messages under way, shared by the loop and the threads answering.
    private struct Calls {
        var order = RequestOrder<Pending>()
        /// Messages admitted and not answered.
        var underWay = 0
        /// The ids of requests read and not answered, to refuse one reused meanwhile.
        var ids: Set<RPCID> = []
        /// The loop stopped reading at `callsPerConnection`: the next answer resumes it.
        var paused = false
        /// Nothing more is read: once all is answered, the connection closes.
        var inputEnded = false
        /// Closed: nothing more is read or written.
        var closed = false
        /// `ended` was told.
        var reported = false
        /// The server stops gracefully: once every message read is answered,
        /// the connection tells it here and stays open (it may still hear
        /// events of other clients' calls) until it is released.
        var stop: StopBarrier?
    }

    private let calls = Mutex(Calls())

    // The loop's own.
    private var reader: LineReader
    /// The token the loop knows the input by; nil when it is not registered.
    private var token: UInt64?
    /// What the loop watches the socket for.
    private var interest: Epoll.Events = []
    /// For standard I/O, the token the loop knows the output by while it
    /// waits for room; nil when it is not watched.
    private var outputToken: UInt64?
    /// The input ended or failed: no more is read.
    private var inputEnded = false
    /// The input ended cleanly: a last line without its newline is still taken.
    private var lastLineOwed = false
    /// Closing: what waits is being sent, for up to a second.
    private var closing = false
    /// The partial line now waiting for its end has a timer
    /// (`Server.Limits.partialRequestTimeout`), the one numbered so.
    private var partialTimer: UInt64?
    /// The number of the last partial-line timer set; a timer that finds
    /// another number (its line ended) does nothing.
    private var partialTimers: UInt64 = 0
    private var closed = false

    /// A connection over `socket`, which must not block, of a client who is `identity`.
    init(number: Int, socket: consuming FileDescriptor, identity: ClientIdentity, context: Context) {
        self.number = number
        self.identity = ConnectionIdentity(identity)
        input = socket.rawValue
        output = ConnectionOutput(descriptor: socket.rawValue, isSocket: true, bound: context.limits.outputBuffer)
        self.socket = consume socket
        ownedOutput = nil
        self.context = context
        reader = LineReader(limit: context.limits.messageSize)
    }

    /// A connection over the process's standard input and `output`, a copy
    /// of standard output the connection owns. Standard input may be a pipe,
    /// a terminal, a socket or a regular file; it is left as it is (blocking
    /// or not): it is read only when it is ready.
    init(number: Int, standardIOWith context: Context, output: consuming FileDescriptor) {
        self.number = number
        identity = ConnectionIdentity(.frontEnd)
        input = 0
        let writable = ConnectionOutput.nonBlocking(output)
        self.output = ConnectionOutput(descriptor: writable.rawValue, isSocket: ConnectionOutput.isSocket(writable.rawValue),
                                       bound: context.limits.outputBuffer)
        ownedOutput = consume writable
        socket = nil
        self.context = context
        reader = LineReader(limit: context.limits.messageSize)
    }

    // MARK: On the loop

    /// Starts reading, on the loop.
    func open() {
        do throws(SystemError) {
            token = try context.loop.register(input, for: .readable, self)
            interest = .readable
        } catch {
            endInput(cleanly: false)
        }
        pump()
    }

    func handle(_ events: Epoll.Events) {
        if events.contains(.writable) { flushOutput() }
        if !inputEnded && !events.isDisjoint(with: [.readable, .hangUp, .error]) {
            readInput()
        } else if inputEnded && !events.isDisjoint(with: [.hangUp, .error]), let token {
            // The client is gone: nothing it is owed can reach it, and the socket is watched no more.
            output.close()
            context.loop.unregister(input, token: token)
            self.token = nil
        }
        pump()
    }

    /// Reads what the client sent, once.
    private func readInput() {
        let buffer = context.loop.scratch
        let count = SystemCall.retrying {
            socket != nil
                ? recv(input, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                : read(input, buffer.baseAddress, buffer.count)
        }
        if count > 0 {
            reader.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
            endInput(cleanly: count == 0)
        }
    }

    /// No more is read; when `cleanly`, a last line without its newline still counts.
    private func endInput(cleanly: Bool) {
        guard !inputEnded else { return }
        inputEnded = true
        lastLineOwed = cleanly
        calls.withLock { $0.inputEnded = true }
        // The client can answer nothing more, nor be in the foreground.
        leave()
        if socket == nil, let token {
            context.loop.unregister(input, token: token)
            self.token = nil
        }
    }

    /// Admits the messages read, as far as `callsPerConnection` allows;
    /// closes once the input ended and all is answered; watches what is needed.
    func pump() {
        guard !closed else { return }
        var drained = false
        while true {
            let room = calls.withLock { calls in
                calls.paused = calls.underWay >= context.limits.callsPerConnection
                return !calls.paused
            }
            guard room else { break }
            var next = reader.next()
            if next == .needMore && lastLineOwed {
                lastLineOwed = false
                next = reader.finish() ?? .needMore
            }
            guard next != .needMore else {
                drained = true
                break
            }
            take(next)
            // A line ended: the next one begun is timed from its own start.
            partialTimer = nil
        }
        if socket != nil { timePartialLine(drained: drained) }
        if drained && inputEnded {
            let (answered, stop) = calls.withLock { ($0.underWay == 0, $0.stop) }
            if answered, let stop {
                stop.arrive(number)
            } else if answered {
                beginClosing()
            }
        }
        watch()
    }

    /// Admits one message, its requests' ids taken in the order read;
    /// answers it at once when its turn has come.
    private func take(_ next: LineReader.Next) {
        let message = Self.message(in: next)
        if case .response(let response)? = message { return receive(response) }
        let (place, now) = calls.withLock { calls in
            calls.underWay += 1
            var pending = Pending(message: message)
            for (position, id) in Self.ids(in: message) where !calls.ids.insert(id).inserted {
                pending.duplicates.insert(position)
            }
            return calls.order.admit(message.map(Self.scope) ?? .nothing, pending)
        }
        if let now {
            context.loop.answerInline { [self] in
                answer(now) { [self] in finished(place) }
            }
        }
    }

    /// The ids of the requests of `message` that expect an answer under one
    /// (not null), with their positions (0 for a single request).
    private static func ids(in message: RPCMessage?) -> [(Int, RPCID)] {
        let requests: [Result<RPCRequest, RPCFailure>]
        switch message {
        case .single(let request)?: requests = [request]
        case .batch(let batch)?: requests = batch
        case .response?, nil: return []
        }
        return requests.enumerated().compactMap { position, read in
            guard case .success(let request) = read, let id = request.id, id != .null else { return nil }
            return (position, id)
        }
    }

    /// Times the line begun and not finished: one not finished within
    /// `partialRequestTimeout` seconds of its first byte ends the connection
    /// with a -32012 error line (a client holding a request open for ever
    /// holds its memory and descriptor for ever).
    /// Only a reader `drained` of whole lines is timed: one paused at
    /// `callsPerConnection` holds its lines for its own reasons.
    private func timePartialLine(drained: Bool) {
        guard drained, !inputEnded, reader.hasPartialLine else {
            partialTimer = nil
            return
        }
        guard partialTimer == nil else { return }
        partialTimers += 1
        let number = partialTimers
        partialTimer = number
        let seconds = context.limits.partialRequestTimeout
        context.loop.schedule(at: MonotonicClock.deadline(after: seconds)) { [self] in
            guard partialTimer == number, !inputEnded, !closed, reader.hasPartialLine else { return }
            let refusal = RPCError.limitReached("partialRequestTimeout", seconds: seconds,
                "A request was begun and not finished within \(seconds) seconds (partialRequestTimeout); the connection closes.")
            _ = push(RPCReply.error(refusal, id: .null))
            shutdown(input, Int32(SHUT_RD))
            endInput(cleanly: false)
            pump()
        }
    }

    /// Watches the socket for what is needed now: input while it is read,
    /// room while output waits.
    private func watch() {
        guard !closed else { return }
        guard socket != nil else { return watchOutput() }
        guard let token else { return }
        var wanted: Epoll.Events = []
        if !inputEnded && !calls.withLock({ $0.paused }) { wanted.insert(.readable) }
        if output.hasPending { wanted.insert(.writable) }
        if wanted != interest {
            interest = wanted
            context.loop.change(input, token: token, to: wanted)
        }
    }

    /// For standard I/O, whose output is a descriptor apart: watches it for
    /// room while output waits, and no longer once none does.
    private func watchOutput() {
        let waiting = output.hasPending
        if waiting && outputToken == nil {
            outputToken = try? context.loop.register(output.descriptor, for: .writable, OutputRoom(self))
        } else if !waiting, let outputToken {
            context.loop.unregister(output.descriptor, token: outputToken)
            self.outputToken = nil
        }
    }

    /// Standard output has room (or is gone), on the loop.
    fileprivate func outputReady() {
        flushOutput()
        pump()
    }

    /// Sends what waits; ends a closing connection once it is all sent.
    private func flushOutput() {
        if !output.flush() && closing { close() }
    }

    /// Sends what the client is owed, for up to a second, then closes.
    private func beginClosing() {
        guard !closing else { return }
        closing = true
        guard output.hasPending else { return close() }
        // A client that closed only its sending side still gets what was answered.
        context.loop.schedule(at: MonotonicClock.deadline(after: 1)) { [self] in close() }
    }

    /// Closes the connection: nothing more is read or written, events
    /// stop, and the server is told once every message read is answered.
    private func close() {
        guard !closed else { return }
        closed = true
        if let token {
            context.loop.unregister(input, token: token)
            self.token = nil
        }
        if let outputToken {
            context.loop.unregister(output.descriptor, token: outputToken)
            self.outputToken = nil
        }
        output.close()
        if socket != nil { shutdown(input, Int32(SHUT_RDWR)) }
        context.service.subscribers.unsubscribe(self)
        // The connector's report of the distributor goes with its connection.
        context.service.push.reporterEnded(ObjectIdentifier(self))
        leave()
        let report = calls.withLock { calls in
            calls.closed = true
            calls.inputEnded = true
            return reportIfDone(&calls)
        }
        if report { reportEnded() }
    }

    // MARK: From any thread

    /// Reads no more: the requests read so far are answered (a last one
    /// without its newline included), and the connection then closes as if
    /// the client had ended its input — with `stop`, only once `release()`
    /// says so, after it told `stop` that all it read is answered, so that it
    /// hears the events of every call the other clients had under way. The
    /// server's graceful stop.
    func stopReading(until stop: StopBarrier? = nil) {
        context.loop.post { [self] in
            if let stop {
                // A connection already closed and answered has nothing more to wait for.
                let done = calls.withLock { calls in
                    calls.stop = stop
                    return calls.reported
                }
                if done { stop.arrive(number) }
            }
            if socket != nil {
                // What the client sent before is still read, and it can send no more.
                shutdown(input, Int32(SHUT_RD))
            } else {
                endInput(cleanly: true)
            }
            pump()
        }
    }

    /// Closes, once what waits is sent, a connection that `stopReading(until:)` held open.
    func release() {
        context.loop.post { [self] in
            calls.withLock { $0.stop = nil }
            pump()
        }
    }

    /// Ends the connection now: nothing more is read or written.
    func end() {
        output.close()
        context.loop.post { [self] in close() }
    }

    func push(_ line: [UInt8]) -> Bool {
        switch output.push(line) {
        case .accepted:
            return true
        case .acceptedWaiting:
            context.loop.post { [self] in watch() }
            return true
        case .refused(let overflow):
            if overflow { end() }
            return false
        }
    }

    /// Answers `pending` on a thread of the pool; its place is then freed.
    private func start(_ pending: Pending, at place: RequestOrder<Pending>.Place?) {
        context.pool.run { [self] in
            answer(pending) { [self] in finished(place) }
        }
    }

    /// A message was answered: the messages it held back go, reading resumes
    /// when it was paused, and a connection whose input ended closes.
    private func finished(_ place: RequestOrder<Pending>.Place?) {
        let (ready, wakeLoop, report) = calls.withLock { calls in
            calls.underWay -= 1
            let ready = calls.order.finish(place)
            let wake = !calls.closed && (calls.paused || (calls.inputEnded && calls.underWay == 0))
            return (ready, wake, reportIfDone(&calls))
        }
        for (place, work) in ready { start(work, at: place) }
        if wakeLoop { context.loop.post { [self] in pump() } }
        if report { reportEnded() }
    }

    /// True, once, when the connection is closed and nothing is under way.
    private func reportIfDone(_ calls: inout Calls) -> Bool {
        guard calls.closed && calls.underWay == 0 && !calls.reported else { return false }
        calls.reported = true
        return true
    }

    private func reportEnded() {
        calls.withLock { $0.stop }?.arrive(number)
        context.ended(self)
        finished.open()
    }

    // MARK: Answering

    /// The message a line holds; nil for a line too long.
    private static func message(in next: LineReader.Next) -> RPCMessage? {
        guard case .line(let line) = next else { return nil }
        return RPCMessage.read(line)
    }

    /// What `message` reads and changes: for a batch, all its requests do.
    private static func scope(of message: RPCMessage) -> RequestScope {
        switch message {
        case .single(let request): HostService.scope(of: request)
        case .batch(let requests): requests.map(HostService.scope).reduce(.nothing) { $0.union($1) }
        case .response: .nothing
        }
    }

    /// Answers one message (a request, a batch, or nil: a line too long),
    /// then calls `done`, now or later on another thread.
    private func answer(_ pending: Pending, done: @escaping @Sendable () -> Void) {
        guard let message = pending.message else {
            _ = push(RPCReply.error(.messageTooLarge(limit: context.limits.messageSize), id: .null))
            return done()
        }
        switch message {
        case .single(let request):
            answer(request, duplicate: pending.duplicates.contains(0)) { [self] reply in
                if let reply { _ = push(RPCReply.line(reply)) }
                done()
            }
        case .batch(let requests):
            let batch = BatchReplies(count: requests.count) { [self] replies in
                if !replies.isEmpty { _ = push(RPCReply.line(.array(replies))) }
                done()
            }
            for (position, request) in requests.enumerated() {
                answer(request, duplicate: pending.duplicates.contains(position)) { batch.set(position, $0) }
            }
        case .response:
            // Taken as it was read (`receive`); never admitted.
            done()
        }
    }

    /// Answers one request by calling `reply` with its JSON response (nil
    /// for a notification), now or later on another thread; a `duplicate`
    /// (its id under way already as it was read) is refused.
    private func answer(_ read: Result<RPCRequest, RPCFailure>, duplicate: Bool,
                        reply: @escaping @Sendable (JSON?) -> Void) {
        let request: RPCRequest
        switch read {
        case .success(let given): request = given
        case .failure(let failure): return reply(Self.reply(.failure(failure.error), id: failure.id))
        }
        guard let id = request.id else {
            return context.service.answer(request, from: self) { _ in reply(nil) }
        }
        // Answered with a null id (the id in error.data), so that it cannot be taken for the answer to come.
        if duplicate { return reply(Self.reply(.failure(.duplicateIdentifier(id)), id: .null)) }
        context.service.answer(request, from: self) { [self] result in
            // Free before the answer is written: the client may reuse the id as soon as it reads it.
            if id != .null { calls.withLock { _ = $0.ids.remove(id) } }
            reply(Self.reply(result, id: id))
        }
    }

    /// The JSON-RPC response object for `result`.
    private static func reply(_ result: Result<JSON, RPCError>, id: RPCID) -> JSON {
        switch result {
        case .success(let value):
            .object([("jsonrpc", .string("2.0")), ("id", id.json), ("result", value)])
        case .failure(let error):
            .object([("jsonrpc", .string("2.0")), ("id", id.json), ("error", error.json)])
        }
    }
}

/// The replies of one batch, gathered as they come (from any thread, in any
/// order) and handed on in the batch's order once the last has come.
private final class BatchReplies: Sendable {
    private let state: Mutex<(replies: [JSON?], left: Int)>
    private let whenAll: @Sendable ([JSON]) -> Void

    /// Gathers `count` replies, then calls `whenAll` with those that are not nil.
    init(count: Int, whenAll: @escaping @Sendable ([JSON]) -> Void) {
        state = Mutex((Array(repeating: nil, count: count), count))
        self.whenAll = whenAll
        if count == 0 { whenAll([]) }
    }

    /// The reply to the request at `position` (nil: a notification's).
    func set(_ position: Int, _ reply: JSON?) {
        let all = state.withLock { state -> [JSON]? in
            state.replies[position] = reply
            state.left -= 1
            return state.left == 0 ? state.replies.compactMap { $0 } : nil
        }
        if let all { whenAll(all) }
    }
}

/// What the loop tells when standard output, a descriptor apart from the
/// input, has room for what waits.
private final class OutputRoom: LoopSource {
    private weak var connection: Connection?

    init(_ connection: Connection) {
        self.connection = connection
    }

    func handle(_ events: Epoll.Events) {
        connection?.outputReady()
    }
}

/// A server's connections as it stops gracefully: told, by each, once all
/// it read is answered (and so every event of those calls published), and
/// then, once all have, `whenAll` runs, once.
final class StopBarrier: Sendable {
    private let waiting: Mutex<Set<Int>?>
    private let whenAll: @Sendable () -> Void

    /// Waits for the connections numbered `connections`; with none, runs `whenAll` at once.
    init(connections: [Int], whenAll: @escaping @Sendable () -> Void) {
        waiting = Mutex(Set(connections))
        self.whenAll = whenAll
        arrive(nil)
    }

    /// Connection `number` answered all it read (told again, it counts once).
    func arrive(_ number: Int?) {
        let all = waiting.withLock { waiting -> Bool in
            guard var left = waiting else { return false }
            if let number { left.remove(number) }
            waiting = left.isEmpty ? nil : left
            return left.isEmpty
        }
        if all { whenAll() }
    }
}
