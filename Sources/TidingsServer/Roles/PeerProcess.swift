import Glibc
import TidingsBase
import TidingsSystemShims

/// The process at the other end of an accepted socket, pinned: its
/// credentials (SO_PEERCRED) and a pidfd of it (SO_PEERPIDFD, Linux 6.5;
/// else pidfd_open of its pid, which a pid reused between connect and
/// accept could fool, and which is therefore checked the same way).
/// Whatever is read of `/proc/PID` is trusted only when `isAlive` says,
/// after the reading, that the process the pidfd names still runs: while
/// it runs, its pid names no other process.
struct PeerProcess: ~Copyable {
    /// SO_PEERPIDFD of <asm-generic/socket.h>, which Swift's Glibc lacks.
    static let peerPidfdOption: Int32 = 77

    /// What the kernel says of the peer.
    let credentials: PeerCredentials
    /// A pidfd of the peer's process, owned here.
    private let pidfd: FileDescriptor

    /// The peer of `socket`, or why it cannot be pinned: no credentials, a
    /// pid outside the server's pid namespace (0), no pidfd.
    init(of socket: Int32) throws(PeerInspectionFailure) {
        guard let credentials = Self.credentials(of: socket) else {
            throw PeerInspectionFailure("the socket has no peer credentials (\(SystemError.current()))")
        }
        guard credentials.pid > 0 else {
            throw PeerInspectionFailure("its pid is outside the server's pid namespace")
        }
        var descriptor: Int32 = -1
        var size = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(socket, SOL_SOCKET, Self.peerPidfdOption, &descriptor, &size) != 0 || descriptor < 0 {
            descriptor = SystemCall.retryingNegative { tidings_pidfd_open(credentials.pid) }
            guard descriptor >= 0 else {
                throw PeerInspectionFailure("no pidfd of pid \(credentials.pid): \(SystemError(code: -descriptor))")
            }
        }
        self.credentials = credentials
        pidfd = FileDescriptor(adopting: descriptor)
    }

    /// The credentials of `socket`'s peer (SO_PEERCRED), whoever it is.
    static func credentials(of socket: Int32) -> PeerCredentials? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, which Swift's Glibc does not export.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid)
    }

    /// True while the process the pidfd names runs (signal 0 reaches it).
    var isAlive: Bool {
        SystemCall.retryingNegative { tidings_pidfd_send_signal(pidfd.rawValue, 0) } == 0
    }
}

/// Why a peer could not be inspected.
struct PeerInspectionFailure: Error {
    /// Why, in words, for the log and `uninspectable`.
    let reason: String

    /// A failure saying `reason`.
    init(_ reason: String) {
        self.reason = reason
    }
}
