/// A POSIX `TZ` rule — `std offset [dst [offset] [,start[/time],end[/time]]]`
/// — as the `TZ` variable and the footer of a TZif file give it.
///
/// Names are three or more letters, or anything of letters, digits, `+`
/// and `-` between `<` and `>` (`<+0330>`). Offsets are hours west of
/// Greenwich (`EST5`, `CET-1`, `<+0545>-5:45`); the daylight offset is one
/// hour east of standard time when left out. Dates are `Jn` (day 1 … 365,
/// 29 February never counted), `n` (day 0 … 365, counted) or `Mm.w.d` (the
/// `w`-th weekday `d`, 0 Sunday, of month `m`; week 5 is the last); times
/// default to 02:00 and may be negative or beyond 24 hours (TZif version 3:
/// −167 … 167 hours). A daylight name without dates takes the US rules
/// (`M3.2.0,M11.1.0`), as the tz code does.
package struct POSIXTimeZoneRule: Sendable, Hashable {
    /// Standard time's offset, seconds east of Greenwich.
    package var standardOffset: Int
    /// Daylight saving time, when the rule has one.
    package var daylight: Daylight?

    /// Daylight saving time: its offset and when it begins and ends each year.
    package struct Daylight: Sendable, Hashable {
        /// Daylight time's offset, seconds east of Greenwich.
        package var offset: Int
        /// When it begins, in standard time.
        package var start: Transition
        /// When it ends, in daylight time.
        package var end: Transition
    }

    /// A day of the year and a time of that day.
    package struct Transition: Sendable, Hashable {
        /// The day of the year.
        package var day: Day
        /// Seconds after the day's midnight (−167 … 167 hours).
        package var time: Int
    }

    /// A day of the year as a rule names it.
    package enum Day: Sendable, Hashable {
        /// `Jn`: 1 … 365, 29 February not counted.
        case julian(Int)
        /// `n`: 0 … 365, 29 February counted.
        case ordinal(Int)
        /// `Mm.w.d`: the `week`-th (5: last) `weekday` (0 Sunday … 6) of `month`.
        case monthWeekday(month: Int, week: Int, weekday: Int)

        /// The day in `year`, as days since 1970.
        func daysSince1970(in year: Int) -> Int64 {
            let january1 = CivilDate(year: year, month: 1, day: 1).daysSince1970
            switch self {
            case .julian(let day):
                return january1 + Int64(day - 1) + (CivilDate.isLeapYear(year) && day >= 60 ? 1 : 0)
            case .ordinal(let day):
                return january1 + Int64(day)
            case .monthWeekday(let month, let week, let weekday):
                let first = CivilDate(year: year, month: month, day: 1)
                var day = 1 + (weekday - (first.weekday - 1) + 7) % 7 + 7 * (week - 1)
                while day > CivilDate.daysIn(month: month, of: year) { day -= 7 }
                return first.daysSince1970 + Int64(day - 1)
            }
        }
    }

    /// The rule `text` says; nil when it is not one.
    package init?(_ text: String) {
        var scanner = RuleScanner(Array(text.utf8))
        guard scanner.name() != nil, let standard = scanner.time(maxHours: 24) else { return nil }
        standardOffset = -standard
        if scanner.isAtEnd {
            daylight = nil
            return
        }
        guard scanner.name() != nil else { return nil }
        var offset = standardOffset + 3600
        if !scanner.isAtEnd && scanner.peek != UInt8(ascii: ",") {
            guard let given = scanner.time(maxHours: 24) else { return nil }
            offset = -given
        }
        let start: Transition
        let end: Transition
        if scanner.isAtEnd {
            start = Transition(day: .monthWeekday(month: 3, week: 2, weekday: 0), time: 7200)
            end = Transition(day: .monthWeekday(month: 11, week: 1, weekday: 0), time: 7200)
        } else {
            guard scanner.take(","), let first = scanner.transition(), scanner.take(","),
                  let second = scanner.transition(), scanner.isAtEnd
            else { return nil }
            start = first
            end = second
        }
        daylight = Daylight(offset: offset, start: start, end: end)
    }

    /// The offset at `instant` (seconds since 1970 UTC), seconds east of Greenwich.
    package func offset(at instant: Int64) -> Int {
        guard let daylight else { return standardOffset }
        var latest = Int64.min
        var inDaylight = false
        forEachTransition(around: instant, daylight) { moment, isStart in
            // At the same instant a start wins over an end: daylight time all year round.
            if moment <= instant && (moment > latest || (moment == latest && isStart)) {
                latest = moment
                inDaylight = isStart
            }
        }
        return inDaylight ? daylight.offset : standardOffset
    }

    /// The first instant after `instant` at which the rule changes time
    /// (standard to daylight or back); nil without daylight time.
    package func nextTransition(after instant: Int64) -> Int64? {
        guard let daylight else { return nil }
        var next = Int64.max
        forEachTransition(around: instant, daylight) { moment, _ in
            if moment > instant && moment < next { next = moment }
        }
        return next == .max ? nil : next
    }

    /// Calls `body` with the starts (true) and ends (false) of daylight time
    /// in the year of `instant` and the years either side (a time beyond
    /// 24 hours carries a transition into the next year).
    private func forEachTransition(around instant: Int64, _ daylight: Daylight, _ body: (Int64, Bool) -> Void) {
        let year = CivilDate(daysSince1970: CivilDate.split(instant + Int64(standardOffset)).days).year
        for year in year - 1...year + 1 {
            body(daylight.start.day.daysSince1970(in: year) * 86400 + Int64(daylight.start.time - standardOffset), true)
            body(daylight.end.day.daysSince1970(in: year) * 86400 + Int64(daylight.end.time - daylight.offset), false)
        }
    }
}

/// Reads the parts of a POSIX `TZ` rule.
private struct RuleScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }
    var peek: UInt8? { isAtEnd ? nil : bytes[index] }

    /// Skips `character` when it is next.
    mutating func take(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, peek == ascii else { return false }
        index += 1
        return true
    }

    /// A zone abbreviation: three or more letters, or `<…>` of letters, digits, `+` and `-`.
    mutating func name() -> String? {
        let start = index
        if take("<") {
            while let byte = peek, isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
                index += 1
            }
            let name = String(decoding: bytes[start + 1..<index], as: UTF8.self)
            guard name.utf8.count >= 3, take(">") else { return nil }
            return name
        }
        while let byte = peek, isLetter(byte) { index += 1 }
        guard index - start >= 3 else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// `[+|-]hh[:mm[:ss]]` in seconds, hours at most `maxHours`.
    mutating func time(maxHours: Int) -> Int? {
        let sign = take("-") ? -1 : 1
        if sign == 1 { _ = take("+") }
        guard let hours = number(digits: 1...3), hours <= maxHours else { return nil }
        var seconds = hours * 3600
        if take(":") {
            guard let minutes = number(digits: 1...2), minutes < 60 else { return nil }
            seconds += minutes * 60
            if take(":") {
                guard let extra = number(digits: 1...2), extra < 60 else { return nil }
                seconds += extra
            }
        }
        return sign * seconds
    }

    /// `date[/time]`.
    mutating func transition() -> POSIXTimeZoneRule.Transition? {
        let day: POSIXTimeZoneRule.Day
        if take("J") {
            guard let number = number(digits: 1...3), (1...365).contains(number) else { return nil }
            day = .julian(number)
        } else if take("M") {
            guard let month = number(digits: 1...2), (1...12).contains(month), take("."),
                  let week = number(digits: 1...1), (1...5).contains(week), take("."),
                  let weekday = number(digits: 1...1), (0...6).contains(weekday)
            else { return nil }
            day = .monthWeekday(month: month, week: week, weekday: weekday)
        } else {
            guard let number = number(digits: 1...3), (0...365).contains(number) else { return nil }
            day = .ordinal(number)
        }
        var time = 7200
        if take("/") {
            guard let given = self.time(maxHours: 167) else { return nil }
            time = given
        }
        return POSIXTimeZoneRule.Transition(day: day, time: time)
    }

    /// A decimal number of `digits` digits.
    private mutating func number(digits: ClosedRange<Int>) -> Int? {
        let start = index
        var value = 0
        while let byte = peek, isDigit(byte), index - start < digits.upperBound {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            index += 1
        }
        return digits.contains(index - start) ? value : nil
    }

    private func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
