import Glibc
import TidingsBase

/// Unix-domain stream sockets: the server's listener, its peers' credentials,
/// and a client's connection (for tests and the benchmark).
package enum UnixSocket {
    /// Why a socket could not be set up: one sentence.
    package struct Failure: Error, Sendable {
        /// What went wrong.
        package let message: String
    }

    /// The default socket: `$XDG_RUNTIME_DIR/tidings/tidings.sock`; nil
    /// when `XDG_RUNTIME_DIR` is not set.
    package static func defaultPath(in environment: [String: String]) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        return Path.join(runtime, "tidings/tidings.sock")
    }

    /// Listens at `path`: its directory is made 0700 when missing, the
    /// socket is 0600. A socket file left by a server that is gone is
    /// replaced; one a live server answers on is not.
    /// The corresponding C functions are `socket`, `bind` and `listen`.
    package static func listen(at path: String) throws(Failure) -> FileDescriptor {
        let directory = Path.directory(of: path)
        do {
            try FileSystem.createDirectory(directory, mode: 0o700)
        } catch {
            throw Failure(message: "The socket's directory cannot be made: \(error.message)")
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw Failure(message: "\(path) exists and is not a socket; remove it or choose another path.")
            }
            if (try? connect(to: path)) != nil {
                throw Failure(message: "A server already listens at \(path).")
            }
            unlink(path)
        }
        let socket = try makeSocket()
        var address = try address(of: path)
        // No umask change (it is the whole process's): the socket is made
        // 0600 right after bind, and until then a peer of another user is
        // refused anyway (SO_PEERCRED).
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw Failure(message: "Cannot listen at \(path): \(SystemError.current()).") }
        guard chmod(path, 0o600) == 0 else {
            throw Failure(message: "Cannot make \(path) private: \(SystemError.current()).")
        }
        guard Glibc.listen(socket.rawValue, 128) == 0 else {
            throw Failure(message: "Cannot listen at \(path): \(SystemError.current()).")
        }
        return socket
    }

    /// Connects to the server at `path`. The corresponding C function is `connect`.
    package static func connect(to path: String) throws(Failure) -> FileDescriptor {
        let socket = try makeSocket()
        var address = try address(of: path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw Failure(message: "Cannot connect to \(path): \(SystemError.current()).") }
        return socket
    }

    /// The next client of `listener`, waiting for one; nil once the
    /// listener is shut down or closed. A shortage (no descriptor or memory
    /// left for now) is waited out, never taken for the end.
    /// The corresponding C function is `accept`.
    package static func accept(on listener: borrowing FileDescriptor) -> FileDescriptor? {
        while true {
            let client = SystemCall.retrying { Glibc.accept(listener.rawValue, nil, nil) }
            if client >= 0 {
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                return FileDescriptor(adopting: client)
            }
            switch errno {
            case ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                usleep(10_000)
            default:
                return nil
            }
        }
    }

    /// The user id of the process at the other end of `socket`.
    /// The corresponding C function is `getsockopt(SO_PEERCRED)`.
    package static func peerUser(of socket: borrowing FileDescriptor) -> uid_t? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, which Swift's Glibc does not export.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(socket.rawValue, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return nil }
        return credentials.uid
    }

    private static func makeSocket() throws(Failure) -> FileDescriptor {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw Failure(message: "Cannot make a socket: \(SystemError.current()).") }
        return FileDescriptor(adopting: socket)
    }

    private static func address(of path: String) throws(Failure) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw Failure(message: "The socket path \(path) is longer than \(capacity - 1) bytes, the most a Unix socket takes.")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return address
    }
}
