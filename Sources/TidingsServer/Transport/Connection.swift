import Glibc
import Synchronization
import TidingsBase

/// One client: a socket, or standard input and output.
///
/// A thread reads a message and answers it itself, so a quick call costs
/// no hand-over between threads. When a call runs long (a slow extension),
/// the server's watchdog gives the connection another reader, so that the
/// client's other requests go on; a reader whose call ends while another
/// reads leaves. A request that touches what an earlier one still under way
/// touches waits for it (`RequestOrder`), so that the client's requests on
/// one notification are applied in the order sent. Answers and events are
/// written without waiting: what the client does not take at once waits in
/// a bounded buffer, and a client that lets it fill up is disconnected.
final class Connection: EventReceiver, Sendable {
    /// A number for logs.
    let number: Int
    /// Where requests come from.
    let input: Int32
    /// Where answers and events go.
    let output: Int32
    /// The socket, owned here; nil for standard input and output, which are the process's.
    private let socket: FileDescriptor?
    /// For standard I/O, the private copy of standard output answers go to.
    private let ownedOutput: FileDescriptor?
    /// For standard input, which cannot be shut down, a pipe a reader waits
    /// on beside it: `stopReading()` closes the writing end, and the reading
    /// end (its descriptor here, -1 for a socket) then stays readable.
    private let stopReader: FileDescriptor?
    private let stopReaderDescriptor: Int32
    private let stopWriter = Mutex<FileDescriptor?>(nil)
    private let context: Context

    /// What every connection of a server shares.
    struct Context: Sendable {
        let service: HostService
        let flusher: OutputFlusher
        let limits: Server.Limits
        /// Calls being answered on every connection of the server, for the watchdog.
        let callsInFlight: CallCounter
        /// Told when the connection ends.
        let ended: @Sendable (Connection) -> Void
    }

    /// Who serves the connection.
    private struct Roles {
        /// A thread is reading (or waiting to).
        var reading = false
        /// Threads serving the connection, reading or answering.
        var threads = 1
        /// The calls being answered: when each began (monotonic nanoseconds).
        var calls: [UInt64: UInt64] = [:]
        var nextCall: UInt64 = 0
        /// The client left, or was sent away.
        var ended = false
    }

    /// What waits to be written.
    private struct Output {
        var pending: [UInt8] = []
        var closed = false
        /// The flusher has been asked to send `pending`.
        var watched = false
    }

    private let reader: Mutex<LineReader>
    private let roles = Mutex(Roles())
    /// The requests under way, in the order read.
    private let order = RequestOrder()
    private let pending = Mutex(Output())
    /// The ids of requests being answered, to refuse one reused meanwhile.
    private let inFlight = Mutex<Set<RPCID>>([])
    /// Opened when the client is gone and every thread has finished.
    private let finished = Latch()
    /// The connection has been closed (once).
    private let closed = Atomic<Bool>(false)

    /// A connection over `socket`.
    init(number: Int, socket: consuming FileDescriptor, context: Context) {
        self.number = number
        input = socket.rawValue
        output = socket.rawValue
        self.socket = consume socket
        ownedOutput = nil
        stopReader = nil
        stopReaderDescriptor = -1
        self.context = context
        reader = Mutex(LineReader(limit: context.limits.messageSize))
    }

    /// A connection over the process's standard input and `output`, a copy
    /// of standard output the connection owns.
    init(number: Int, standardIOWith context: Context, output: Int32) {
        self.number = number
        input = 0
        self.output = output
        ownedOutput = FileDescriptor(adopting: output)
        socket = nil
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            stopReader = FileDescriptor(adopting: ends[0])
            stopReaderDescriptor = ends[0]
            stopWriter.withLock { $0 = FileDescriptor(adopting: ends[1]) }
        } else {
            stopReader = nil
            stopReaderDescriptor = -1
        }
        self.context = context
        reader = Mutex(LineReader(limit: context.limits.messageSize))
    }

    // MARK: Reading and answering

    /// Serves the connection on the calling thread until the client leaves or
    /// another thread takes over reading.
    func serve() {
        while true {
            let reads = roles.withLock { roles in
                if roles.reading || roles.ended {
                    roles.threads -= 1
                    return false
                }
                roles.reading = true
                return true
            }
            guard reads else { return leave() }
            guard let line = nextMessage() else {
                // The client sent its last request: the calls under way still answer.
                roles.withLock { roles in
                    roles.ended = true
                    roles.reading = false
                    roles.threads -= 1
                }
                return leave()
            }
            // Read and admitted before the next reader may read: the order of admission is the order sent.
            let message = Self.message(in: line)
            let place = order.admit(message.map(Self.scope) ?? .nothing)
            let call = roles.withLock { roles in
                roles.reading = false
                roles.nextCall += 1
                roles.calls[roles.nextCall] = MonotonicClock.now()
                return roles.nextCall
            }
            context.callsInFlight.add(1)
            // A call waiting its turn counts as a slow one: the watchdog gives the client another reader meanwhile.
            order.waitForTurn(of: place)
            answer(message)
            order.finish(place)
            context.callsInFlight.add(-1)
            roles.withLock { _ = $0.calls.removeValue(forKey: call) }
        }
    }

    /// True, counting a new thread in, when no thread reads and a call has run
    /// longer than `threshold` nanoseconds: the watchdog then starts one.
    func needsAnotherReader(now: UInt64, threshold: UInt64) -> Bool {
        roles.withLock { roles in
            guard !roles.reading, !roles.ended, roles.threads < context.limits.threadsPerConnection,
                  roles.calls.values.contains(where: { now &- $0 > threshold })
            else { return false }
            roles.threads += 1
            return true
        }
    }

    /// A thread counted in to serve the connection could not be started:
    /// counts it out again, ending the connection when no thread serves it.
    func abandonThread() {
        let alone = roles.withLock { roles in
            roles.threads -= 1
            return roles.threads == 0
        }
        if alone { end() } else { leave() }
    }

    /// Reads no more: the requests read so far are answered (a last one
    /// without its newline included), and the connection then closes as if
    /// the client had ended its input. The server's graceful stop.
    func stopReading() {
        if socket != nil {
            // Wakes a reader; what the client sent before is still read, and it can send no more.
            shutdown(input, Int32(SHUT_RD))
        } else {
            stopWriter.withLock { $0 = nil }
        }
    }

    /// Waits until the client is gone and every call has been answered.
    func waitUntilFinished() {
        _ = finished.wait(until: .max)
    }

    /// The next message, reading as needed; nil when the client left (or
    /// `stopReading` was called) and every message it sent was taken.
    private func nextMessage() -> LineReader.Next? {
        withUnsafeTemporaryAllocation(byteCount: 65_536, alignment: 16) { buffer in
            while true {
                let next = reader.withLock { $0.next() }
                if next != .needMore { return next }
                let count = SystemCall.retrying { receive(into: buffer) }
                guard count > 0 else { return count == 0 ? reader.withLock { $0.finish() } : nil }
                reader.withLock { $0.append(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
            }
        }
    }

    /// Reads what the client sent into `buffer`, waiting for it. On a socket
    /// it first polls, for `limits.pollBeforeWaiting` nanoseconds: a client
    /// that sends its next request as soon as it has the answer is served
    /// without the thread being put to sleep and woken, which costs more
    /// than the poll on many machines. The corresponding C function is `recv`.
    private func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let window = context.limits.pollBeforeWaiting
        if socket != nil && window > 0 {
            let until = MonotonicClock.now() + window
            repeat {
                let count = recv(input, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                if count >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { return count }
                sched_yield()
            } while MonotonicClock.now() < until
        }
        while true {
            if stopReaderDescriptor >= 0 {
                // Standard input: waits for it, or for `stopReading`, which reads as its end.
                var descriptors = [pollfd(fd: input, events: Int16(POLLIN), revents: 0),
                                   pollfd(fd: stopReaderDescriptor, events: Int16(POLLIN), revents: 0)]
                _ = SystemCall.retrying { poll(&descriptors, 2, -1) }
                if descriptors[1].revents != 0 { return 0 }
            }
            let count = read(input, buffer.baseAddress, buffer.count)
            guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK else { return count }
            // An input left non-blocking by whoever started us: wait for it (standard input is waited for above).
            if stopReaderDescriptor >= 0 { continue }
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, -1)
        }
    }

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
        }
    }

    /// Answers one message: a request, a batch, or (nil) a line too long.
    private func answer(_ message: RPCMessage?) {
        guard let message else {
            _ = push(RPCReply.error(.messageTooLarge(limit: context.limits.messageSize), id: .null))
            return
        }
        switch message {
        case .single(let request):
            if let reply = answer(request) { _ = push(RPCReply.line(reply)) }
        case .batch(let requests):
            let replies = requests.compactMap(answer)
            if !replies.isEmpty { _ = push(RPCReply.line(.array(replies))) }
        }
    }

    /// The reply to one request, as JSON; nil for a notification.
    private func answer(_ read: Result<RPCRequest, RPCFailure>) -> JSON? {
        let request: RPCRequest
        switch read {
        case .success(let given): request = given
        case .failure(let failure): return Self.reply(.failure(failure.error), id: failure.id)
        }
        guard let id = request.id else {
            _ = context.service.answer(request, from: self)
            return nil
        }
        if id != .null {
            // Answered with a null id (the id in error.data), so that it cannot be taken for the answer to come.
            guard inFlight.withLock({ $0.insert(id).inserted }) else {
                return Self.reply(.failure(.duplicateIdentifier(id)), id: .null)
            }
        }
        defer { if id != .null { inFlight.withLock { _ = $0.remove(id) } } }
        return Self.reply(context.service.answer(request, from: self), id: id)
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

    // MARK: Writing

    /// Writes `line` now or, what the client cannot take yet, later; false
    /// when the client is gone, or has let too much wait and is sent away.
    func push(_ line: [UInt8]) -> Bool {
        let (accepted, watch, close) = pending.withLock { output -> (Bool, Bool, Bool) in
            guard !output.closed else { return (false, false, false) }
            var rest = line[...]
            if output.pending.isEmpty {
                guard send(&rest) else {
                    output.closed = true
                    return (false, false, true)
                }
                if rest.isEmpty { return (true, false, false) }
            }
            // A client is sent away for output it left unread, not for one long answer.
            let unread = output.pending.count
            output.pending += rest
            guard unread <= context.limits.outputBuffer else {
                output.closed = true
                output.pending = []
                return (false, false, true)
            }
            defer { output.watched = true }
            return (true, !output.watched, false)
        }
        if close { end() }
        if watch { context.flusher.watch(self) }
        return accepted
    }

    /// Sends what is pending; true when some is still left (the flusher watches on).
    func flush() -> Bool {
        let (left, failed) = pending.withLock { output -> (Bool, Bool) in
            guard !output.closed else { return (false, false) }
            var rest = output.pending[...]
            guard send(&rest) else {
                output.closed = true
                return (false, true)
            }
            output.pending = Array(rest)
            output.watched = !output.pending.isEmpty
            return (output.watched, false)
        }
        if failed { end() }
        return left
    }

    /// Writes as much of `bytes` as the client takes without waiting (all of
    /// it, waiting, on standard output), dropping what was written; false
    /// when the client is gone.
    private func send(_ bytes: inout ArraySlice<UInt8>) -> Bool {
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { buffer in
                SystemCall.retrying {
                    socket != nil
                        ? Glibc.send(output, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                        : write(output, buffer.baseAddress, buffer.count)
                }
            }
            if count < 0 {
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
            bytes = bytes.dropFirst(count)
        }
        return true
    }

    // MARK: Ending

    /// Ends the connection now: nothing more is read or written, readers
    /// wake, events stop.
    func end() {
        roles.withLock { $0.ended = true }
        close(flushing: false)
        leave()
    }

    /// Closes the output, wakes a reader, stops events and leaves the
    /// server's list; once only.
    /// When `flushing` (the client ended its input; it may still read), what
    /// is pending is sent first, for up to a second.
    private func close(flushing: Bool) {
        guard closed.exchange(true, ordering: .acquiringAndReleasing) == false else { return }
        pending.withLock { output in
            // A client that closed only its sending side still gets what was answered.
            let deadline = MonotonicClock.deadline(after: 1)
            while flushing && !output.closed && !output.pending.isEmpty && MonotonicClock.now() < deadline {
                var rest = output.pending[...]
                guard send(&rest) else { break }
                output.pending = Array(rest)
                if !output.pending.isEmpty {
                    var descriptor = pollfd(fd: self.output, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, 100)
                }
            }
            output.closed = true
            output.pending = []
        }
        if socket != nil { shutdown(input, Int32(SHUT_RDWR)) }
        context.service.subscribers.unsubscribe(self)
        context.ended(self)
    }

    /// Called as a thread stops serving: once no more is read and the last
    /// thread is out, the connection closes and `finished` opens.
    private func leave() {
        guard roles.withLock({ $0.ended && $0.threads == 0 }) else { return }
        close(flushing: true)
        finished.open()
    }
}

/// How many calls a server is answering, across its connections.
final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Adds `delta` (1 as a call begins, -1 as it ends).
    func add(_ delta: Int) {
        count.add(delta, ordering: .relaxed)
    }

    /// True while some call is being answered.
    var isBusy: Bool { count.load(ordering: .relaxed) > 0 }
}
