/// The rules of one time zone: its offset from UTC at any instant, read
/// from the system's zone database (TZif files) or a POSIX `TZ` rule.
///
/// Cheap to copy: the transition table is shared, never copied. Two rules
/// are equal when they have the same name and the same offsets at every
/// instant as their data say (the same table and rule), so that a
/// scheduler can tell that the machine's zone or its definition changed.
package struct TimeZoneRules: Sendable, Equatable {
    /// The zone's name ("Europe/Paris", the POSIX rule's text, "localtime", "UTC").
    package let name: String
    /// The offsets over time.
    let table: ZoneTable

    /// Coordinated Universal Time.
    package static let utc = TimeZoneRules(name: "UTC", table: ZoneTable(transitions: [], offsets: [], initialOffset: 0, rule: nil))

    /// The zone `name` whose offsets `table` gives.
    init(name: String, table: ZoneTable) {
        self.name = name
        self.table = table
    }

    /// The zone a POSIX `TZ` rule describes ("CET-1CEST,M3.5.0,M10.5.0/3",
    /// "<+0330>-3:30", "EST5EDT"), named by its text; nil when `rule` is
    /// not one (see `POSIXTimeZoneRule`).
    package init?(posix rule: String) {
        guard let parsed = POSIXTimeZoneRule(rule) else { return nil }
        self.init(name: rule, table: ZoneTable(transitions: [], offsets: [], initialOffset: parsed.standardOffset, rule: parsed))
    }

    /// The zone a TZif file's bytes describe, named `name`; the reason when they are not one.
    static func reading(_ bytes: [UInt8], named name: String) throws(TZifReader.Malformed) -> TimeZoneRules {
        TimeZoneRules(name: name, table: try TZifReader.read(bytes))
    }

    /// The offset from UTC at `instant` (seconds since 1970 UTC), in seconds east of Greenwich.
    package func offset(at instant: Int64) -> Int {
        table.fixedOffset ?? table.offset(at: instant)
    }

    /// The first instant after `instant` at which the offset may change; nil when it never does again.
    package func nextTransition(after instant: Int64) -> Int64? {
        table.fixedOffset == nil ? table.nextTransition(after: instant) : nil
    }

    /// The wall clock's date and time at `instant` in this zone.
    package func localFields(at instant: Int64) -> LocalDateTime {
        LocalDateTime(wallSeconds: instant + Int64(offset(at: instant)))
    }
}
