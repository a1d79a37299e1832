// TriggerReport: a test fixture, a content extension written against
// TidingsSDK that logs the trigger of each notification it is given
// (`notification.request.trigger`) in the lines the C fixture Triggers.c
// logs: "trigger=none", "trigger=push", "trigger=interval seconds=S
// repeats=R", "trigger=calendar hour=8 minute=30 zone=Z repeats=R",
// "trigger=location id=I lat=A lon=O radius=M entry=E exit=X repeats=R".
import TidingsSDK

final class TriggerReport: NotificationContentExtension {
    private let context: NotificationExtensionContext

    init(context: NotificationExtensionContext) {
        self.context = context
    }

    func didReceive(_ notification: DeliveredNotification) {
        context.log(Self.describe(notification.request.trigger))
    }

    /// The line logged for `trigger`.
    static func describe(_ trigger: NotificationTrigger?) -> String {
        /// 1 for true, 0 for false, as C prints them.
        func flag(_ value: Bool) -> String { value ? "1" : "0" }
        switch trigger {
        case nil:
            return "trigger=none"
        case .push?:
            return "trigger=push"
        case .timeInterval(let seconds, let repeats)?:
            return "trigger=interval seconds=\(Int(seconds)) repeats=\(flag(repeats))"
        case .calendar(let components, let repeats)?:
            let given: [(String, Int?)] = [
                ("era", components.era), ("year", components.year), ("month", components.month), ("day", components.day),
                ("hour", components.hour), ("minute", components.minute), ("second", components.second),
                ("weekday", components.weekday), ("weekdayOrdinal", components.weekdayOrdinal),
                ("weekOfMonth", components.weekOfMonth), ("weekOfYear", components.weekOfYear),
            ]
            var line = "trigger=calendar"
            for case let (name, value?) in given { line += " \(name)=\(value)" }
            if let zone = components.timeZone { line += " zone=\(zone)" }
            return line + " repeats=\(flag(repeats))"
        case .location(let region, let repeats)?:
            return "trigger=location id=\(region.identifier) lat=\(region.latitude) lon=\(region.longitude) "
                + "radius=\(Int(region.radius)) entry=\(flag(region.notifyOnEntry)) exit=\(flag(region.notifyOnExit)) "
                + "repeats=\(flag(repeats))"
        }
    }
}

/// The entry function hosts of version 3 and later look up in this library.
@c(tidings_extension_entry_v3)
public func tidingsExtensionEntryV3(_ info: UnsafeRawPointer?) -> UnsafeRawPointer? {
    NotificationExtensionEntry.descriptor(for: TriggerReport.self, entryInfo: info)
}

/// The entry function older hosts look up in this library.
@c(tidings_extension_entry)
public func tidingsExtensionEntry(_ hostVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    NotificationExtensionEntry.descriptor(for: TriggerReport.self, hostVersion: hostVersion, host: host)
}
