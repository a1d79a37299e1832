import Glibc
import TidingsBase

/// A client's connection to `tidings serve`'s Unix socket, the one owner of
/// its descriptor (closed with it): writing whole or what fits, reading what
/// has arrived or waiting for it until a deadline. Blocking or not as the
/// client chooses; a reading thread and a writing one may share it.
package final class RPCSocket: Sendable {
    private let socket: FileDescriptor

    /// What a read found.
    package enum Reading {
        /// Bytes arrived.
        case bytes([UInt8])
        /// Nothing arrived before the deadline (or, not blocking, nothing has).
        case nothing
        /// The server closed the connection.
        case closed
    }

    /// Connects to the server at `path`: the socket must be the user's own,
    /// and so must the server (see `UnixSocket.connect(to:)`); with
    /// `blocking` false its reads and writes never wait.
    /// - Throws: the diagnostic of `UnixSocket.connect(to:)`, or `serve.socket`.
    package init(path: String, blocking: Bool = true) throws(Diagnostic) {
        let connected = try UnixSocket.connect(to: path)
        if !blocking {
            let flags = fcntl(connected.rawValue, F_GETFL)
            guard flags >= 0, fcntl(connected.rawValue, F_SETFL, flags | O_NONBLOCK) == 0 else {
                throw .error(.socketUnavailable, "Cannot make the connection to \(path) non-blocking: \(SystemError.current()).")
            }
        }
        socket = connected
    }

    /// The descriptor, to poll.
    package var descriptor: Int32 { socket.rawValue }

    /// Writes `bytes` whole, waiting while the socket is full (a blocking socket's).
    /// The corresponding C function is `send`.
    package func send(_ bytes: [UInt8]) throws(SystemError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { buffer in
                SystemCall.retrying { Glibc.send(socket.rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
            }
            guard count > 0 else { throw SystemError.current() }
            sent += count
        }
    }

    /// Writes what fits of `output` without waiting, dropping what was written from it.
    /// - Throws: why the connection broke.
    package func flush(_ output: inout RPCOutput) throws(SystemError) {
        while !output.pending.isEmpty {
            let count = output.pending.withUnsafeBytes { buffer in
                SystemCall.retrying { Glibc.send(socket.rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
            }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                throw SystemError.current()
            }
            output.written(count)
        }
    }

    /// Reads what arrives: at once what has (not blocking: nothing when
    /// nothing has); else waits until `deadline` (monotonic nanoseconds), for
    /// ever when nil. The corresponding C functions are `poll` and `recv`.
    /// - Throws: why the connection broke.
    package func read(until deadline: UInt64? = nil) throws(SystemError) -> Reading {
        if let deadline {
            let now = MonotonicClock.now()
            guard now < deadline else { return .nothing }
            var ready = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(UInt64(Int32.max), max(1, (deadline - now + 999_999) / 1_000_000)))
            guard SystemCall.retrying({ poll(&ready, 1, milliseconds) }) > 0 else { return .nothing }
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let count = chunk.withUnsafeMutableBytes { buffer in
            SystemCall.retrying { recv(socket.rawValue, buffer.baseAddress, buffer.count, 0) }
        }
        if count == 0 { return .closed }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return .nothing }
            throw SystemError.current()
        }
        chunk.removeSubrange(count...)
        return .bytes(chunk)
    }

    /// Ends the connection both ways: a thread reading it sees its end.
    package func shutDown() {
        shutdown(socket.rawValue, Int32(SHUT_RDWR))
    }
}
