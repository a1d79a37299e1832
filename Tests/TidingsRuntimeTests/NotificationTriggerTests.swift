import Testing
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// What delivered a notification, as front ends see it: an APNs payload is
/// a push, a request delivered at once has no trigger, and a notification's
/// JSON carries its trigger as `requests.add` takes one, without a next date.
@Suite struct NotificationTriggerTests {
    @Test func anAPNsPayloadIsDeliveredByAPushAndARequestByNothing() throws {
        let remote = Payload.decode(.object([("aps", .object([("alert", .string("Hi"))]))]))
        #expect(try #require(remote.notification).trigger == .push)
        let request = Payload.decode(.object([("content", .object([("title", .string("Hi"))]))]))
        #expect(try #require(request.notification).trigger == nil)
    }

    @Test func theNotificationJSONCarriesTheTriggerWhenThereIsOne() throws {
        var matching = DateMatching()
        matching.hour = 8
        matching.minute = 30
        let trigger = NotificationTrigger.calendar(matching, repeats: true)
        let fired = UserNotification(identifier: "n", date: 0, content: NotificationContent(), trigger: trigger)
        #expect(fired.json["trigger"] == .object([
            ("dateMatching", .object([("hour", .integer(8)), ("minute", .integer(30))])), ("repeats", .bool(true)),
        ]))
        #expect(fired.json["nextTriggerDate"] == nil)
        // What front ends get reads back as the same trigger.
        #expect(NotificationTrigger.read(try #require(fired.json["trigger"])).trigger == trigger)
        let now = UserNotification(identifier: "n", date: 0, content: NotificationContent())
        #expect(now.json["trigger"] == nil)
    }

    @Test func calendarComponentsTheHostWroteReadBackAsTheyWere() throws {
        var matching = DateMatching()
        for (offset, name) in DateMatching.componentNames.enumerated() { matching[component: name] = offset + 1 }
        matching.timeZone = "Europe/Paris"
        #expect(DateMatching(written: matching.json) == matching)
        var fewer = DateMatching()
        fewer.hour = 0
        #expect(DateMatching(written: fewer.json) == fewer)
        #expect(DateMatching(written: .string("08:00")) == nil)
    }

    @Test func anAppsCalendarTriggerMustNameAZoneTheSystemKnowsWhileAKeptOneIsNotLookedUpAgain() throws {
        let trigger = JSON.object([("dateMatching", .object([("hour", .integer(8)), ("timeZone", .string("Mars/Olympus_Mons"))]))])
        let scheduled = NotificationTrigger.read(trigger)
        #expect(scheduled.trigger == nil)
        #expect(scheduled.diagnostics.map(\.code) == [.triggerInvalid])
        #expect(scheduled.diagnostics.first?.message.contains("Mars/Olympus_Mons") == true)
        let kept = NotificationTrigger.read(trigger, allowingPush: true)
        #expect(kept.diagnostics.isEmpty)
        guard case .calendar(let matching, _)? = kept.trigger else {
            Issue.record("a kept trigger reads back")
            return
        }
        #expect(matching.timeZone == "Mars/Olympus_Mons")
        let known = JSON.object([("dateMatching", .object([("hour", .integer(8)), ("timeZone", .string("Europe/Paris"))]))])
        #expect(NotificationTrigger.read(known).diagnostics.isEmpty)
    }
}
