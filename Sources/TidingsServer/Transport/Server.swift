import Glibc
import Synchronization
import TidingsBase

/// `tidings serve`: one long-running host answering JSON-RPC 2.0, one
/// message per line, from many clients at once — on a Unix socket, or on
/// standard input and output.
package final class Server: Sendable {
    /// How much the server takes.
    package struct Limits: Sendable {
        /// The longest message accepted, in bytes (a JSON-RPC error answers a longer one).
        package var messageSize = 1 << 20
        /// Output a client may leave unread before it is disconnected, in bytes.
        package var outputBuffer = 8 << 20
        /// Threads answering one client's calls at once; past them, its
        /// further requests wait (back-pressure).
        package var threadsPerConnection = 64
        /// How long a call may run before the client's next request is read by another thread, in nanoseconds.
        package var slowCall: UInt64 = 2_000_000
        /// How long a reader polls for a client's next request before it
        /// sleeps until one comes, in nanoseconds (0: it sleeps at once).
        package var pollBeforeWaiting: UInt64 = 50_000
        /// The kernel's send buffer per client, in bytes (SO_SNDBUF); nil
        /// for the system's default. With `outputBuffer` it bounds what a
        /// client that does not read costs.
        package var socketSendBuffer: Int32?

        /// The defaults.
        package init() {}

        /// The limits a client meets, as `server.describe` lists them: sizes in bytes.
        var described: [(String, JSON)] {
            [
                ("messageSize", .integer(Int64(messageSize))),
                ("unreadOutput", .integer(Int64(outputBuffer))),
                ("callsPerConnection", .integer(Int64(threadsPerConnection))),
            ]
        }
    }

    /// What the server answers with.
    package let service: HostService
    private let limits: Limits
    private let flusher = OutputFlusher()
    private let callsInFlight = CallCounter()
    private let connections = Mutex<(open: [Int: Connection], next: Int)>(([:], 0))
    private let stopping = Atomic<Bool>(false)
    /// The listening socket's descriptor while it listens; -1 otherwise.
    private let listening = Atomic<Int32>(-1)

    /// A server answering with `service`.
    package init(service: HostService, limits: Limits = Limits()) {
        self.service = service
        self.limits = limits
        service.describeTransportLimits(limits.described)
        Threads.start { [self] in watch() }
    }

    /// Accepts clients on `listener` until `stop()` or `finish()`; each gets
    /// its own reader. Clients of another user are refused. Once stopped, it
    /// returns when every client's calls under way have been answered.
    package func serve(_ listener: consuming FileDescriptor) {
        listening.store(listener.rawValue, ordering: .releasing)
        let user = geteuid()
        while !stopping.load(ordering: .acquiring), let client = UnixSocket.accept(on: listener) {
            guard UnixSocket.peerUser(of: client) == user else {
                let refusal = RPCReply.error(RPCError(-32006, "This server serves only user \(user)."), id: .null)
                _ = refusal.withUnsafeBytes { send(client.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                continue
            }
            if var size = limits.socketSendBuffer {
                setsockopt(client.rawValue, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            let connection = Connection(number: nextNumber(), socket: client, context: context)
            register(connection)
            if !Threads.start({ connection.serve() }) { connection.abandonThread() }
        }
        listening.store(-1, ordering: .releasing)
        // Clients accepted while it stopped read no more either.
        let open = connections.withLock { Array($0.open.values) }
        for connection in open { connection.stopReading() }
        for connection in open { connection.waitUntilFinished() }
    }

    /// Accepts clients on `listener` on a thread of its own, until `stop()`.
    package func serveInBackground(_ listener: consuming FileDescriptor) {
        let box = ListenerBox(listener)
        Threads.start { [self] in
            guard let listener = box.take() else { return }
            serve(listener)
        }
    }

    /// Hands a listening socket to the thread that serves it.
    private final class ListenerBox: @unchecked Sendable {
        // Taken once, by the one thread it is made for.
        private var listener: FileDescriptor?

        init(_ listener: consuming FileDescriptor) {
            self.listener = consume listener
        }

        func take() -> FileDescriptor? {
            listener.take()
        }
    }

    /// Serves the client on standard input, answering on `output`, until
    /// standard input ends (or `finish()`) and every call is answered.
    /// `output` is the caller's to choose: `tidings serve --stdio` opens a
    /// private copy of standard output and points standard output itself
    /// elsewhere at the start of that mode, so that what an
    /// extension prints never lands in the stream; the server changes no
    /// descriptor of the process.
    package func serveStandardIO(answeringOn output: consuming FileDescriptor) {
        let connection = Connection(number: nextNumber(), standardIOWith: context, output: output.take())
        register(connection)
        if stopping.load(ordering: .acquiring) { connection.stopReading() }
        connection.serve()
        connection.waitUntilFinished()
    }

    /// Stops gracefully, as on SIGTERM: no client is accepted and no request
    /// read any more, while the requests already read are answered and their
    /// answers sent; each connection then closes. `serve` and
    /// `serveStandardIO` return once they all have.
    package func finish() {
        stopping.store(true, ordering: .releasing)
        let listener = listening.load(ordering: .acquiring)
        if listener >= 0 { shutdown(listener, Int32(SHUT_RDWR)) }
        for connection in connections.withLock({ Array($0.open.values) }) { connection.stopReading() }
    }

    /// Stops at once: no client is accepted, and every client is sent away.
    package func stop() {
        stopping.store(true, ordering: .releasing)
        let listener = listening.load(ordering: .acquiring)
        if listener >= 0 { shutdown(listener, Int32(SHUT_RDWR)) }
        for connection in connections.withLock({ Array($0.open.values) }) { connection.end() }
        flusher.stop()
    }

    /// The number of clients connected now.
    package var clientCount: Int { connections.withLock { $0.open.count } }

    /// What every connection shares: the service, the flusher, the limits,
    /// and how it leaves the list when it ends.
    private var context: Connection.Context {
        Connection.Context(service: service, flusher: flusher, limits: limits, callsInFlight: callsInFlight) {
            [weak self] ended in
            self?.connections.withLock { _ = $0.open.removeValue(forKey: ended.number) }
        }
    }

    /// A number for the next connection.
    private func nextNumber() -> Int {
        connections.withLock { state in
            state.next += 1
            return state.next
        }
    }

    /// Lists `connection` among the open ones.
    private func register(_ connection: Connection) {
        connections.withLock { $0.open[connection.number] = connection }
    }

    /// The watchdog: gives a client whose call runs long another reader.
    /// It looks twice per `slowCall` while calls are being answered, and
    /// rests otherwise.
    private func watch() {
        let half = max(limits.slowCall / 2, 100_000)
        var busy = timespec(tv_sec: Int(half / 1_000_000_000), tv_nsec: Int(half % 1_000_000_000))
        var idle = timespec(tv_sec: 0, tv_nsec: 50_000_000)
        while !stopping.load(ordering: .acquiring) {
            if callsInFlight.isBusy { nanosleep(&busy, nil) } else { nanosleep(&idle, nil) }
            let now = MonotonicClock.now()
            for connection in connections.withLock({ Array($0.open.values) })
            where connection.needsAnotherReader(now: now, threshold: limits.slowCall) {
                if !Threads.start({ connection.serve() }) { connection.abandonThread() }
            }
        }
    }
}
