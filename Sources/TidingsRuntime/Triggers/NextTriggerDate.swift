import TidingsBase
import TidingsProtocol

extension DateMatching {
    /// The first instant strictly after `instant` (seconds since 1970 UTC)
    /// whose wall-clock date and time in `zone` the components match — in
    /// the zone `timeZone` names instead when it names one (nil when it
    /// names no zone of the tz database); nil when none ever will.
    ///
    /// It follows Foundation's `Calendar.nextDate(after:matching:
    /// matchingPolicy: .nextTimePreservingSmallerComponents,
    /// repeatedTimePolicy: .first)` in the Gregorian calendar (proleptic):
    /// - Weekdays are 1 (Sunday) … 7 (Saturday); weeks begin on Sunday and
    ///   the first week of a month or year is the one holding its 1st
    ///   (minimumDaysInFirstWeek 1, as en_US), so the last days of December
    ///   are in week 1 of the next year when their week holds 1 January;
    ///   `weekdayOrdinal` n is the month's n-th such weekday (days 7n−6 … 7n).
    /// - Of era, year, month, day, hour, minute and second, those left out
    ///   above the largest given match any value (`minute: 30`: every hour
    ///   at :30:00; `weekday: 2, minute: 30`: every hour of Mondays at :30)
    ///   and those below it take their smallest value (`hour: 8`: 08:00:00;
    ///   `hour: 8, second: 15`: 08:00:15; `month: 3, hour: 8`: 1 March at
    ///   08:00; `month: 9, weekday: 7`: September's first Saturday;
    ///   `year: 2027`: 1 January 2027). With only week components, the first
    ///   day they select: `weekday: 2` every Monday at 00:00:00,
    ///   `weekOfYear: 10` its Sunday, `weekOfMonth: 1` the 1st,
    ///   `weekdayOrdinal: 2` the 8th. No component at all: nil.
    /// - A wall time the clocks skip (02:30 when they go from 02:00 to 03:00)
    ///   fires at that wall time shifted by the gap (03:30); one they repeat
    ///   (01:30 when they go back from 02:00 to 01:00) fires at its first
    ///   occurrence only, and the repeated wall times are not matched again
    ///   (after the first 01:30, an hourly `minute: 30` comes next at 02:30).
    /// - `era` 0 (BC), a `year` already past, or a set no date has
    ///   (30 February; day 31 with a month of 30 days) give nil; a day some
    ///   months lack (the 31st, 29 February, a sixth week) matches only the
    ///   months that have it (Foundation would roll over into the next month).
    ///
    /// The search goes forward month by month, jumping to the given year and
    /// month and checking only the given day, and stops at the end of the
    /// year given, or else 400 years after the instant's year (the Gregorian
    /// calendar repeats every 400 years, weekdays included), so a set that
    /// matches nothing is answered nil in bounded time (at worst about a
    /// third of a millisecond).
    package func nextDate(after instant: Double, in zone: TimeZoneRules) -> Double? {
        // Beyond about ±30 million years an Int64 of seconds overflows the calendar arithmetic.
        guard instant.isFinite, abs(instant) < 1e15, let pattern = CalendarPattern(self) else { return nil }
        var zone = zone
        if let name = timeZone {
            guard let named = NamedZoneCache.shared.rules(named: name) else { return nil }
            zone = named
        }
        return pattern.next(after: Int64(instant.rounded(.down)), in: zone).map(Double.init)
    }
}

extension CalendarPattern {
    /// The first instant after `after` (whole seconds since 1970 UTC) whose wall time in `zone` matches.
    func next(after: Int64, in zone: TimeZoneRules) -> Int64? {
        var start = zone.localFields(at: after).wallSeconds + 1
        // In the second pass of a repeated hour, its wall times all happened already.
        if case .repeated(_, let second, let overlap) = zone.resolve(wall: start - 1), after >= second {
            start = max(start, overlap.upperBound)
        }
        let soonest = justAfterGap(after, in: zone)
        // A wall time found resolves after `after`, save in the repeated hour's second pass (a few rounds at most).
        for _ in 0..<8 {
            guard let wall = firstWall(atOrAfter: start) else { break }
            var instant: Int64
            switch zone.resolve(wall: wall) {
            case .unique(let only): instant = only
            case .repeated(let first, _, _): instant = first
            case .skipped(let shifted, let gap):
                instant = shifted
                // A wall time past the gap can come sooner than one in it shifted (a gap of half an hour).
                if let later = firstWall(atOrAfter: gap.upperBound) {
                    let laterInstant = zone.resolve(wall: later).firstInstant
                    if laterInstant > after { instant = min(instant, laterInstant) }
                }
            }
            if instant > after { return min(instant, soonest ?? instant) }
            start = wall + 1
        }
        return soonest
    }

    /// When `after` lies just after the clocks were turned forward, within
    /// the gap's length: the soonest wall time of the gap whose shifted
    /// instant is after `after` (02:45 at 03:20 on a gap from 02:00 to 03:00 fires at 03:45).
    private func justAfterGap(_ after: Int64, in zone: TimeZoneRules) -> Int64? {
        // Gaps last at most a day (Samoa's of 30 December 2011).
        let wall = after + Int64(zone.offset(at: after - 86400)) + 1
        guard case .skipped(_, let gap) = zone.resolve(wall: wall), let found = firstWall(atOrAfter: wall), found < gap.upperBound
        else { return nil }
        let instant = zone.resolve(wall: found).firstInstant
        return instant > after ? instant : nil
    }
}
