import Glibc

/// One connection to the host's Unix socket: the owning actor writes lines to
/// it; a thread of its own reads lines and hands them on in ``lines``, which
/// finishes when the host closes the connection. The descriptor is closed
/// when the last holder (the actor, the reading thread) lets go.
final class HostConnection: Sendable {
    /// The socket.
    private let descriptor: Int32
    /// The lines read, in order, without their newline; finished at the end of the stream.
    let lines: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation

    /// Connects to the socket at `path` and starts reading.
    init(path: String) throws(UserNotificationError) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw UserNotificationError(code: .hostUnavailable, message: "No socket: \(String(cString: strerror(errno))).")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let fits = withUnsafeMutableBytes(of: &address.sun_path) { room in
            guard bytes.count < room.count else { return false }
            room.copyBytes(from: bytes)
            return true
        }
        let connected = fits && withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        guard connected else {
            let reason = fits ? String(cString: strerror(errno)) : "the path is too long for a Unix socket"
            close(descriptor)
            throw UserNotificationError(code: .hostUnavailable,
                                        message: "The host's socket \(path) cannot be reached: \(reason).")
        }
        self.descriptor = descriptor
        (lines, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        guard ReaderThread.start({ [self] in readLines() }) else {
            close(descriptor)
            throw UserNotificationError(code: .hostUnavailable, message: "No thread to read the host's answers.")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Writes `bytes` whole (a line and its newline).
    func send(_ bytes: [UInt8]) throws(UserNotificationError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw UserNotificationError(code: .hostUnavailable, message: "The connection to the host ended.")
            }
            sent += count
        }
    }

    /// Ends the connection: the reader sees the end of the stream.
    func shutDown() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// The reading thread's loop: lines until the end of the stream.
    private func readLines() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer += chunk[0..<count]
            var start = 0
            while let end = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                continuation.yield(Array(buffer[start..<end]))
                start = end + 1
            }
            buffer.removeFirst(start)
        }
        continuation.finish()
    }
}

/// A detached thread of the library's own, for reading a connection without
/// holding one of the concurrency pool's few threads.
private enum ReaderThread {
    /// What a new thread runs.
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a detached thread running `body`; false when the system has none to give.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Body(run: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { argument in
            Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, box)
        if status != 0 {
            Unmanaged<Body>.fromOpaque(box).release()
            return false
        }
        return true
    }
}
