/// Elements kept in the order of their sequence numbers
/// (`SortedList` keyed by `UInt64`): the host's notifications in the order delivered.
package typealias SequencedList<Element> = SortedList<UInt64, Element>

/// Elements kept in the order of their keys: added in increasing order
/// (inserted in the middle, rarely), removed by key from anywhere, read from
/// the first or from after a given key.
///
/// Removal leaves a gap that is skipped, and the storage is compacted once
/// gaps outnumber the elements, so every operation costs amortised constant
/// time but for finding a key (a binary search) and for an insertion in the
/// middle (which moves the keys after it), and a list that shrank gives its
/// storage back. (It lives beside the host that uses it: in another module,
/// unspecialised, every call looked up generic metadata.)
package struct SortedList<Key: Comparable, Element> {
    /// The keys of the slots, increasing.
    private var keys: [Key] = []
    /// The slots: an element, or nil where one was removed.
    private var slots: [Element?] = []
    /// The first slot that may hold an element; those before are gaps.
    private var head = 0
    /// The elements held.
    package private(set) var count = 0

    /// An empty list.
    package init() {}

    /// The element with the smallest key, with its key.
    package var first: (key: Key, element: Element)? {
        head < slots.count ? (keys[head], slots[head]!) : nil
    }

    /// The key of the element with the largest key (past the gaps at the end).
    package var lastKey: Key? {
        var position = slots.count - 1
        while position >= head {
            if slots[position] != nil { return keys[position] }
            position -= 1
        }
        return nil
    }

    /// Adds `element` as `key`, which no element of the list has: after
    /// the last when it is the largest, else in its place.
    package mutating func insert(_ element: Element, as key: Key) {
        count += 1
        guard let last = keys.last, key <= last else {
            keys.append(key)
            slots.append(element)
            return
        }
        let position = index(of: key)
        if position < keys.count && keys[position] == key {
            slots[position] = element
        } else {
            keys.insert(key, at: position)
            slots.insert(element, at: position)
        }
        head = min(head, position)
    }

    /// Removes the element keyed `key`, and returns it; nil when none has it.
    @discardableResult
    package mutating func remove(_ key: Key) -> Element? {
        let position = index(of: key)
        guard position < keys.count, keys[position] == key, let element = slots[position] else { return nil }
        slots[position] = nil
        count -= 1
        if position == head {
            while head < slots.count && slots[head] == nil { head += 1 }
        }
        if slots.count - count > max(count, 64) { compact() }
        return element
    }

    /// The elements keyed after `key`, in order, each with its key.
    package func elements(after key: Key) -> some Sequence<(key: Key, element: Element)> {
        elements(from: max(head, index { $0 > key }))
    }

    /// The first element keyed after `key`, with its key; nil when none is.
    package func first(after key: Key) -> (key: Key, element: Element)? {
        var following = elements(after: key).makeIterator()
        return following.next()
    }

    /// Every element, in order, each with its key.
    package var elements: some Sequence<(key: Key, element: Element)> {
        elements(from: head)
    }

    /// The elements from the slot at `start` on, each with its key.
    private func elements(from start: Int) -> some Sequence<(key: Key, element: Element)> {
        (start..<slots.count).lazy.compactMap { position in
            slots[position].map { (keys[position], $0) }
        }
    }

    /// The position of the first slot keyed `key` or more.
    private func index(of key: Key) -> Int {
        index { $0 >= key }
    }

    /// The position of the first slot whose key is `past`, all after it
    /// being so too (a binary search).
    private func index(where past: (Key) -> Bool) -> Int {
        var (low, high) = (0, keys.count)
        while low < high {
            let middle = (low + high) / 2
            if past(keys[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Drops the gaps, in place; storage far larger than what is left is
    /// given back.
    private mutating func compact() {
        var kept = 0
        for position in head..<slots.count where slots[position] != nil {
            keys[kept] = keys[position]
            slots[kept] = slots[position]
            kept += 1
        }
        keys.removeLast(keys.count - kept)
        slots.removeLast(slots.count - kept)
        head = 0
        if keys.capacity > max(1_024, 4 * kept) {
            keys = Self.copy(keys)
            slots = Self.copy(slots)
        }
    }

    /// A copy of `array` in storage of its size.
    private static func copy<Value>(_ array: [Value]) -> [Value] {
        var copy: [Value] = []
        copy.reserveCapacity(array.count)
        copy.append(contentsOf: array)
        return copy
    }
}

extension SortedList: Sendable where Key: Sendable, Element: Sendable {}
