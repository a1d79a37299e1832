import TidingsBase

/// When to try a connection again: 0.1 s after the first failure, doubling
/// to 2 s at most, back to 0.1 s once it succeeds.
struct Retry {
    /// The monotonic instant (nanoseconds) of the next try; nil: none planned.
    private(set) var due: UInt64?
    private var delay = Retry.first
    private static let first = 0.1
    private static let longest = 2.0

    /// Plans the next try after the current delay, and lengthens it.
    mutating func schedule() {
        due = MonotonicClock.deadline(after: delay)
        delay = min(delay * 2, Self.longest)
    }

    /// Plans a try at once (the socket appeared).
    mutating func now() {
        due = MonotonicClock.now()
    }

    /// Forgets the plan and the delay: the connection is up.
    mutating func reset() {
        due = nil
        delay = Self.first
    }

    /// True when a try is planned and due; it is then no longer planned.
    mutating func isDue(at now: UInt64) -> Bool {
        guard let due, due <= now else { return false }
        self.due = nil
        return true
    }
}
