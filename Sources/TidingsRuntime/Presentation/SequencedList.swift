/// Elements kept in the order of their sequence numbers: appended in
/// increasing order (inserted in the middle, rarely), removed by number from
/// anywhere, read from the first or from after a given number.
///
/// Removal leaves a gap that is skipped, and the storage is compacted once
/// gaps outnumber the elements, so every operation costs amortised constant
/// time but for finding a number (a binary search), and a list that shrank
/// gives its storage back. (It lives beside the host that uses it: in
/// another module, unspecialised, every call looked up generic metadata.)
package struct SequencedList<Element> {
    /// The numbers of the slots, increasing.
    private var numbers: [UInt64] = []
    /// The slots: an element, or nil where one was removed.
    private var slots: [Element?] = []
    /// The first slot that may hold an element; those before are gaps.
    private var head = 0
    /// The elements held.
    package private(set) var count = 0

    /// An empty list.
    package init() {}

    /// The element with the smallest number, with its number.
    package var first: (number: UInt64, element: Element)? {
        head < slots.count ? (numbers[head], slots[head]!) : nil
    }

    /// Adds `element` as `number`, which no element of the list has: after
    /// the last when it is the largest, else in its place.
    package mutating func insert(_ element: Element, as number: UInt64) {
        count += 1
        guard let last = numbers.last, number <= last else {
            numbers.append(number)
            slots.append(element)
            return
        }
        let position = index(of: number)
        if position < numbers.count && numbers[position] == number {
            slots[position] = element
        } else {
            numbers.insert(number, at: position)
            slots.insert(element, at: position)
        }
        head = min(head, position)
    }

    /// Removes the element numbered `number`, and returns it; nil when none has it.
    @discardableResult
    package mutating func remove(_ number: UInt64) -> Element? {
        let position = index(of: number)
        guard position < numbers.count, numbers[position] == number, let element = slots[position] else { return nil }
        slots[position] = nil
        count -= 1
        if position == head {
            while head < slots.count && slots[head] == nil { head += 1 }
        }
        if slots.count - count > max(count, 64) { compact() }
        return element
    }

    /// The elements numbered after `number`, in order, each with its number.
    package func elements(after number: UInt64) -> some Sequence<(number: UInt64, element: Element)> {
        let start = max(head, index { $0 > number })
        return (start..<slots.count).lazy.compactMap { position in
            slots[position].map { (numbers[position], $0) }
        }
    }

    /// The position of the first slot numbered `number` or more.
    private func index(of number: UInt64) -> Int {
        index { $0 >= number }
    }

    /// The position of the first slot whose number is `past`, all after it
    /// being so too (a binary search).
    private func index(where past: (UInt64) -> Bool) -> Int {
        var (low, high) = (0, numbers.count)
        while low < high {
            let middle = (low + high) / 2
            if past(numbers[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Drops the gaps, in place; storage far larger than what is left is
    /// given back.
    private mutating func compact() {
        var kept = 0
        for position in head..<slots.count where slots[position] != nil {
            numbers[kept] = numbers[position]
            slots[kept] = slots[position]
            kept += 1
        }
        numbers.removeLast(numbers.count - kept)
        slots.removeLast(slots.count - kept)
        head = 0
        if numbers.capacity > max(1_024, 4 * kept) {
            numbers = Self.copy(numbers)
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

extension SequencedList: Sendable where Element: Sendable {}
