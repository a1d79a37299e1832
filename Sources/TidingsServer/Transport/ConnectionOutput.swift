import Glibc
import Synchronization
import TidingsBase

/// What a connection writes to its client, from any thread: written at once
/// as far as the client takes it without waiting, the rest kept, up to a
/// bound, for the event loop to send when the socket takes more. A client
/// that lets more than half the bound wait is told once (`events.lagging`),
/// before it is sent away; again once it has caught up and falls behind anew.
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
    /// A socket, written without waiting; otherwise (standard output) writes wait.
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

    /// Writes as much of `bytes` as the client takes without waiting (all of
    /// it, waiting, on standard output, even when whoever started us left it
    /// non-blocking), dropping what was written; false when the client is gone.
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
                guard errno == EAGAIN || errno == EWOULDBLOCK else { return false }
                if isSocket { return true }
                var room = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = SystemCall.retrying { poll(&room, 1, -1) }
                continue
            }
            bytes = bytes.dropFirst(count)
        }
        return true
    }
}
