import ServerTestSupport
import TestSupport
import TidingsApp
import TidingsBase
import Testing

/// Responses, background wake, foreground presentation and reconnecting,
/// through the delegate, against a real `tidings serve`.
@Suite(.serialized, .onOwnThreads) struct AppDelegateTests {
    static let categories = #"{"app": "org.example.app", "categories": [{"identifier": "reminder", "actions": [{"identifier": "done", "title": "Done"}, {"identifier": "snooze", "title": "Snooze"}]}]}"#
    static let reminder = #"{"identifier": "r", "content": {"title": "Reminder", "body": "Plants", "categoryIdentifier": "reminder"}}"#

    @Test func aForwardedResponseReachesTheDelegate() async throws {
        let host = try HostFixture()
        _ = try host.frontEnd.call("categories.register", try host.json(Self.categories))
        let center = host.center()
        let delegate = RecordingDelegate()
        try await center.setDelegate(delegate)
        try host.deliver(Self.reminder, identifier: "r1")
        _ = try host.frontEnd.call("notifications.respond", try host.json(#"{"identifier": "r1", "action": "done"}"#))
        let response = try #require(await next(delegate.responses))
        #expect(response.actionIdentifier == "done")
        #expect(response.notification.request.identifier == "r1")
        #expect(response.notification.request.content.body == "Plants")
    }

    @Test func aRestartOfTheHostLosesNoForwardedResponse() async throws {
        let host = try HostFixture()
        _ = try host.frontEnd.call("categories.register", try host.json(Self.categories))
        let center = host.center()
        let delegate = RecordingDelegate()
        try await center.setDelegate(delegate)
        try host.deliver(Self.reminder, identifier: "before")
        try host.deliver(Self.reminder, identifier: "during")
        _ = try host.frontEnd.call("notifications.respond", try host.json(#"{"identifier": "before", "action": "done"}"#))
        #expect(await next(delegate.responses)?.notification.request.identifier == "before")
        try await center.removeDeliveredNotifications(withIdentifiers: ["before"])

        // The host stops; a response is forwarded while the app is away (or
        // just back): kept in the inbox, replayed when the center subscribes again.
        try host.restart()
        _ = try host.frontEnd.call("notifications.respond", try host.json(#"{"identifier": "during", "action": "snooze"}"#))
        let after = try #require(await next(delegate.responses))
        #expect(after.notification.request.identifier == "during")
        #expect(after.actionIdentifier == "snooze")
        // Each response once: "before" was taken from the inbox when handled, so it is not replayed.
        try await center.removeAllDeliveredNotifications()
        try host.deliver(Self.reminder, identifier: "last")
        _ = try host.frontEnd.call("notifications.respond", try host.json(#"{"identifier": "last", "action": "done"}"#))
        #expect(await next(delegate.responses)?.notification.request.identifier == "last")
    }

    @Test func backgroundWakeWithAnAlertReachesTheApp() async throws {
        let host = try HostFixture()
        let center = host.center()
        let delegate = RecordingDelegate()
        try await center.setDelegate(delegate)
        let answer = try host.deliver(#"{"aps": {"content-available": 1, "alert": {"title": "Sync"}}, "job": 7}"#,
                                      identifier: "wake")
        #expect(answer["display"]?.stringValue == "presented")
        let woken = try #require(await next(delegate.background))
        #expect(woken.request.identifier == "wake")
        #expect(woken.request.content.userInfo["job"] == 7)
    }
}
