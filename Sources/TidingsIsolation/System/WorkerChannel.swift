import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims
import TidingsRuntime

/// One end of the connected socket pair between the host and a worker
/// process: whole messages (one `SOCK_SEQPACKET` datagram each) with file
/// descriptors beside them (`SCM_RIGHTS`).
///
/// A message carries 1 to `maximumMessageSize` bytes and at most
/// `maximumFileCount` descriptors. The kernel's own limit per datagram is
/// the sending socket's `SO_SNDBUF` less 32 bytes; `pair()` asks for 1 MiB,
/// which the kernel caps at `net.core.wmem_max` (212992 on a default
/// system) and then doubles, so it allows at least 425952 bytes there, more
/// than `maximumMessageSize`. The limit here is the receiving end's buffer,
/// so that a message that is sent is also received whole.
package final class WorkerChannel: Sendable {
    /// The most bytes one message carries: the size of the receive buffer.
    package static let maximumMessageSize = 256 * 1024

    /// The most descriptors one message carries.
    package static let maximumFileCount = 16

    /// The socket, closed when the channel goes away.
    private let descriptor: FileDescriptor

    /// Held for the whole of a send, so that sends from several threads
    /// never interleave.
    private let sending = Mutex(())

    /// The reader's buffers, made on the first `receive()`.
    private let receiving = Mutex(ReceiveBuffers())

    /// A connected pair (`AF_UNIX`, `SOCK_SEQPACKET | SOCK_CLOEXEC`) with
    /// send and receive buffers of 1 MiB asked for (best effort). `host`
    /// stays in this process; `worker` is the end handed to the child (the
    /// spawner `dup2`s it to descriptor 3, which clears `FD_CLOEXEC` on the
    /// copy); close it here once the child has it, so that the host's
    /// `receive()` ends when the worker does.
    /// The corresponding C function is `socketpair`.
    package static func pair() throws(SystemError) -> Pair {
        var ends: (Int32, Int32) = (-1, -1)
        let made = withUnsafeMutableBytes(of: &ends) { buffer in
            socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0,
                       buffer.baseAddress!.assumingMemoryBound(to: Int32.self))
        }
        guard made == 0 else { throw SystemError.current() }
        var size: Int32 = 1 << 20
        let length = socklen_t(MemoryLayout<Int32>.size)
        for end in [ends.0, ends.1] {
            _ = setsockopt(end, SOL_SOCKET, SO_SNDBUF, &size, length)
            _ = setsockopt(end, SOL_SOCKET, SO_RCVBUF, &size, length)
        }
        return Pair(host: WorkerChannel(adopting: ends.0), worker: FileDescriptor(adopting: ends.1))
    }

    /// Owns `descriptor`, an already connected `SOCK_SEQPACKET` socket (the
    /// worker's descriptor 3); it is closed when the channel goes away.
    package init(adopting descriptor: Int32) {
        self.descriptor = FileDescriptor(adopting: descriptor)
    }

    /// The descriptor, for `poll` or for a signal handler that must write to it.
    package var rawValue: Int32 {
        descriptor.rawValue
    }

    /// Sends `bytes` as one message with `files` beside it. The descriptors
    /// are borrowed: they are still open and the caller's afterwards; the
    /// receiver gets copies. Several threads may send at once; their
    /// messages do not interleave.
    ///
    /// Waits at most `timeout` seconds for room in the socket's buffer
    /// (nil: as long as it takes; 0: not at all).
    /// The corresponding C function is `sendmsg` (with `MSG_NOSIGNAL`).
    /// - Throws: `.tooLarge` when `bytes` is longer than `maximumMessageSize`
    ///   or `files` has more than `maximumFileCount` descriptors (nothing is
    ///   sent); `.timedOut` when no room came in time; `.closed` when the
    ///   other end is closed or `shutdown()` was called; `.system` otherwise,
    ///   among them `EINVAL` for an empty message (which the other end could
    ///   not tell from the end of the channel).
    package func send(_ bytes: [UInt8], files: [Int32] = [], timeout: Double? = nil) throws(Failure) {
        guard !bytes.isEmpty else { throw Failure(.system, systemError: SystemError(code: EINVAL)) }
        guard bytes.count <= Self.maximumMessageSize, files.count <= Self.maximumFileCount else {
            throw Failure(.tooLarge)
        }
        let deadline = timeout.map { MonotonicClock.deadline(after: $0) }
        let control = Self.rights(files)
        let socket = rawValue
        let failure: Failure? = sending.withLock { _ in
            while true {
                let sent = SystemCall.retrying { Self.sendOnce(socket, bytes, control: control) }
                if sent >= 0 { return nil }
                let code = errno
                guard code == EAGAIN || code == EWOULDBLOCK else { return Failure(errno: code) }
                if let failure = Self.waitForRoom(socket, until: deadline) { return failure }
            }
        }
        if let failure { throw failure }
    }

    /// Receives the next message, waiting for one; nil once the other end is
    /// closed or `shutdown()` was called (messages that arrived before are
    /// received first). Meant for one reading thread at a time; a second one
    /// waits for the first. The descriptors that come with the message have
    /// `FD_CLOEXEC` set.
    /// The corresponding C function is `recvmsg` (with `MSG_CMSG_CLOEXEC`).
    /// - Throws: `.tooLarge` when the message or its descriptors did not fit
    ///   (the message is dropped, the descriptors that came are closed, and
    ///   the next `receive()` reads the next message); `.system` otherwise.
    package func receive() throws(Failure) -> Message? {
        while true {
            switch try receive(waiting: true) {
            case .message(let message): return message
            case .closed: return nil
            case .none:
                // Someone made the socket non-blocking: wait here instead.
                var entry = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
                _ = SystemCall.retrying { poll(&entry, 1, -1) }
            }
        }
    }

    /// What a receive found.
    package enum Received {
        /// A message.
        case message(Message)
        /// The other end is closed (or this one shut down).
        case closed
        /// Nothing yet (a receive that does not wait).
        case none
    }

    /// Receives the next message if one is there, without waiting.
    package func receiveIfReady() throws(Failure) -> Received {
        try receive(waiting: false)
    }

    /// True when a message (or the end) is there to receive. A spinning
    /// reader asks this first: `poll` looks at the socket's queue without
    /// its lock, where a failed `recvmsg` takes the lock the sender needs.
    /// The corresponding C function is `poll` (with no timeout).
    package var hasInput: Bool {
        var entry = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
        return SystemCall.retrying { poll(&entry, 1, 0) } != 0
    }

    /// Waits asleep until a message (or the end) is there to receive, the
    /// descriptor `other` is readable (a process's pidfd; -1 for none), or
    /// `milliseconds` pass (-1: no limit), and says which came: no wake-up
    /// before one of them. The corresponding C function is `poll`.
    package func waitForInput(within milliseconds: Int32, or other: Int32) -> (input: Bool, other: Bool) {
        // A pair on the stack: this runs once per call to a worker.
        var entries = (pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: other, events: Int16(POLLIN), revents: 0))
        let ready = withUnsafeMutablePointer(to: &entries) { pair in
            pair.withMemoryRebound(to: pollfd.self, capacity: 2) { first in
                SystemCall.retrying { poll(first, 2, milliseconds) }
            }
        }
        guard ready > 0 else { return (false, false) }
        return (entries.0.revents != 0, entries.1.revents != 0)
    }

    /// Receives the next message, `waiting` for one or not; `.none` when
    /// none was there and it did not wait.
    private func receive(waiting: Bool) throws(Failure) -> Received {
        let socket = rawValue
        let flags = Int32(MSG_CMSG_CLOEXEC) | (waiting ? 0 : Int32(MSG_DONTWAIT))
        let outcome: Result<Received, Failure> = receiving.withLock { buffers in
            if buffers.data.isEmpty {
                buffers.data = [UInt8](repeating: 0, count: Self.maximumMessageSize)
                buffers.control = [UInt8](repeating: 0, count: tidings_rights_space(Self.maximumFileCount))
            }
            var messageFlags: Int32 = 0
            var controlLength = 0
            let count = SystemCall.retrying {
                Self.receiveOnce(socket, into: &buffers, flags: flags, messageFlags: &messageFlags,
                                 controlLength: &controlLength)
            }
            if count < 0 {
                switch errno {
                case EAGAIN, EWOULDBLOCK: return .success(.none)
                // The other end closed with messages of ours unread.
                case ECONNRESET: return .success(.closed)
                default: return .failure(Failure(errno: errno))
                }
            }
            let files = Self.files(in: buffers.control, length: controlLength)
            if messageFlags & Int32(MSG_TRUNC) != 0 || messageFlags & Int32(MSG_CTRUNC) != 0 {
                for file in files { close(file) }
                return .failure(Failure(.tooLarge))
            }
            if count == 0 && files.isEmpty { return .success(.closed) }
            return .success(.message(Message(bytes: Array(buffers.data[..<count]), files: files)))
        }
        return try outcome.get()
    }

    /// Wakes a waiting `receive()`, which then returns nil, and makes later
    /// sends on either end fail with `.closed`. The descriptor stays open
    /// until the channel goes away.
    /// The corresponding C function is `shutdown(SHUT_RDWR)`.
    package func shutdown() {
        _ = Glibc.shutdown(rawValue, Int32(SHUT_RDWR))
    }

    /// One `sendmsg` without waiting: the byte count, or -1 with `errno` set.
    private static func sendOnce(_ socket: Int32, _ bytes: [UInt8], control: [UInt8]) -> Int {
        bytes.withUnsafeBytes { data in
            control.withUnsafeBytes { controlBuffer in
                var vector = iovec(iov_base: UnsafeMutableRawPointer(mutating: data.baseAddress), iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    if controlBuffer.count > 0 {
                        header.msg_control = UnsafeMutableRawPointer(mutating: controlBuffer.baseAddress)
                        header.msg_controllen = controlBuffer.count
                    }
                    return sendmsg(socket, &header, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
            }
        }
    }

    /// One `recvmsg` into `buffers` with `flags`: the byte count, or -1 with `errno` set.
    private static func receiveOnce(_ socket: Int32, into buffers: inout ReceiveBuffers, flags: Int32,
                                    messageFlags: inout Int32, controlLength: inout Int) -> Int {
        buffers.data.withUnsafeMutableBytes { data in
            buffers.control.withUnsafeMutableBytes { controlBuffer in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBuffer.baseAddress
                    header.msg_controllen = controlBuffer.count
                    let count = recvmsg(socket, &header, flags)
                    messageFlags = header.msg_flags
                    controlLength = count >= 0 ? header.msg_controllen : 0
                    return count
                }
            }
        }
    }

    /// Waits until the socket has room or `deadline` (nil: never) passed.
    /// The corresponding C function is `poll(POLLOUT)`.
    /// - Returns: nil when it is worth sending again; `.timedOut` otherwise.
    private static func waitForRoom(_ socket: Int32, until deadline: UInt64?) -> Failure? {
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let now = MonotonicClock.now()
                guard now < deadline else { return Failure(.timedOut) }
                milliseconds = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            }
            var entry = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            let ready = SystemCall.retrying { poll(&entry, 1, milliseconds) }
            if ready > 0 { return nil }
            if ready < 0 { return Failure(errno: errno) }
            // A timeout: the deadline decides.
        }
    }
}

extension WorkerChannel {
    /// Both ends of a new channel: `host` for this process, `worker` for the
    /// child. A value without copies (like `FileDescriptor`), since Swift
    /// has no tuples of such values: take its parts with `pair.host` and
    /// `pair.worker`.
    package struct Pair: ~Copyable {
        /// The end this process keeps.
        package let host: WorkerChannel
        /// The end for the worker process, to `dup2` onto its descriptor 3.
        package let worker: FileDescriptor

        /// Gives up the pair for its worker end (read `host` first).
        package consuming func takeWorker() -> FileDescriptor {
            worker
        }
    }

    /// One received message; owns the descriptors that came with it.
    package final class Message: Sendable {
        /// The message's bytes.
        package let bytes: [UInt8]

        /// How many descriptors came with the message, taken or not.
        package let fileCount: Int

        /// The descriptors; -1 for those taken.
        private let files: Mutex<[Int32]>

        /// Owns `bytes` and `files`.
        init(bytes: [UInt8], files: [Int32]) {
            self.bytes = bytes
            self.fileCount = files.count
            self.files = Mutex(files)
        }

        deinit {
            files.withLock { files in
                for file in files where file >= 0 { close(file) }
            }
        }

        /// Takes the `index`th descriptor: the caller owns it from now on.
        /// Nil when it was taken already or there is no such descriptor.
        /// Those never taken are closed when the message goes away.
        package func takeFile(at index: Int) -> FileDescriptor? {
            let file: Int32 = files.withLock { files in
                guard files.indices.contains(index) else { return -1 }
                defer { files[index] = -1 }
                return files[index]
            }
            guard file >= 0 else { return nil }
            return FileDescriptor(adopting: file)
        }
    }

    /// What went wrong on a channel, with the system's error when there was one.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The kind of failure; new kinds may come.
        package struct Code: Hashable, Sendable {
            /// Which kind.
            private let value: UInt8

            /// Wraps `value`.
            private init(_ value: UInt8) {
                self.value = value
            }

            /// The socket had no room for the message in time.
            package static let timedOut = Code(1)
            /// The message, or its descriptors, are more than a message carries
            /// (`EMSGSIZE`, or cut short on receipt).
            package static let tooLarge = Code(2)
            /// The other end is closed (`EPIPE`, `ECONNRESET`), or this one shut down.
            package static let closed = Code(3)
            /// Another error of the system's: see `systemError`.
            package static let system = Code(4)
        }

        /// The kind of failure.
        package let code: Code

        /// The system's error behind it, when there is one.
        package let systemError: SystemError?

        /// A failure of kind `code`.
        package init(_ code: Code, systemError: SystemError? = nil) {
            self.code = code
            self.systemError = systemError
        }

        /// The failure an `errno` value of `sendmsg` or `recvmsg` stands for.
        init(errno code: Int32) {
            let error = SystemError(code: code)
            switch code {
            case EMSGSIZE, ETOOMANYREFS:
                self.init(.tooLarge, systemError: error)
            case EPIPE, ECONNRESET, ENOTCONN, ECONNREFUSED:
                self.init(.closed, systemError: error)
            default:
                self.init(.system, systemError: error)
            }
        }

        /// One sentence: "The worker channel is closed."
        package var description: String {
            switch code {
            case .timedOut:
                return "The worker channel had no room for the message in time."
            case .tooLarge:
                return "The message is larger than the worker channel carries (at most "
                    + "\(WorkerChannel.maximumMessageSize) bytes and \(WorkerChannel.maximumFileCount) descriptors)."
            case .closed:
                return "The worker channel is closed."
            default:
                return "The worker channel failed: \(systemError.map { "\($0)" } ?? "unknown error")."
            }
        }
    }

    /// The reader's buffers, kept between messages.
    private struct ReceiveBuffers {
        /// Room for one message's bytes.
        var data: [UInt8] = []
        /// Room for one message's control messages (its descriptors).
        var control: [UInt8] = []
    }

    /// An `SCM_RIGHTS` control message passing `files`; empty for none.
    private static func rights(_ files: [Int32]) -> [UInt8] {
        guard !files.isEmpty else { return [] }
        var buffer = [UInt8](repeating: 0, count: tidings_rights_space(files.count))
        let length = buffer.withUnsafeMutableBytes { bytes in
            files.withUnsafeBufferPointer { tidings_rights_build(bytes.baseAddress, bytes.count, $0.baseAddress, $0.count) }
        }
        return Array(buffer[..<length])
    }

    /// The descriptors of every `SCM_RIGHTS` control message in the first
    /// `length` bytes of `buffer` (any beyond `maximumFileCount` are closed).
    private static func files(in buffer: [UInt8], length: Int) -> [Int32] {
        guard length > 0 else { return [] }
        var files = [Int32](repeating: -1, count: maximumFileCount)
        let count = buffer.withUnsafeBytes { bytes in
            files.withUnsafeMutableBufferPointer {
                tidings_rights_collect(bytes.baseAddress, min(length, bytes.count), $0.baseAddress, $0.count)
            }
        }
        return Array(files[..<min(count, maximumFileCount)])
    }
}
