/// When pending requests fire on one clock, earliest first: a binary heap
/// of (instant, request).
///
/// Unlike `DeadlineHeap`, it keeps no index of where each entry stands,
/// which would cost 100,000 requests some 40 bytes each: a request removed or
/// armed again leaves its old entry behind. The scheduler tells an entry
/// still armed from a stale one (`PendingScheduler.isArmed`), skips a stale
/// one that comes due, takes stale ones off the top so that `earliest` is
/// a request's, and sweeps them all out once they outnumber the live ones.
struct FireHeap {
    /// One request's time: 32 bytes (its app by number rather than by name, a string's 16 bytes).
    struct Entry {
        /// When it fires, in nanoseconds on the heap's clock.
        let instant: UInt64
        /// The request's identifier.
        let identifier: String
        /// The request's app, by its number (`PendingRequests.number(of:)`).
        let app: UInt32
    }

    /// The entries, as a binary heap on `instant`.
    private(set) var entries: [Entry] = []
    /// How many entries are stale, as far as told.
    private var stale = 0

    /// The earliest instant, stale or not.
    var earliest: UInt64? { entries.first?.instant }

    /// The earliest entry, stale or not.
    var top: Entry? { entries.first }

    /// True once stale entries outnumber live ones (and are worth a sweep).
    var needsSweep: Bool { stale > 64 && 2 * stale > entries.count }

    /// Adds `identifier` of the app numbered `app`, firing at `instant`.
    mutating func insert(_ identifier: String, of app: UInt32, at instant: UInt64) {
        entries.append(Entry(instant: instant, identifier: identifier, app: app))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].instant < entries[parent].instant else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes out the earliest entry when it is due at `now`.
    mutating func popDue(at now: UInt64) -> Entry? {
        guard let first = entries.first, first.instant <= now else { return nil }
        return popTop()
    }

    /// Takes out the earliest entry.
    @discardableResult
    mutating func popTop() -> Entry? {
        guard let first = entries.first else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(0)
        }
        return first
    }

    /// One entry became stale (its request removed, armed again, or fired).
    mutating func noteStale() {
        stale += 1
    }

    /// One stale entry was taken out.
    mutating func noteStaleTaken() {
        stale = max(0, stale - 1)
    }

    /// Keeps only `live`, the entries still armed.
    mutating func rebuild(keeping live: [Entry]) {
        entries = live
        stale = 0
        for parent in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(parent) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var smallest = parent
            let left = 2 * parent + 1, right = left + 1
            if left < entries.count && entries[left].instant < entries[smallest].instant { smallest = left }
            if right < entries.count && entries[right].instant < entries[smallest].instant { smallest = right }
            guard smallest != parent else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
