import Glibc
import Synchronization
import TidingsBase

/// `tidings serve`: one long-running host answering JSON-RPC 2.0, one
/// message per line, from many clients at once — on a Unix socket, or on
/// standard input and output.
///
/// One event loop thread (`EventLoop`) accepts clients, reads and writes
/// every connection and answers the calls it reads inline; one that runs
/// `Limits.slowCall` hands the loop to a new thread (`LoopBaton`). Calls
/// whose turn comes later, and those that were to follow a slow one, are
/// answered on a pool of at most `Limits.callThreads` threads (`CallPool`).
/// Neither grows with the number of clients nor with the calls waiting: a
/// call whose turn has not come, or that waits for an extension's
/// completion, holds no thread.
package final class Server: Sendable {
    /// How much the server takes.
    package struct Limits: Sendable {
        /// The longest message accepted, in bytes (a JSON-RPC error answers a longer one).
        package var messageSize = 1 << 20
        /// Output a client may leave unread before it is disconnected, in bytes.
        package var outputBuffer = 8 << 20
        /// Messages of one client under way at once (answered, or waiting
        /// for their turn); past them, the server reads no more of its
        /// requests until one is answered (back-pressure).
        package var callsPerConnection = 64
        /// The threads answering calls, whatever the number of clients.
        package var callThreads = CallPool.defaultLimit
        /// The most threads answering calls while calls block theirs (an
        /// extension that takes its time): when a request has waited
        /// `slowCall` with every thread busy, one more starts, up to this;
        /// and the most threads the loop may leave blocked in a call.
        package var callThreadsWhenBlocked = 64
        /// How long a request may wait for a thread while every one is busy,
        /// and an inline call may hold the event loop, in nanoseconds.
        package var slowCall: UInt64 = 2_000_000
        /// How long the event loop polls for the next request before it
        /// sleeps, in nanoseconds, when requests have lately come that soon
        /// (0, the default: it sleeps at once). Polling saves the wake-up of
        /// a sleeping thread on each request of a client that sends its next
        /// as soon as it has the answer, at the cost of a core spinning;
        /// `tidings serve --spin` sets it.
        package var spinBeforeWaiting: UInt64 = 0
        /// The kernel's send buffer per client, in bytes (SO_SNDBUF); nil
        /// for the system's default. With `outputBuffer` it bounds what a
        /// client that does not read costs.
        package var socketSendBuffer: Int32?
        /// The most clients connected at once, in all; the server also keeps
        /// it under its limit of open files (`RLIMIT_NOFILE`) less
        /// `descriptorSpare`. One more is sent a -32012 error line and closed.
        package var connections = 1024
        /// The most clients connected at once from one process (the peer's
        /// pid, SO_PEERCRED).
        package var connectionsPerProcess = 128
        /// Of `connections`, how many are kept for processes that have none
        /// yet: a process that exhausted its share leaves room for a new
        /// front end.
        package var connectionReserve = 16
        /// How long a request may take from its first byte to its newline,
        /// in seconds; a client that leaves one unfinished longer is sent a
        /// -32012 error line and closed.
        package var partialRequestTimeout = 10.0

        /// The descriptors kept free of connections under `RLIMIT_NOFILE`:
        /// for attachments, the journal, extension workers and the listener.
        package static let descriptorSpare = 128

        /// The defaults.
        package init() {}

        /// `connections` as the limit of open files allows: under the soft
        /// limit less `descriptorSpare` (and at least the reserve and one more).
        var connectionsAllowed: Int {
            var limit = rlimit()
            guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
                return connections
            }
            let open = Int(clamping: limit.rlim_cur) - Self.descriptorSpare
            return max(min(connections, open), connectionReserve + 1)
        }

        /// The limits a client meets, as `server.describe` lists them: sizes in bytes.
        var described: [(String, JSON)] {
            [
                ("messageSize", .integer(Int64(messageSize))),
                ("unreadOutput", .integer(Int64(outputBuffer))),
                ("callsPerConnection", .integer(Int64(callsPerConnection))),
                ("connections", .integer(Int64(connectionsAllowed))),
                ("connectionsPerProcess", .integer(Int64(connectionsPerProcess))),
                ("connectionReserve", .integer(Int64(connectionReserve))),
                ("partialRequestTimeout", .double(partialRequestTimeout)),
            ]
        }
    }

    /// What the server answers with.
    package let service: HostService
    private let limits: Limits
    private let loop: EventLoop
    private let pool: CallPool
    /// The clients connected, and how many each process has.
    private let connections = Mutex<Clients>(Clients())
    /// The total of `limits.connections` the limit of open files allows, read at start.
    private let connectionsAllowed: Int
    /// A refusal was logged and no client has been admitted since: one line per shortage.
    private let refusing = Atomic<Bool>(false)

    /// The clients connected: by number, and how many each process has.
    private struct Clients {
        /// The connections open, by number.
        var open: [Int: Connection] = [:]
        /// The number of the last connection made.
        var next = 0
        /// How many connections each peer process (by pid) has open.
        var perProcess: [Int32: Int] = [:]
    }
    private let stopping = Atomic<Bool>(false)
    /// Opened once no client is accepted any more.
    private let listenerClosed = Latch()
    /// The listener's acceptor, the loop's own.
    private let acceptor = LoopOwned<Acceptor?>(nil)

    /// A server answering with `service`; its event loop starts at once.
    /// - Throws: `serve.socket` when the loop's epoll instance, eventfd or thread cannot be had.
    package init(service: HostService, limits: Limits = Limits()) throws(Diagnostic) {
        self.service = service
        self.limits = limits
        connectionsAllowed = limits.connectionsAllowed
        pool = CallPool(limit: limits.callThreads, overflowLimit: limits.callThreadsWhenBlocked, slowCall: limits.slowCall)
        do throws(SystemError) {
            loop = try EventLoop(spin: limits.spinBeforeWaiting, slowCall: limits.slowCall,
                                 blockedLimit: limits.callThreadsWhenBlocked, pool: pool)
        } catch {
            throw .error(.socketUnavailable, "The server's event loop cannot start: \(error).")
        }
        service.describeTransportLimits(limits.described)
    }

    /// Accepts clients on `listener` until `stop()` or `finish()`; clients of
    /// another user are refused. Once stopped, it returns when every
    /// client's calls under way have been answered.
    package func serve(_ listener: consuming FileDescriptor) {
        let box = ListenerBox(listener)
        loop.post { [self] in
            guard let listener = box.take(), !stopping.load(ordering: .acquiring) else { return listenerClosed.open() }
            let acceptor = Acceptor(listener: listener, loop: loop, log: service.configuration.log) { [self] client in
                admit(client)
            }
            do throws(SystemError) {
                try acceptor.open()
                self.acceptor.value = acceptor
            } catch {
                service.configuration.log(.error(.socketUnavailable, "The server cannot watch its socket: \(error)."))
                listenerClosed.open()
            }
        }
        _ = listenerClosed.wait(until: .max)
        waitForClients()
    }

    /// Accepts clients on `listener` on a thread of its own, until `stop()`.
    package func serveInBackground(_ listener: consuming FileDescriptor) {
        let box = ListenerBox(listener)
        Threads.start { [self] in
            guard let listener = box.take() else { return }
            serve(listener)
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
        let connection = Connection(number: nextNumber(), standardIOWith: context, output: output)
        register(connection)
        loop.post { connection.open() }
        if stopping.load(ordering: .acquiring) { connection.stopReading() }
        _ = connection.finished.wait(until: .max)
    }

    /// Stops gracefully, as on SIGTERM: no client is accepted and no request
    /// read any more, while the requests already read are answered and their
    /// answers sent. Once every client's calls are answered — and so every
    /// event they caused was pushed to the subscribers, who are all still
    /// connected — each connection closes once what it is owed is sent.
    /// `serve` and `serveStandardIO` return once they all have.
    package func finish() {
        stopping.store(true, ordering: .releasing)
        loop.post { [self] in
            closeListener()
            let open = openConnections
            let stop = StopBarrier(connections: open.map(\.number)) { [self] in
                loop.post { [self] in
                    for connection in openConnections { connection.release() }
                }
            }
            for connection in open { connection.stopReading(until: stop) }
        }
    }

    /// Stops at once: no client is accepted, every client is sent away, and
    /// the loop and the pool's threads end once the calls under way are answered.
    package func stop() {
        stopping.store(true, ordering: .releasing)
        loop.post { [self] in
            closeListener()
            for connection in openConnections { connection.end() }
        }
        loop.end()
        pool.stop()
    }

    /// The number of clients connected now.
    package var clientCount: Int { connections.withLock { $0.open.count } }

    // MARK: Connections

    /// What every connection shares.
    private var context: Connection.Context {
        Connection.Context(service: service, limits: limits, loop: loop, pool: pool) { [weak self] ended in
            self?.connections.withLock { clients in
                _ = clients.open.removeValue(forKey: ended.number)
                if let pid = ended.identity.current.peer?.pid {
                    clients.perProcess[pid, default: 1] -= 1
                    if clients.perProcess[pid] == 0 { clients.perProcess[pid] = nil }
                }
            }
        }
    }

    /// Serves a client accepted, on the loop.
    private func admit(_ client: consuming FileDescriptor) {
        if var size = limits.socketSendBuffer {
            setsockopt(client.rawValue, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        // The bounds first (by SO_PEERCRED's pid alone): a refused client costs no reading of /proc.
        let peer = PeerProcess.credentials(of: client.rawValue)
        if let refusal = admission(of: peer?.pid) {
            let line = RPCReply.error(refusal, id: .null)
            _ = line.withUnsafeBytes { send(client.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if !refusing.exchange(true, ordering: .relaxed) {
                service.configuration.log(.warning(.connectionRefused, "A client (pid \(peer.map { "\($0.pid)" } ?? "unknown")) was refused: \(refusal.message)"))
            }
            return
        }
        refusing.store(false, ordering: .relaxed)
        let (credentials, inspection) = PeerInspector.inspect(client.rawValue)
        if case .uninspectable(let reason) = inspection {
            service.configuration.log(.note(.connectionRefused, "Client pid \(credentials.map { "\($0.pid)" } ?? "unknown") cannot be inspected (\(reason)): it may only be an app connection, after server.hello."))
        }
        let connection = Connection(number: nextNumber(), socket: client,
                                    identity: ClientIdentity(peer: credentials, inspection: inspection), context: context)
        register(connection)
        connection.open()
    }

    /// Why a client of process `pid` may not connect now (-32012), or nil
    /// when it may: within `connectionsPerProcess`, and within `connections`
    /// less the reserve unless the process has no connection yet.
    private func admission(of pid: Int32?) -> RPCError? {
        connections.withLock { clients in
            let mine = pid.map { clients.perProcess[$0] ?? 0 } ?? 0
            if mine >= limits.connectionsPerProcess {
                return .limitReached("connectionsPerProcess", value: limits.connectionsPerProcess,
                                     "This process has \(mine) connections open, the most one may (connectionsPerProcess); the connection closes.")
            }
            let open = clients.open.count
            let shared = connectionsAllowed - (mine > 0 ? limits.connectionReserve : 0)
            guard open < shared else {
                return .limitReached("connections", value: connectionsAllowed,
                                     "The server has \(open) connections open, the most it takes\(mine > 0 ? " from a process that has one already" : "") (connections); the connection closes.")
            }
            return nil
        }
    }

    /// Closes the listener, on the loop: no client is accepted any more.
    private func closeListener() {
        acceptor.value?.close()
        acceptor.value = nil
        listenerClosed.open()
    }

    /// Waits until every connection has closed and its calls are answered.
    private func waitForClients() {
        for connection in openConnections { _ = connection.finished.wait(until: .max) }
    }

    private var openConnections: [Connection] { connections.withLock { Array($0.open.values) } }

    /// A number for the next connection.
    private func nextNumber() -> Int {
        connections.withLock { state in
            state.next += 1
            return state.next
        }
    }

    /// Lists `connection` among the open ones.
    private func register(_ connection: Connection) {
        connections.withLock { clients in
            clients.open[connection.number] = connection
            if let pid = connection.identity.current.peer?.pid { clients.perProcess[pid, default: 0] += 1 }
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
}

/// A value only the event loop's thread touches, kept in a `Sendable` owner.
private final class LoopOwned<Value>: @unchecked Sendable {
    // Read and written on the loop's thread only.
    var value: Value

    init(_ value: Value) {
        self.value = value
    }
}

extension Diagnostic.Code {
    /// A client was refused at accept: a connection limit was reached.
    package static let connectionRefused = Self("serve.connection-refused")
}
