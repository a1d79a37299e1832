import Foundation
import ServerTestSupport
import TestSupport
import TidingsApp
import TidingsBase
import Testing

/// A calendar trigger is matched in the app's zone, as on the device, not in
/// the host's: a host in Tokyo, an app in Berlin, a daily 08:00 reminder
/// fires at 08:00 in Berlin.
@Suite(.serialized, .onOwnThreads) struct AppTimeZoneTests {
    func daily(_ identifier: String, at components: TriggerDateComponents) -> NotificationRequest {
        var content = NotificationContent()
        content.title = "Medication"
        return NotificationRequest(identifier: identifier, content: content,
                                   trigger: CalendarNotificationTrigger(dateMatching: components, repeats: true))
    }

    @Test func aCalendarTriggerIsMatchedInTheAppsZone() async throws {
        let host = try HostFixture(environment: ["TZ": "Asia/Tokyo"])
        let described = try host.frontEnd.call("server.describe", nil)
        #expect(described["schedule"]?["timeZone"]?.stringValue == "Asia/Tokyo", "\(described)")
        let center = host.center()
        // The app's process in Berlin, without touching this test process's TZ.
        await center.sendTimeZone("Europe/Berlin")
        try await center.add(daily("pill", at: TriggerDateComponents(hour: 8, minute: 0)))
        try await center.add(daily("call", at: TriggerDateComponents(hour: 8, minute: 0, timeZone: "America/New_York")))

        let pending = try await center.pendingNotificationRequests()
        let pill = try #require(pending.first { $0.identifier == "pill" })
        let trigger = try #require(pill.trigger as? CalendarNotificationTrigger)
        #expect(trigger.dateComponents == TriggerDateComponents(hour: 8, minute: 0, timeZone: "Europe/Berlin"))
        let next = Int64(try #require(pill.nextTriggerDate).timeIntervalSince1970)
        let berlin = try TimeZoneRules(named: "Europe/Berlin")
        let wall = berlin.localFields(at: next)
        #expect((wall.hour, wall.minute, wall.second) == (8, 0, 0), "\(wall) in Berlin")
        // In winter (CET, +01:00) that is 07:00Z; matched in Tokyo it would have been 23:00Z.
        let utcHour = Int(next % 86400 / 3600)
        #expect(utcHour == (berlin.offset(at: next) == 3600 ? 7 : 6), "\(utcHour):00Z")
        #expect(try TimeZoneRules(named: "Asia/Tokyo").localFields(at: next).hour != 8)

        // Components naming a zone keep it.
        let call = try #require(pending.first { $0.identifier == "call" })
        #expect((call.trigger as? CalendarNotificationTrigger)?.dateComponents.timeZone == "America/New_York")
        let newYork = try TimeZoneRules(named: "America/New_York").localFields(at: Int64(try #require(call.nextTriggerDate).timeIntervalSince1970))
        #expect((newYork.hour, newYork.minute) == (8, 0))
    }
}
