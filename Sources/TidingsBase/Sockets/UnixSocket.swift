import Glibc

/// Unix-domain stream sockets: the server's listener, its peers' credentials,
/// and a client's connection (the command line, the desktop front end, tests
/// and the benchmark). The server accepts its clients with `accept(on:)`, in
/// TidingsServer.
package enum UnixSocket {
    /// The default socket: `$XDG_RUNTIME_DIR/tidings/tidings.sock`; nil
    /// when `XDG_RUNTIME_DIR` is not set.
    package static func defaultPath(in environment: [String: String]) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        return Path.join(runtime, "tidings/tidings.sock")
    }

    /// Listens at `path`. Its directory is checked first: made 0700 when
    /// missing, refused when it is a link, another user's or writable by
    /// others (see `FileDescriptor(openingPrivateDirectory:)`). The socket
    /// is made 0600. What is at `path` already must be a socket of the
    /// user's own: one left by a server that is gone is replaced; one a live
    /// server answers on is not.
    ///
    /// The socket is bound, made 0600 and listening under a temporary name
    /// (`.PID` beside it) before it is renamed to `path`: a client that finds
    /// the socket there can connect at once, never between `bind` and
    /// `listen` (refused), and never finds it with the umask's mode.
    /// The corresponding C functions are `socket`, `bind`, `listen` and `rename`.
    package static func listen(at path: String) throws(Diagnostic) -> FileDescriptor {
        let directory = Path.directory(of: path)
        let folder = try FileDescriptor(openingPrivateDirectory: directory)
        if try folder.ownEntry(named: Path.lastComponent(of: path), in: directory, as: .socket) != nil {
            if (try? connect(to: path)) != nil {
                throw .error(.socketInUse, "A server already listens at \(path).", at: .init(file: path))
            }
            unlink(path)
        }
        _ = try address(of: path)
        let temporary = Path.join(directory, ".\(getpid())")
        let socket = try makeSocket()
        var address = try address(of: temporary)
        unlink(temporary)
        // No umask change (it is the whole process's): the socket is made
        // 0600 right after bind, and until then a peer of another user is
        // refused anyway (SO_PEERCRED).
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw failure("Cannot listen at \(path): \(SystemError.current()).", path) }
        guard chmod(temporary, 0o600) == 0 else {
            let error = SystemError.current()
            unlink(temporary)
            throw failure("Cannot make \(path) private: \(error).", path)
        }
        guard Glibc.listen(socket.rawValue, 128) == 0, rename(temporary, path) == 0 else {
            let error = SystemError.current()
            unlink(temporary)
            throw failure("Cannot listen at \(path): \(error).", path)
        }
        return socket
    }

    /// Connects to the server at `path`, as a client of the same user: the
    /// socket's directory and the socket must be the user's own and writable
    /// by no one else (see `FileDescriptor(openingOwn:as:)`), and the process
    /// listening must run as the user (`SO_PEERCRED`), so that no other user
    /// can stand in for the server.
    /// The corresponding C function is `connect`.
    package static func connect(to path: String) throws(Diagnostic) -> FileDescriptor {
        let directory = Path.directory(of: path)
        let folder = try FileDescriptor(openingOwn: directory, as: .directory)
        guard try folder.ownEntry(named: Path.lastComponent(of: path), in: directory, as: .socket) != nil else {
            throw .error(.fileNotFound, "There is no socket at \(path); is the server running?", at: .init(file: path))
        }
        let socket = try makeSocket()
        var address = try address(of: path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw failure("Cannot connect to \(path): \(SystemError.current()).", path) }
        let user = geteuid()
        guard let server = peerUser(of: socket), server == user else {
            throw .error(.fileForeign, "The server at \(path) does not run as user \(user), who connects to it; the connection was closed.",
                         at: .init(file: path))
        }
        return socket
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

    private static func makeSocket() throws(Diagnostic) -> FileDescriptor {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw failure("Cannot make a socket: \(SystemError.current()).", nil) }
        return FileDescriptor(adopting: socket)
    }

    /// The error of a socket that cannot be set up, saying `message`.
    private static func failure(_ message: String, _ path: String?) -> Diagnostic {
        .error(.socketUnavailable, message, at: .init(file: path))
    }

    private static func address(of path: String) throws(Diagnostic) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw failure("The socket path \(path) is longer than \(capacity - 1) bytes, the most a Unix socket takes.", path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return address
    }
}

extension Diagnostic.Code {
    /// A Unix socket cannot be made, bound, or connected to.
    package static let socketUnavailable = Self("serve.socket")
    /// A live server already listens at the socket's path.
    package static let socketInUse = Self("serve.socket-in-use")
}
