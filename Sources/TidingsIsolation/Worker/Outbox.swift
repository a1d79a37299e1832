import Glibc
import Synchronization
import TidingsBase
import TidingsRuntime

/// What the worker sends the host, in order. During a call on the worker's
/// main thread, what the extension does (host calls, from any of its
/// threads) is held and goes out with the call's `done`, in one datagram:
/// one wake-up of the host per call instead of one per host call; so does
/// a completion made on the main thread during its call (a response
/// handler that completes at once). Outside calls, and for what the host
/// must see at once (a completion from another thread, a request that
/// waits for an answer), messages go out straight away, after those held.
final class Outbox: Sendable {
    /// At most this many bytes go in one batch (a datagram's limit, with room to spare).
    static let batchBytes = WorkerChannel.maximumMessageSize - 1024

    private struct State {
        /// Calls under way on the main thread.
        var calls = 0
        /// The thread the last call began on (the main thread).
        var callThread: pthread_t?
        /// Encoded messages held, and their size.
        var held: [[UInt8]] = []
        var heldBytes = 0
    }

    private let state = Mutex(State())
    private let channel: WorkerChannel

    init(channel: WorkerChannel) {
        self.channel = channel
    }

    /// A call starts on the main thread.
    func beginCall() {
        let thread = pthread_self()
        state.withLock { state in
            state.calls += 1
            state.callThread = thread
        }
    }

    /// The call ends with `done`: everything held goes out, `done` last; or,
    /// when `holding`, stays held to go out with what comes next (the
    /// host's next message is there already, and waits for both).
    func endCall(with done: WorkerMessage, holding: Bool = false) {
        state.withLock { state in
            state.calls -= 1
            hold(done.encoded, in: &state)
            if !holding { flush(&state) }
        }
    }

    /// Sends `message` now, or with the answer of the call under way.
    func send(_ message: WorkerMessage) {
        let bytes = message.encoded
        state.withLock { state in
            guard state.calls > 0 else {
                flush(&state)
                return channel.sendQuietly(bytes)
            }
            hold(bytes, in: &state)
        }
    }

    /// Sends `completion` with the answer of the call under way when this
    /// thread runs that call (it completed during its call: one datagram
    /// with the `done` the host waits for anyway), else now, after what is held.
    func sendCompletion(_ completion: WorkerMessage) {
        let bytes = completion.encoded
        let thread = pthread_self()
        state.withLock { state in
            if state.calls > 0, let callThread = state.callThread, pthread_equal(callThread, thread) != 0 {
                return hold(bytes, in: &state)
            }
            flush(&state)
            channel.sendQuietly(bytes)
        }
    }

    /// Sends what is held, then `message` with `files` beside it.
    /// - Throws: the channel's failure for `message`.
    func sendNow(_ message: WorkerMessage, files: [Int32] = []) throws(WorkerChannel.Failure) {
        let bytes = message.encoded
        try state.withLock { (state: inout State) throws(WorkerChannel.Failure) in
            flush(&state)
            try channel.send(bytes, files: files, timeout: 5)
        }
    }

    /// Adds `bytes` to what is held, sending what was held first when it would not fit one batch.
    private func hold(_ bytes: [UInt8], in state: inout State) {
        if state.heldBytes + bytes.count > Self.batchBytes || state.held.count >= WorkerMessage.batchLimit {
            flush(&state)
        }
        state.held.append(bytes)
        state.heldBytes += bytes.count
    }

    /// Sends what is held: alone, or as one batch.
    private func flush(_ state: inout State) {
        switch state.held.count {
        case 0: return
        case 1: channel.sendQuietly(state.held[0])
        default: channel.sendQuietly(WorkerMessage.batch(of: state.held))
        }
        state.held.removeAll(keepingCapacity: true)
        state.heldBytes = 0
    }
}

extension WorkerChannel {
    /// Sends `bytes`, dropping them when the host is gone or not reading
    /// (the host then ends this worker anyway).
    func sendQuietly(_ bytes: [UInt8]) {
        try? send(bytes, timeout: 5)
    }

    /// Sends `message` as `sendQuietly` does.
    func sendQuietly(_ message: WorkerMessage) {
        sendQuietly(message.encoded)
    }
}
