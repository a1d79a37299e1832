import ServerTestSupport
import TestSupport
import TidingsApp
import TidingsBase
import Testing

/// The members under Apple's names, as the host receives and gives them:
/// sounds, summary arguments, action icons, the push trigger, the display
/// name and the delegate.
@Suite(.serialized, .onOwnThreads) struct AppMemberTests {
    /// Content in thread "meds" saying `body`, with `sound`.
    func content(_ body: String, sound: NotificationSound? = nil) -> NotificationContent {
        var content = NotificationContent()
        content.title = "Pillbox"
        content.body = body
        content.threadIdentifier = "meds"
        content.sound = sound
        return content
    }

    /// The presentation of notification `identifier`, as a front end asks it.
    func presentation(_ host: HostFixture, _ identifier: String) throws -> JSON {
        try host.frontEnd.call("notifications.presentation", try host.json(
            #"{"app": "org.example.app", "identifier": "\#(identifier)"}"#))
    }

    @Test func aCriticalSoundReachesThePresentationAsCritical() async throws {
        let host = try HostFixture()
        let center = host.center()
        try await center.add(NotificationRequest(identifier: "dose", content: content(
            "Insulin now", sound: .defaultCriticalSound(withAudioVolume: 0.5)), trigger: nil))
        let sound = try #require(try presentation(host, "dose")["attributes"]?["sound"])
        #expect(sound["name"]?.stringValue == "default")
        #expect(sound["critical"]?.boolValue == true)
        #expect(sound["volume"]?.doubleValue == 0.5)
        // And reads back as it was added.
        let delivered = try await center.deliveredNotifications()
        #expect(delivered.first?.request.content.sound == .defaultCriticalSound(withAudioVolume: 0.5))
    }

    @Test func aNamedSoundIsNotCriticalAndReadsBack() async throws {
        let host = try HostFixture()
        let center = host.center()
        try await center.add(NotificationRequest(identifier: "chime", content: content(
            "Vitamins", sound: NotificationSound(named: "/usr/share/sounds/pillbox/chime.oga")), trigger: nil))
        let sound = try #require(try presentation(host, "chime")["attributes"]?["sound"])
        #expect(sound["name"]?.stringValue == "/usr/share/sounds/pillbox/chime.oga")
        #expect(sound["critical"]?.boolValue == false)
        let delivered = try await center.deliveredNotifications()
        #expect(delivered.first?.request.content.sound == NotificationSound(named: "/usr/share/sounds/pillbox/chime.oga"))
    }

    @Test func summaryArgumentsReachTheGroupSummary() async throws {
        let host = try HostFixture()
        let center = host.center()
        try await center.setNotificationCategories([NotificationCategory(
            identifier: "dose", actions: [], categorySummaryFormat: "%u doses for %@")])
        for (identifier, person, count) in [("anna-1", "Anna", 2), ("ben-1", "Ben", 1)] {
            var dose = content("Take your pills")
            dose.categoryIdentifier = "dose"
            dose.summaryArgument = person
            dose.summaryArgumentCount = count
            try await center.add(NotificationRequest(identifier: identifier, content: dose, trigger: nil))
        }
        let group = try #require(try presentation(host, "ben-1")["group"])
        #expect(group["summary"]?.stringValue == "3 doses for Anna and Ben")
        let delivered = try await center.deliveredNotifications()
        #expect(delivered.map(\.request.content.summaryArgument) == ["Anna", "Ben"])
        #expect(delivered.map(\.request.content.summaryArgumentCount) == [2, 1])
    }

    @Test func actionIconsAreRegisteredAndReadBack() async throws {
        let host = try HostFixture()
        let center = host.center()
        let category = NotificationCategory(identifier: "dose", actions: [
            NotificationAction(identifier: "taken", title: "Taken", icon: NotificationActionIcon(systemImageName: "checkmark")),
            NotificationAction(identifier: "skip", title: "Skip", icon: NotificationActionIcon(templateImageName: "skip-pill")),
        ])
        try await center.setNotificationCategories([category])
        #expect(try await center.notificationCategories() == [category])
        let listed = try host.frontEnd.call("categories.list", try host.json(#"{"app": "org.example.app"}"#))
        let actions = listed["apps"]?.arrayValue?.first?["categories"]?.arrayValue?.first?["actions"]?.arrayValue ?? []
        #expect(actions.map { $0["icon"]?["systemImageName"]?.stringValue } == ["checkmark", nil])
        #expect(actions.map { $0["icon"]?["templateImageName"]?.stringValue } == [nil, "skip-pill"])
    }

    @Test func aRemoteNotificationsTriggerIsThePush() async throws {
        let host = try HostFixture()
        let center = host.center()
        try host.deliver(#"{"aps": {"alert": {"title": "From the server"}}}"#, identifier: "remote")
        try await center.add(NotificationRequest(identifier: "local", content: content("Here"), trigger: nil))
        let delivered = try await center.deliveredNotifications()
        let remote = try #require(delivered.first { $0.request.identifier == "remote" })
        let trigger = try #require(remote.request.trigger as? PushNotificationTrigger)
        #expect(trigger.repeats == false)
        #expect(trigger.protocolJSON == ["push": true])
        #expect(delivered.first { $0.request.identifier == "local" }?.request.trigger == nil)
    }

    @Test func theDisplayNameAndIconAreRegisteredKeepingPreviews() async throws {
        let host = try HostFixture()
        _ = try host.frontEnd.call("apps.register", try host.json(#"{"app": "org.example.app", "showPreviews": "never"}"#))
        let center = host.center()
        try await center.setDisplayName("Pillbox", icon: "/usr/share/icons/pillbox.png")
        let listed = try host.frontEnd.call("apps.list", try host.json(#"{"app": "org.example.app"}"#))
        let app = try #require(listed["apps"]?.arrayValue?.first)
        #expect(app["name"]?.stringValue == "Pillbox")
        #expect(app["icon"]?.stringValue == "/usr/share/icons/pillbox.png")
        #expect(app["showPreviews"]?.stringValue == "never")
    }

    @Test func anAppWithItsOwnSettingsIsListedAsSuchForFrontEnds() async throws {
        let host = try HostFixture()
        let center = host.center()
        #expect(try await center.requestAuthorization(options: [.provisional, .providesAppNotificationSettings]))
        let listed = try host.frontEnd.call("apps.list", try host.json(#"{"app": "org.example.app"}"#))
        #expect(listed["apps"]?.arrayValue?.first?["providesAppNotificationSettings"]?.boolValue == true)
        let other = try host.frontEnd.call("apps.list", try host.json(#"{"app": "org.example.other"}"#))
        #expect(other["apps"]?.arrayValue?.isEmpty == true)
        _ = try await host.center("org.example.other").requestAuthorization(options: [.provisional])
        let plain = try host.frontEnd.call("apps.list", try host.json(#"{"app": "org.example.other"}"#))
        #expect(plain["apps"]?.arrayValue?.first?["providesAppNotificationSettings"]?.boolValue == false)
    }

    @Test func theDelegateIsReadAsAProperty() async throws {
        let host = try HostFixture()
        let center = host.center()
        #expect(center.supportsContentExtensions)
        #expect(await center.delegate == nil)
        let delegate = RecordingDelegate()
        try await center.setDelegate(delegate)
        #expect(await center.delegate === delegate)
        try await center.setDelegate(nil)
        #expect(await center.delegate == nil)
    }
}
