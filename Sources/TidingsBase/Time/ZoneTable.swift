/// The offsets of a time zone over time: a table of transitions (from a
/// TZif file) and, past its last one, a POSIX rule.
///
/// A class, so that copying `TimeZoneRules` copies a reference, not the
/// table; immutable, so that it is shared between threads freely.
final class ZoneTable: Sendable, Equatable {
    /// The instants (seconds since 1970 UTC) at which the offset may change, ascending.
    let transitions: [Int64]
    /// The offset from each transition on (seconds east of Greenwich), one per transition.
    let offsets: [Int32]
    /// The offset before the first transition, or everywhere when there is none and no rule.
    let initialOffset: Int
    /// The rule from the last transition on (from the start when there is none).
    let rule: POSIXTimeZoneRule?
    /// The offset when it never changes; nil when it does.
    let fixedOffset: Int?

    init(transitions: [Int64], offsets: [Int32], initialOffset: Int, rule: POSIXTimeZoneRule?) {
        self.transitions = transitions
        self.offsets = offsets
        self.initialOffset = initialOffset
        self.rule = rule
        let ruleIsFixed = rule.map { $0.daylight == nil && $0.standardOffset == initialOffset } ?? true
        fixedOffset = ruleIsFixed && offsets.allSatisfy { Int($0) == initialOffset } ? initialOffset : nil
    }

    /// The offset at `instant`, seconds east of Greenwich.
    func offset(at instant: Int64) -> Int {
        guard let last = transitions.last else { return rule?.offset(at: instant) ?? initialOffset }
        if instant >= last, let rule { return rule.offset(at: instant) }
        let index = firstTransition(after: instant)
        return index == 0 ? initialOffset : Int(offsets[index - 1])
    }

    /// The first transition after `instant`; nil when the offset never changes again.
    func nextTransition(after instant: Int64) -> Int64? {
        let index = firstTransition(after: instant)
        if index < transitions.count { return transitions[index] }
        return rule?.nextTransition(after: instant)
    }

    /// The index of the first transition after `instant` (`transitions.count` when none is).
    private func firstTransition(after instant: Int64) -> Int {
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= instant { low = middle + 1 } else { high = middle }
        }
        return low
    }

    static func == (lhs: ZoneTable, rhs: ZoneTable) -> Bool {
        lhs === rhs || (lhs.transitions == rhs.transitions && lhs.offsets == rhs.offsets
            && lhs.initialOffset == rhs.initialOffset && lhs.rule == rhs.rule)
    }
}
