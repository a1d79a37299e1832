/// Dates as ISO 8601 text (`2026-11-21T09:30:00Z`), converted by arithmetic
/// on the proleptic Gregorian calendar, without time-zone databases.
package enum ISO8601 {
    /// Seconds from 1970-01-01 to 2001-01-01 (Apple's reference date), both UTC.
    package static let referenceDateOffset = 978_307_200.0

    /// Seconds since 1970-01-01 00:00:00 UTC for `YYYY-MM-DDTHH:MM:SS`, with
    /// optional fractional seconds, then `Z` or a `±HH:MM` offset; nil for
    /// anything else.
    package static func parse(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<position + digits] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            position += digits
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == character else { return false }
            position += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
              expect(0x54),
              let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A), let second = number(2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if expect(0x2E) {
            var scale = 0.1
            let start = position
            while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 {
                fraction += Double(bytes[position] - 0x30) * scale
                scale /= 10
                position += 1
            }
            guard position > start else { return nil }
        }
        var offset = 0
        if expect(0x5A) || expect(0x7A) {
            offset = 0
        } else if position < bytes.count, bytes[position] == 0x2B || bytes[position] == 0x2D {
            let sign = bytes[position] == 0x2D ? -1 : 1
            position += 1
            guard let hours = number(2), expect(0x3A), let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard position == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (whole seconds, UTC) for seconds since 1970.
    /// Readers hold dates to `CheckedNumbers.dates`; beyond them the year
    /// has more digits, and what no `Int` holds is written as its nearest
    /// (NaN as 1970), rather than trapping.
    package static func format(_ seconds: Double) -> String {
        let whole = Int(saturating: seconds, .down)
        var days = whole / 86_400
        var rest = whole % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(rest / 3600, 2)):\(pad(rest % 3600 / 60, 2)):\(pad(rest % 60, 2))Z"
    }

    /// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count from 1970-01-01 (Howard Hinnant's algorithm).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
