/// The rules of one time zone: its offset from UTC at any instant, read
/// from the system's zone database (TZif files) or a POSIX `TZ` rule.
///
/// PLACEHOLDER: offset 0 everywhere; the time helper replaces this file.
package struct TimeZoneRules: Sendable, Equatable {
    /// The zone's name ("Europe/Paris", the POSIX rule's text, "UTC").
    package let name: String

    /// Coordinated Universal Time.
    package static let utc = TimeZoneRules(name: "UTC")

    private init(name: String) { self.name = name }

    /// The offset from UTC at `instant` (seconds since 1970 UTC), in seconds east of Greenwich.
    package func offset(at instant: Int64) -> Int { 0 }
}
