import Testing
@testable import TidingsApp
import TidingsBase
import TidingsProtocol

/// The app library and the server share one wire model (TidingsProtocol's),
/// for triggers and categories:
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
        // A push trigger reads as the push (a remote notification's), and what is not a trigger is none.
        let push = decodeTrigger(JSONValue(TidingsProtocol.NotificationTrigger.push.json))
        #expect(push is PushNotificationTrigger)
        #expect(push?.protocolJSON == JSONValue(TidingsProtocol.NotificationTrigger.push.json))
        #expect(decodeTrigger(["timeInterval": "soon"]) == nil)
    }

    /// The actions of a category: identifier, title, option bits (Apple's
    /// raw values, the same in the app library and the protocol) and text input.
    static let actions: [(String, String, UInt32, (button: String, placeholder: String)?)] = [
        ("accept", "Accept", 4, nil),  // foreground
        ("decline", "Decline", 3, nil),  // destructive, authenticationRequired
        ("comment", "Comment", 0, ("Send", "Say something")),
    ]

    /// Categories with every option, actions with every option and a text
    /// input, as the app makes them and as the server holds them.
    static var categories: [(app: TidingsApp.NotificationCategory, server: TidingsProtocol.NotificationCategory)] {
        let appActions = actions.map { identifier, title, options, input in
            TidingsApp.NotificationAction(identifier: identifier, title: title, options: .init(rawValue: Int(options)),
                                          textInput: input.map { .init(buttonTitle: $0.button, placeholder: $0.placeholder) })
        }
        let serverActions = actions.map { identifier, title, options, input in
            TidingsProtocol.NotificationAction(identifier: identifier, title: title, options: .init(rawValue: options),
                                               textInput: input.map { .init(buttonTitle: $0.button, placeholder: $0.placeholder) })
        }
        let invite = TidingsApp.NotificationCategory(
            identifier: "invite", actions: appActions, intentIdentifiers: ["INSendMessageIntent"],
            hiddenPreviewsBodyPlaceholder: "%u invitations", categorySummaryFormat: "%u more from %@",
            options: [.customDismissAction, .allowInCarPlay, .hiddenPreviewsShowTitle, .hiddenPreviewsShowSubtitle])
        let held = TidingsProtocol.NotificationCategory(
            identifier: "invite", actions: serverActions,
            options: [.customDismissAction, .allowInCarPlay, .hiddenPreviewsShowTitle, .hiddenPreviewsShowSubtitle],
            intentIdentifiers: ["INSendMessageIntent"], hiddenPreviewsBodyPlaceholder: "%u invitations",
            summaryFormat: "%u more from %@")
        return [(invite, held),
                (TidingsApp.NotificationCategory(identifier: "plain", actions: []), TidingsProtocol.NotificationCategory(identifier: "plain"))]
    }

    @Test func anAppsCategoriesReadOnTheServersSideAsTheValuesItHolds() {
        for (app, server) in Self.categories {
            let reading = TidingsProtocol.NotificationCategory.read(app.json.wire)
            #expect(reading.diagnostics.isEmpty, "\(server.identifier)")
            #expect(reading.category == server)
        }
    }

    @Test func theServersCategoriesReadInTheAppLibraryAsThePublicValues() {
        for (app, server) in Self.categories {
            #expect(TidingsApp.NotificationCategory(json: JSONValue(server.json)) == app)
        }
        // What is not a category is none (the list leaves it out), not one without an identifier.
        #expect(TidingsApp.NotificationCategory(json: ["identifier": "", "actions": []]) == nil)
        #expect(TidingsApp.NotificationCategory(json: ["identifier": "c", "actions": [["title": "No identifier"]]]) == nil)
    }
}
