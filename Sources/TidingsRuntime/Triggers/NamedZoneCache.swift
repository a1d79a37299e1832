import Synchronization
import TidingsBase
import TidingsProtocol

/// The zones calendar triggers name (`DateMatching.timeZone`), each read
/// from the tz database once: a trigger's next date is computed on every
/// arm and fire, and reading a zone file costs far more than the search.
///
/// A name that is no zone is remembered too, as nil. The cache is bounded:
/// past `capacity` names it starts again empty. It is never refreshed: a
/// tz database updated under a running server is read again on restart.
package final class NamedZoneCache: Sendable {
    /// The process's cache, over /usr/share/zoneinfo.
    package static let shared = NamedZoneCache(directory: "/usr/share/zoneinfo")

    /// The most names kept.
    package static let capacity = 256

    private let directory: String
    private let zones = Mutex<[String: TimeZoneRules?]>([:])

    /// A cache over the tz database in `directory`.
    package init(directory: String) {
        self.directory = directory
    }

    /// The zone `name`; nil when the database has no such zone or it cannot be read.
    package func rules(named name: String) -> TimeZoneRules? {
        if let known = zones.withLock({ $0[name] }) { return known }
        let loaded = try? TimeZoneRules(named: name, in: directory)
        zones.withLock { zones in
            if zones.count >= Self.capacity { zones.removeAll(keepingCapacity: true) }
            zones[name] = loaded
        }
        return loaded
    }
}

extension NotificationTrigger {
    /// Reads a trigger as `read(_:at:allowingPush:zoneExists:)` does, an
    /// app's `timeZone` looked up in `NamedZoneCache.shared` (and, with
    /// `allowingPush`, what the host made, not looked up again).
    package static func read(_ json: JSON, at path: [String] = ["trigger"], allowingPush: Bool = false) -> Reading {
        read(json, at: path, allowingPush: allowingPush,
             zoneExists: allowingPush ? nil : { NamedZoneCache.shared.rules(named: $0) != nil })
    }
}
