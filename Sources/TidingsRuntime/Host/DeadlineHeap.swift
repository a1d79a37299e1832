/// Deadlines by instant, earliest first: a binary heap that also finds an
/// entry by its number, so that one met before its deadline leaves at once
/// (O(log n)) instead of lingering until it would have passed.
struct DeadlineHeap<Value> {
    private struct Entry {
        let instant: UInt64
        let number: UInt64
        let value: Value
    }

    private var entries: [Entry] = []
    /// Where each entry stands in `entries`, by its number.
    private var positions: [UInt64: Int] = [:]

    /// No deadlines.
    init() {}

    var isEmpty: Bool { entries.isEmpty }

    /// The earliest instant, if any.
    var earliest: UInt64? { entries.first?.instant }

    /// Adds `value`, due at `instant`, under `number` (not in the heap already).
    mutating func insert(_ value: Value, at instant: UInt64, number: UInt64) {
        entries.append(Entry(instant: instant, number: number, value: value))
        positions[number] = entries.count - 1
        siftUp(entries.count - 1)
    }

    /// Takes out the entry of `number`; its value, or nil when it is not in the heap.
    @discardableResult
    mutating func remove(_ number: UInt64) -> Value? {
        guard let position = positions[number] else { return nil }
        return take(at: position)
    }

    /// Takes out the earliest entry when it is due at `now`.
    mutating func popDue(at now: UInt64) -> Value? {
        guard let first = entries.first, first.instant <= now else { return nil }
        return take(at: 0)
    }

    private mutating func take(at position: Int) -> Value {
        let taken = entries[position]
        positions[taken.number] = nil
        let last = entries.removeLast()
        if position < entries.count {
            entries[position] = last
            positions[last.number] = position
            siftDown(position)
            siftUp(position)
        }
        return taken.value
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].instant < entries[parent].instant else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var smallest = parent
            for child in [2 * parent + 1, 2 * parent + 2]
            where child < entries.count && entries[child].instant < entries[smallest].instant {
                smallest = child
            }
            guard smallest != parent else { return }
            swapAt(parent, smallest)
            parent = smallest
        }
    }

    private mutating func swapAt(_ first: Int, _ second: Int) {
        entries.swapAt(first, second)
        positions[entries[first].number] = first
        positions[entries[second].number] = second
    }
}
