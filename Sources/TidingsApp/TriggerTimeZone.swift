import Glibc
import TidingsBase

/// The zone a calendar trigger is matched in, as on the device: the app's
/// own. A request whose date components name no zone is sent with the
/// process's (`TZ`, else `/etc/localtime`'s name, as Tidings reads the local
/// zone), so that a host running in another zone fires it at the app's wall time.
enum TriggerTimeZone {
    /// The zone database the host looks names up in.
    static let database = "/usr/share/zoneinfo"

    /// The name of this process's zone when the host can look it up (a file
    /// of the zone database, `Europe/Berlin`); nil for what no name gives —
    /// a POSIX rule in `TZ`, a zone file outside the database, an
    /// `/etc/localtime` that is no link into it — and then the host's zone applies.
    static func processZone() -> String? {
        let environment = getenv("TZ").map { ["TZ": String(cString: $0)] } ?? [:]
        let name = TimeZoneRules.local(environment: environment, directory: database).name
        guard name != "localtime", !name.isEmpty, !name.hasPrefix("/"),
              FileSystem.status(of: Path.join(database, name))?.kind == .regular else { return nil }
        return name
    }
}

extension NotificationRequest {
    /// The request as it is sent: a calendar trigger whose components name
    /// no zone carries `zone` (when there is one); any other request as it is.
    func sent(inZone zone: String?) -> NotificationRequest {
        guard let zone, var calendar = trigger as? CalendarNotificationTrigger, calendar.dateComponents.timeZone == nil else { return self }
        calendar.dateComponents.timeZone = zone
        var request = self
        request.trigger = calendar
        return request
    }
}
