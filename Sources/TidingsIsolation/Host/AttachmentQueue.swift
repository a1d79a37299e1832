import Synchronization
import TidingsBase

/// A worker's attachment requests (`create_attachment`, `open_attachment`),
/// run one after another on one thread of the connection's own, which
/// exists only while there is work (`SerialQueue`): checking a file, copying
/// it into the store or into a sealed copy takes a while, and the reader of
/// the channel need not wait for it. At most `capacity` requests wait; one
/// beyond is refused and the caller counts it (`ChannelBudget`), so that
/// nothing a worker sends makes the host start a thread per request or
/// keep an unbounded line of them.
final class AttachmentQueue: Sendable {
    /// The most requests waiting or running at once. A well-behaved worker
    /// has one per extension thread waiting for its answer.
    static let capacity = 16

    private let queue = SerialQueue()
    private let waiting = Atomic<Int>(0)

    init() {}

    /// Queues `job`, unless `capacity` jobs wait already: then false, and
    /// `job` is dropped unrun (with what it captured).
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        guard waiting.add(1, ordering: .relaxed).newValue <= Self.capacity else {
            waiting.subtract(1, ordering: .relaxed)
            return false
        }
        queue.async {
            job()
            self.waiting.subtract(1, ordering: .relaxed)
        }
        return true
    }
}
