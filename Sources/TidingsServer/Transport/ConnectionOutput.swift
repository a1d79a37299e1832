import Glibc
import Synchronization
import TidingsBase

/// What a connection writes to its client, from any thread: written at once
/// as far as the client takes it without waiting, the rest kept, up to a
/// bound, for the event loop to send when the socket (or standard output)
/// takes more. No write ever waits: a client that stops reading costs the
/// bound, never a thread. A client that lets more than half the bound wait
/// is told once (`events.lagging`), before it is sent away; again once it
/// has caught up and falls behind anew.
final class ConnectionOutput: Sendable {
    /// What became of a line pushed.
    enum Pushed {
        /// Written whole, or queued behind what already waits.
        case accepted
        /// Accepted, and the first to wait: the loop must watch for room.
        case acceptedWaiting
        /// The client is gone, or has let too much wait and is to be sent away.
        case refused(overflow: Bool)
    }

    /// Where the bytes go.
    let descriptor: Int32
    /// A socket, written with `MSG_DONTWAIT`; otherwise a descriptor of its own
    /// open file description, non-blocking (`nonBlocking(_:)`), or a regular file.
    private let isSocket: Bool
    /// Output a client may leave unread before it is sent away, in bytes.
    private let bound: Int
    private let state = Mutex<(pending: [UInt8], closed: Bool, lagging: Bool)>(([], false, false))

    /// Output to `descriptor`, bounded by `bound` bytes left unread.
    init(descriptor: Int32, isSocket: Bool, bound: Int) {
        self.descriptor = descriptor
        self.isSocket = isSocket
        self.bound = bound
    }

    /// Writes `line` now or, what the client cannot take yet, later.
    func push(_ line: [UInt8]) -> Pushed {
        state.withLock { state -> Pushed in
            guard !state.closed else { return .refused(overflow: false) }
            var rest = line[...]
            if state.pending.isEmpty {
                guard send(&rest) else {
                    state.closed = true
                    return .refused(overflow: false)
                }
                if rest.isEmpty { return .accepted }
            }
            // A client is sent away for output it left unread, not for one long answer.
            let unread = state.pending.count
            guard unread <= bound else {
                state.closed = true
                state.pending = []
                return .refused(overflow: true)
            }
            state.pending += rest
            if !state.lagging, state.pending.count > bound / 2 {
                state.lagging = true
                state.pending += RPCReply.notification("events.lagging", params: .object([
                    ("behind", .integer(Int64(state.pending.count))), ("limit", .integer(Int64(bound))),
                ]))
            }
            return unread == 0 ? .acceptedWaiting : .accepted
        }
    }

    /// Sends what waits, as far as the client takes it: true when some is
    /// still left; false when none is, or the output is closed (the client is gone).
    func flush() -> Bool {
        state.withLock { state in
            guard !state.closed, !state.pending.isEmpty else { return false }
            var rest = state.pending[...]
            guard send(&rest) else {
                state.closed = true
                state.pending = []
                return false
            }
            state.pending = Array(rest)
            if state.pending.isEmpty { state.lagging = false }
            return !state.pending.isEmpty
        }
    }

    /// True while output waits for the client to take it.
    var hasPending: Bool { state.withLock { !$0.pending.isEmpty } }

    /// Writes nothing more; what waits is dropped.
    func close() {
        state.withLock { state in
            state.closed = true
            state.pending = []
        }
    }

    /// Writes as much of `bytes` as the client takes without waiting,
    /// dropping what was written; false when the client is gone.
    private func send(_ bytes: inout ArraySlice<UInt8>) -> Bool {
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { buffer in
                SystemCall.retrying {
                    isSocket
                        ? Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                        : write(descriptor, buffer.baseAddress, buffer.count)
                }
            }
            if count < 0 {
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
            bytes = bytes.dropFirst(count)
        }
        return true
    }
}

extension ConnectionOutput {
    /// True when `descriptor` is a socket (written with `MSG_DONTWAIT`).
    /// The corresponding C function is `fstat`.
    static func isSocket(_ descriptor: Int32) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    /// `output` (standard output's copy, for `tidings serve --stdio`) as a
    /// descriptor writes to which never wait. A socket is written with
    /// `MSG_DONTWAIT` and a regular file never waits for a reader: both stay
    /// as they are. A pipe or a terminal is opened anew through
    /// `/proc/self/fd`, non-blocking: a file description of its own, so that
    /// whoever shares the one given (the process that started the server, a
    /// shell) never finds it changed; where that cannot be opened, the one
    /// given is made non-blocking.
    /// The corresponding C functions are `fstat`, `open` and `fcntl(F_SETFL)`.
    static func nonBlocking(_ output: consuming FileDescriptor) -> FileDescriptor {
        var info = stat()
        guard fstat(output.rawValue, &info) == 0 else { return output }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFIFO || kind == S_IFCHR else { return output }
        let flags = O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
        let reopened = SystemCall.retrying { open("/proc/self/fd/\(output.rawValue)", flags) }
        if reopened >= 0 { return FileDescriptor(adopting: reopened) }
        let given = fcntl(output.rawValue, F_GETFL)
        if given >= 0 { _ = fcntl(output.rawValue, F_SETFL, given | O_NONBLOCK) }
        return output
    }
}
