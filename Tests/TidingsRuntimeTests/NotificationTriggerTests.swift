import Testing
import TidingsBase
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
}
