/// Numbers that came from outside — JSON, a property list, the journal, a
/// worker's channel, a command's option — made into integers, instants and
/// durations without trapping: `Int(someDouble)` traps for what does not
/// fit (1e300, NaN), and `seconds * 1e9` as a `UInt64` past some 584 years.
/// Readers refuse what does not fit (`Int64(rounding:)` is nil, a date
/// outside `dates`); what is computed from checked values saturates.
package enum CheckedNumbers {
    /// The dates taken from input, in seconds since 1970-01-01 UTC: from
    /// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, those ISO 8601 writes
    /// (and `ISO8601.parse` reads) with four digits of year.
    package static let dates: ClosedRange<Double> = -62_135_596_800 ... 253_402_300_799

    /// `seconds` as whole nanoseconds: 0 for what is not more than 0 (NaN
    /// included), `UInt64.max` for what lies beyond (some 584 years).
    package static func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds > 0 ? UInt64(saturating: seconds * 1e9) : 0
    }

    /// `instant` plus `seconds` as nanoseconds, `UInt64.max` when the sum overflows: a deadline that never comes.
    package static func instant(_ instant: UInt64, after seconds: Double) -> UInt64 {
        let (sum, overflow) = instant.addingReportingOverflow(nanoseconds(seconds))
        return overflow ? .max : sum
    }
}

extension FixedWidthInteger {
    /// `value` rounded by `rule`, when it is finite and the result fits this
    /// type; nil otherwise (where `Self(value)` would trap).
    package init?(rounding value: Double, _ rule: FloatingPointRoundingRule = .towardZero) {
        guard let exact = Self(exactly: value.rounded(rule)) else { return nil }
        self = exact
    }

    /// `value` rounded by `rule`, held to this type's range: `max` for what
    /// is larger, `min` for what is smaller, 0 for NaN.
    package init(saturating value: Double, _ rule: FloatingPointRoundingRule = .towardZero) {
        if value.isNaN {
            self = 0
        } else {
            self = Self(rounding: value, rule) ?? (value > 0 ? .max : .min)
        }
    }
}

extension Diagnostic.Code {
    /// A number that does not fit what it is made into: an interval no
    /// clock holds, a date past the year 9999, an integer past its type. The
    /// server answers it as invalid parameters (-32602), naming the field.
    package static let numberOutOfRange = Self("number.out-of-range")
}
