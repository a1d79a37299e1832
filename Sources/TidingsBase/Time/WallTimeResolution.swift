/// When a wall-clock time happens in a zone: once, twice (the clocks were
/// turned back over it) or never (they were turned forward over it).
package enum WallTimeResolution: Sendable, Equatable {
    /// The wall time happens once, at this instant (seconds since 1970 UTC).
    case unique(Int64)
    /// The wall time happens twice: at `first`, then again at `second`.
    /// `overlap` is the span of wall times (seconds since 1970 on the wall
    /// clock) that happen twice there.
    case repeated(first: Int64, second: Int64, overlap: Range<Int64>)
    /// The wall time never happens: `shifted` is the instant the wall clock
    /// would read it had it not been turned forward (the wall time shifted
    /// by the gap: 02:30 on a one-hour gap from 02:00 is 03:30). `gap` is the
    /// span of wall times that never happen there.
    case skipped(shifted: Int64, gap: Range<Int64>)

    /// The instant to use for the wall time: its only or first occurrence,
    /// or the shifted instant when it is skipped.
    package var firstInstant: Int64 {
        switch self {
        case .unique(let instant), .repeated(let instant, _, _), .skipped(let instant, _): instant
        }
    }
}

extension TimeZoneRules {
    /// When the wall time `wallSeconds` (seconds since 1970-01-01 00:00:00
    /// on this zone's clocks) happens.
    package func resolve(wall wallSeconds: Int64) -> WallTimeResolution {
        if let fixed = table.fixedOffset { return .unique(wallSeconds - Int64(fixed)) }
        // Offsets stay within ±26 hours, so every instant the wall time can
        // name lies within two days of it, read as UTC.
        let end = wallSeconds + 2 * 86400
        var segmentStart = wallSeconds - 2 * 86400
        var offset = Int64(self.offset(at: segmentStart))
        // The instants found that read the wall time: the first and the last.
        var found: (first: Int64, last: Int64)?
        var change: (at: Int64, before: Int64, after: Int64)?
        while segmentStart < end {
            let segmentEnd = min(nextTransition(after: segmentStart) ?? end, end)
            let candidate = wallSeconds - offset
            if candidate >= segmentStart && candidate < segmentEnd { found = (found?.first ?? candidate, candidate) }
            guard segmentEnd < end else { break }
            let next = Int64(self.offset(at: segmentEnd))
            // The wall clock jumps from segmentEnd + offset to segmentEnd + next.
            if next > offset && wallSeconds >= segmentEnd + offset && wallSeconds < segmentEnd + next {
                change = (segmentEnd, offset, next)
            } else if next < offset && wallSeconds >= segmentEnd + next && wallSeconds < segmentEnd + offset {
                change = (segmentEnd, offset, next)
            }
            segmentStart = segmentEnd
            offset = next
        }
        switch (found, change) {
        case (let found?, let change?) where found.first != found.last:
            return .repeated(first: found.first, second: found.last, overlap: change.at + change.after..<change.at + change.before)
        case (nil, let change?):
            return .skipped(shifted: wallSeconds - change.before, gap: change.at + change.before..<change.at + change.after)
        default:
            return .unique(found?.first ?? wallSeconds - Int64(self.offset(at: wallSeconds)))
        }
    }
}
