import Foundation
import ServerTestSupport
import TestSupport
import TidingsApp
import TidingsBase
import Testing

/// Requests, delivered notifications, categories and badges through the app
/// library, against a real `tidings serve`.
@Suite(.serialized, .onOwnThreads) struct AppRequestTests {
    func reminder(_ identifier: String, trigger: (any TidingsApp.NotificationTrigger)?) -> NotificationRequest {
        var content = NotificationContent()
        content.title = "Reminder"
        content.body = "Water the plants"
        content.categoryIdentifier = "reminder"
        content.userInfo = ["list": "home", "priority": 2]
        return NotificationRequest(identifier: identifier, content: content, trigger: trigger)
    }

    @Test func categoriesAreSetAndReadBack() async throws {
        let host = try HostFixture()
        let center = host.center()
        let category = NotificationCategory(identifier: "reminder", actions: [
            NotificationAction(identifier: "done", title: "Done"),
            TidingsApp.NotificationAction(identifier: "reply", title: "Reply", options: [.foreground],
                               textInput: .init(buttonTitle: "Send", placeholder: "Say something")),
        ], options: [.customDismissAction])
        try await center.setNotificationCategories([category])
        #expect(try await center.notificationCategories() == [category])
    }

    @Test func aRequestWithoutTriggerIsDeliveredAndRemoved() async throws {
        let host = try HostFixture()
        let center = host.center()
        try await center.add(reminder("now", trigger: nil))
        let delivered = try await center.deliveredNotifications()
        #expect(delivered.map(\.request.identifier) == ["now"])
        #expect(delivered.first?.request.content.body == "Water the plants")
        #expect(delivered.first?.request.content.userInfo["priority"] == 2)
        try await center.removeDeliveredNotifications(withIdentifiers: ["now"])
        #expect(try await center.deliveredNotifications().isEmpty)
        try await center.add(reminder("again", trigger: nil))
        try await center.removeAllDeliveredNotifications()
        #expect(try await center.deliveredNotifications().isEmpty)
    }

    /// Two apps delivering one identifier each keep their own: removing
    /// it through one app's center leaves the other app's delivered.
    @Test func removingADeliveredNotificationRemovesOnlyTheAppsOwn() async throws {
        let host = try HostFixture()
        let center = host.center()
        let other = host.center("org.example.other")
        try await center.add(reminder("dose-1", trigger: nil))
        try await other.add(reminder("dose-1", trigger: nil))
        try await center.removeDeliveredNotifications(withIdentifiers: ["dose-1"])
        #expect(try await center.deliveredNotifications().isEmpty)
        #expect(try await other.deliveredNotifications().map(\.request.identifier) == ["dose-1"])
    }

    @Test func attachmentsAreMovedIntoTheStoreAsIOSMovesThem() async throws {
        let host = try HostFixture()
        let center = host.center()
        let photo = host.directory.file("photo.png")
        try FileManager.default.copyItem(atPath: Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png"),
                                         toPath: photo)
        var request = reminder("with-photo", trigger: nil)
        request.content.attachments = [NotificationAttachment(identifier: "photo", url: photo)]
        try await center.add(request)
        #expect(!FileManager.default.fileExists(atPath: photo))
        let delivered = try #require(try await center.deliveredNotifications().first)
        let stored = try #require(delivered.request.content.attachments.first)
        #expect(stored.identifier == "photo" && stored.url != photo && !stored.url.isEmpty)

        var missing = reminder("missing", trigger: nil)
        missing.content.attachments = [NotificationAttachment(identifier: "gone", url: host.directory.file("gone.png"))]
        do {
            try await center.add(missing)
            Issue.record("an attachment without a file was accepted")
        } catch let error as UserNotificationError {
            #expect((100...105).contains(error.code.rawValue), "\(error)")
        }
    }

    @Test func thumbnailOptionsReachTheHostAndComeBack() async throws {
        let host = try HostFixture()
        let center = host.center()
        var request = reminder("with-options", trigger: nil)
        for name in ["hidden.png", "clipped.png"] {
            try FileManager.default.copyItem(atPath: Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png"),
                                             toPath: host.directory.file(name))
        }
        let clip = NotificationAttachment.ClippingRect(x: 0.25, y: 0, width: 0.5, height: 1)
        request.content.attachments = [
            NotificationAttachment(identifier: "hidden", url: host.directory.file("hidden.png"), thumbnailHidden: true),
            NotificationAttachment(identifier: "clipped", url: host.directory.file("clipped.png"), type: "public.png",
                                   thumbnailClippingRect: clip),
        ]
        try await center.add(request)
        let delivered = try #require(try await center.deliveredNotifications().first)
        let attachments = delivered.request.content.attachments
        #expect(attachments.map(\.identifier) == ["hidden", "clipped"])
        #expect(attachments.map(\.thumbnailHidden) == [true, false])
        #expect(attachments.map(\.thumbnailClippingRect) == [nil, clip])
        #expect(attachments.last?.type == "public.png")

        // A clipping rectangle outside the image is the host's error, as a value.
        var outside = reminder("outside", trigger: nil)
        try FileManager.default.copyItem(atPath: Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png"),
                                         toPath: host.directory.file("outside.png"))
        outside.content.attachments = [NotificationAttachment(
            identifier: "outside", url: host.directory.file("outside.png"),
            thumbnailClippingRect: .init(x: 0.5, y: 0, width: 2, height: 1))]
        await #expect(throws: UserNotificationError.self) { try await center.add(outside) }
    }

    @Test func triggersArePendingUntilRemoved() async throws {
        let host = try HostFixture()
        let center = host.center()
        try await center.add(reminder("interval", trigger: TimeIntervalNotificationTrigger(timeInterval: 3600, repeats: false)))
        try await center.add(reminder("calendar", trigger: CalendarNotificationTrigger(
            dateMatching: TriggerDateComponents(hour: 8, minute: 30, timeZone: "Europe/Berlin"), repeats: true)))
        try await center.add(reminder("office", trigger: LocationNotificationTrigger(region: CircularRegion(
            identifier: "office", latitude: 48.85, longitude: 2.35, radius: 100, notifyOnExit: false), repeats: false)))
        let pending = try await center.pendingNotificationRequests()
        #expect(Set(pending.map(\.identifier)) == ["interval", "calendar", "office"])
        let calendar = try #require(pending.first { $0.identifier == "calendar" }?.trigger as? CalendarNotificationTrigger)
        #expect(calendar.dateComponents == TriggerDateComponents(hour: 8, minute: 30, timeZone: "Europe/Berlin"))
        #expect(calendar.repeats)
        let region = try #require(pending.first { $0.identifier == "office" }?.trigger as? LocationNotificationTrigger)
        #expect(region.region.notifyOnEntry && !region.region.notifyOnExit)
        #expect(pending.first { $0.identifier == "interval" }?.nextTriggerDate != nil)
        #expect(try await center.deliveredNotifications().isEmpty)

        try await center.removePendingNotificationRequests(withIdentifiers: ["interval"])
        #expect(Set(try await center.pendingNotificationRequests().map(\.identifier)) == ["calendar", "office"])
        try await center.removeAllPendingNotificationRequests()
        #expect(try await center.pendingNotificationRequests().isEmpty)
    }

    @Test func errorsCarryTheHostsCode() async throws {
        let host = try HostFixture()
        let center = host.center()
        await #expect(throws: UserNotificationError.self) {
            try await center.add(reminder("bad", trigger: TimeIntervalNotificationTrigger(timeInterval: 10, repeats: true)))
        }
        do {
            try await center.add(NotificationRequest(identifier: "empty", content: NotificationContent(), trigger: nil))
            Issue.record("a request with empty content was delivered")
        } catch let error as UserNotificationError {
            #expect(error.code == .notificationInvalidNoContent, "\(error)")
        }
        let unreachable = UserNotificationCenter(app: "org.example.app", socketPath: host.directory.file("nothing.sock"), executor: OwnThreads.shared)
        do {
            try await unreachable.removeAllDeliveredNotifications()
            Issue.record("a call without a host succeeded")
        } catch let error as UserNotificationError {
            #expect(error.code == .hostUnavailable)
        }
    }

    @Test func setBadgeCount() async throws {
        let host = try HostFixture()
        let center = host.center()
        try await center.setBadgeCount(5)
        let apps = try host.frontEnd.call("apps.list", try host.json(#"{"app": "org.example.app"}"#))
        #expect(apps["apps"]?.arrayValue?.first?["badge"]?.integerValue == 5)
        do {
            try await center.setBadgeCount(-1)
            Issue.record("a negative badge was accepted")
        } catch let error as UserNotificationError {
            #expect(error.code == .badgeInputInvalid)
        }
        try await center.setBadgeCount(0)
        let cleared = try host.frontEnd.call("apps.list", try host.json(#"{"app": "org.example.app"}"#))
        #expect(cleared["apps"]?.arrayValue?.first?["badge"]?.integerValue ?? 0 == 0)
    }
}
