import TidingsBase

extension DateMatching {
    /// The first instant after `instant` (seconds since 1970 UTC) that the
    /// components match in `zone`; nil when none ever will.
    ///
    /// PLACEHOLDER: the time helper replaces this file.
    package func nextDate(after instant: Double, in zone: TimeZoneRules) -> Double? { nil }
}
