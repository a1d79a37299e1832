import Testing
@testable import TidingsApp
import TidingsBase
import TidingsProtocol

/// The app library and the server share one wire model (TidingsProtocol's):
/// what an app sends reads back on the server's side, with its checks,
/// without a diagnostic, as the values the server holds; what the server
/// writes reads back in the app library as the public values the app made.
@Suite struct WireModelTests {
    /// Every component, and a time zone.
    static let everyComponent = TriggerDateComponents(era: 1, year: 2027, month: 3, day: 14, hour: 8, minute: 30,
                                                      second: 15, weekday: 1, weekdayOrdinal: 2, weekOfMonth: 3,
                                                      weekOfYear: 11, timeZone: "Europe/Paris")

    /// Each kind of trigger an app schedules, as the app makes it and as the server holds it.
    static var triggers: [(app: any TidingsApp.NotificationTrigger, server: TidingsProtocol.NotificationTrigger)] {
        var matching = DateMatching()
        matching.era = 1
        matching.year = 2027
        matching.month = 3
        matching.day = 14
        matching.hour = 8
        matching.minute = 30
        matching.second = 15
        matching.weekday = 1
        matching.weekdayOrdinal = 2
        matching.weekOfMonth = 3
        matching.weekOfYear = 11
        matching.timeZone = "Europe/Paris"
        var halfPast = DateMatching()
        halfPast.minute = 30
        return [
            (TimeIntervalNotificationTrigger(timeInterval: 90.5, repeats: false), .timeInterval(seconds: 90.5, repeats: false)),
            (TimeIntervalNotificationTrigger(timeInterval: 3600, repeats: true), .timeInterval(seconds: 3600, repeats: true)),
            (CalendarNotificationTrigger(dateMatching: everyComponent, repeats: true), .calendar(matching, repeats: true)),
            (CalendarNotificationTrigger(dateMatching: TriggerDateComponents(minute: 30), repeats: false),
             .calendar(halfPast, repeats: false)),
            (LocationNotificationTrigger(region: TidingsApp.CircularRegion(
                identifier: "office", latitude: -33.5, longitude: 151.25, radius: 120, notifyOnEntry: false),
                repeats: true),
             .location(TidingsProtocol.CircularRegion(identifier: "office", latitude: -33.5, longitude: 151.25,
                                                      radius: 120, notifyOnEntry: false), repeats: true)),
        ]
    }

    /// The trigger as a value that compares (each public trigger is Hashable).
    static func comparable(_ trigger: (any TidingsApp.NotificationTrigger)?) -> AnyHashable? {
        (trigger as? any Hashable).map { AnyHashable($0) }
    }

    @Test func anAppsTriggersReadOnTheServersSideAsTheValuesItHolds() {
        for (app, server) in Self.triggers {
            // As `requests.add` reads an app's trigger: push refused, the zone looked up.
            let reading = TidingsProtocol.NotificationTrigger.read(app.protocolJSON.wire, zoneExists: { $0 == "Europe/Paris" })
            #expect(reading.diagnostics.isEmpty, "\(server)")
            #expect(reading.trigger == server)
            #expect(app.repeats == server.repeats)
        }
    }

    @Test func theServersTriggersReadInTheAppLibraryAsThePublicValues() {
        for (app, server) in Self.triggers {
            let decoded = decodeTrigger(JSONValue(server.json))
            #expect(Self.comparable(decoded) == Self.comparable(app), "\(server)")
        }
        // A push trigger is no trigger an app schedules, and what is not a trigger is none.
        #expect(decodeTrigger(JSONValue(TidingsProtocol.NotificationTrigger.push.json)) == nil)
        #expect(decodeTrigger(["timeInterval": "soon"]) == nil)
    }
}
