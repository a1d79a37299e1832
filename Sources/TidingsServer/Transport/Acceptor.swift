import Glibc
import TidingsBase

/// The listening socket on the event loop: accepts every client waiting,
/// refuses those of another user, and hands the others to the server. When
/// the process is out of descriptors (`RLIMIT_NOFILE`) or memory, it says
/// so once in the server's log and tries again 100 ms later, the clients
/// waiting in the backlog meanwhile.
final class Acceptor: LoopSource {
    private let listener: FileDescriptor
    /// Closed: it accepts no more (the socket closes with the acceptor).
    private var closed = false
    private let loop: EventLoop
    /// Takes a client accepted.
    private let admit: (consuming FileDescriptor) -> Void
    private let log: @Sendable (Diagnostic) -> Void
    private var token: UInt64?
    /// A shortage was reported and has not ended.
    private var short = false
    private let user = geteuid()

    /// An acceptor for `listener`, which it owns.
    init(listener: consuming FileDescriptor, loop: EventLoop, log: @escaping @Sendable (Diagnostic) -> Void,
         admit: @escaping (consuming FileDescriptor) -> Void) {
        self.listener = consume listener
        self.loop = loop
        self.log = log
        self.admit = admit
    }

    /// Starts accepting, on the loop.
    func open() throws(SystemError) {
        let descriptor = listener.rawValue
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        token = try loop.register(descriptor, for: .readable, self)
    }

    /// Accepts no more, on the loop; the listener closes with the acceptor.
    func close() {
        if let token { loop.unregister(listener.rawValue, token: token) }
        token = nil
        closed = true
        shutdown(listener.rawValue, Int32(SHUT_RDWR))
    }

    func handle(_ events: Epoll.Events) {
        let descriptor = listener.rawValue
        guard !closed, let token else { return }
        while true {
            let client: FileDescriptor?
            do throws(SystemError) {
                client = try UnixSocket.accept(on: listener)
            } catch {
                guard UnixSocket.isShortage(error) else { return close() }
                if !short {
                    short = true
                    log(.warning(.acceptShortage, "Cannot accept a client for now (\(error)): "
                        + "raise the limit of open files (ulimit -n, now \(Self.descriptorLimit)) or close some; "
                        + "clients wait in the backlog meanwhile."))
                }
                // Watched again in 100 ms: a listener left ready would wake the loop without end.
                loop.change(descriptor, token: token, to: [])
                loop.schedule(at: MonotonicClock.deadline(after: 0.1)) { [self] in
                    if !closed, let token = self.token { loop.change(descriptor, token: token, to: .readable) }
                }
                return
            }
            guard let client else {
                short = false
                return
            }
            guard UnixSocket.peerUser(of: client) == user else {
                let refusal = RPCReply.error(RPCError(-32006, "This server serves only user \(user)."), id: .null)
                _ = refusal.withUnsafeBytes { send(client.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                continue
            }
            admit(client)
        }
    }

    /// The soft limit of open files.
    private static var descriptorLimit: String {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return "unknown" }
        return limit.rlim_cur == rlim_t.max ? "unlimited" : "\(limit.rlim_cur)"
    }
}
