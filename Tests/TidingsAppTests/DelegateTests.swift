import Foundation
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

    @Test func aFrontEndsSettingsActionCallsOpenSettingsForAndLeavesTheNotification() async throws {
        let host = try HostFixture()
        _ = try host.frontEnd.call("categories.register", try host.json(Self.categories))
        let center = host.center()
        let delegate = SettingsDelegate()
        try await center.setDelegate(delegate)
        try host.deliver(Self.reminder, identifier: "r1")
        _ = try host.frontEnd.call("events.subscribe", try host.json(#"{"apps": ["org.example.app"]}"#))
        let answer = try host.frontEnd.call("notifications.respond", try host.json(
            #"{"identifier": "r1", "action": "\#(NotificationResponse.openSettingsActionIdentifier)"}"#))
        #expect(answer["receiver"]?.stringValue == "app")
        #expect(answer["dismissed"]?.boolValue == false)
        let asked = try #require(await next(delegate.settings))
        #expect(asked?.request.identifier == "r1")
        // Taken once openSettingsFor returned; didReceive never saw it; the notification still shows.
        #expect(try host.frontEnd.event("inbox.taken") != nil)
        #expect(delegate.received.isEmpty)
        #expect(try await center.deliveredNotifications().map(\.request.identifier) == ["r1"])
    }

    /// The ids of the app's inbox entries, as its own connection lists them.
    static func inboxIdentifiers(_ center: UserNotificationCenter) async throws -> [Int64] {
        let page = try await center.call("inbox.list", ["app": "org.example.app"])
        return (page["entries"]?.arrayValue ?? []).compactMap { $0["id"]?.integerValue }
    }

    @Test func aResponseWhoseHandlerIsNotCalledIsHandedAgainWithItsId() async throws {
        let host = try HostFixture()
        _ = try host.frontEnd.call("categories.register", try host.json(Self.categories))
        let first = host.center()
        let holding = HoldingDelegate()
        try await first.setDelegate(holding)
        try host.deliver(Self.reminder, identifier: "r1")
        _ = try host.frontEnd.call("notifications.respond", try host.json(#"{"identifier": "r1", "action": "done"}"#))
        let held = try #require(await next(holding.responses))
        #expect(held.response.actionIdentifier == "done")
        // The app "ends" mid-handler: its center goes, the handler never called.
        await first.disconnect()
        #expect(try await Self.inboxIdentifiers(host.center()) == [held.response.inboxIdentifier])

        // The next start of the app is handed the same response, under the same id.
        let second = host.center()
        let again = HoldingDelegate()
        try await second.setDelegate(again)
        let handedAgain = try #require(await next(again.responses))
        #expect(handedAgain.response.inboxIdentifier == held.response.inboxIdentifier)
        #expect(handedAgain.response.notification.request.identifier == "r1")
        #expect(handedAgain.response.actionIdentifier == "done")

        // Called: taken out of the inbox (the front end hears it), so no later start is handed it.
        _ = try host.frontEnd.call("events.subscribe", try host.json(#"{"apps": ["org.example.app"]}"#))
        handedAgain.completionHandler()
        let taken = try #require(try host.frontEnd.event("inbox.taken"))
        #expect(taken["ids"]?.arrayValue?.compactMap(\.integerValue) == [handedAgain.response.inboxIdentifier])
        #expect(try await Self.inboxIdentifiers(host.center()).isEmpty)
    }

    @Test func aHandlerDroppedUncalledLeavesTheResponseAndLetsTheNextThrough() async throws {
        let host = try HostFixture()
        _ = try host.frontEnd.call("categories.register", try host.json(Self.categories))
        let center = host.center()
        let dropping = DroppingDelegate()
        try await center.setDelegate(dropping)
        try host.deliver(Self.reminder, identifier: "a")
        try host.deliver(Self.reminder, identifier: "b")
        _ = try host.frontEnd.call("notifications.respond", try host.json(#"{"identifier": "a", "action": "done"}"#))
        _ = try host.frontEnd.call("notifications.respond", try host.json(#"{"identifier": "b", "action": "done"}"#))
        let a = try #require(await next(dropping.responses))
        let b = try #require(await next(dropping.responses))
        #expect(a.notification.request.identifier == "a")
        #expect(b.notification.request.identifier == "b")
        #expect(try await Self.inboxIdentifiers(host.center()) == [a.inboxIdentifier, b.inboxIdentifier])
    }
}

/// A delegate that drops each completion handler uncalled.
final class DroppingDelegate: UserNotificationCenterDelegate {
    let responses: AsyncStream<NotificationResponse>
    private let continuation: AsyncStream<NotificationResponse>.Continuation

    init() {
        (responses, continuation) = AsyncStream.makeStream(of: NotificationResponse.self)
    }

    func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse,
                                withCompletionHandler completionHandler: @escaping @Sendable () -> Void) {
        continuation.yield(response)
    }
}

/// A delegate that records the notifications the settings are asked for, and any response.
final class SettingsDelegate: UserNotificationCenterDelegate, @unchecked Sendable {
    let settings: AsyncStream<UserNotification?>
    private let asked: AsyncStream<UserNotification?>.Continuation
    private let lock = NSLock()
    private var responses: [NotificationResponse] = []

    init() {
        (settings, asked) = AsyncStream.makeStream(of: UserNotification?.self)
    }

    /// The responses `didReceive` was handed.
    var received: [NotificationResponse] { lock.withLock { responses } }

    func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse) async {
        lock.withLock { responses.append(response) }
    }

    func userNotificationCenter(_ center: UserNotificationCenter, openSettingsFor notification: UserNotification?) async {
        asked.yield(notification)
    }
}
