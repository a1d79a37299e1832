import RuntimeTestSupport
import Testing
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// Delivered notifications are an app's: two apps may each have `dose-1`
/// shown, and replacing, removing, answering or presenting one leaves the
/// other as it was; a flood of one app's notifications expires its own.
@Suite struct NotificationKeyTests {
    let fixture = Fixture()
    static let medicine = "com.example.medicine"
    static let other = "com.example.other"

    /// The key of `app`'s `identifier`.
    func key(_ identifier: String, of app: String) -> NotificationKey {
        NotificationKey(app: app, identifier: identifier)
    }

    @Test func twoAppsKeepTheirOwnNotificationOfOneIdentifier() throws {
        let host = fixture.host()
        _ = host.deliver(notification("dose-1", category: "dose", title: "Medicine"), to: Self.medicine)
        _ = host.deliver(notification("dose-1", category: "dose", title: "Other"), to: Self.other)
        #expect(host.delivered().map(\.app) == [Self.medicine, Self.other], "both shown, neither replaced")
        #expect(fixture.events.dismissals.isEmpty)
        #expect(host.presentation(of: key("dose-1", of: Self.medicine))?.notification.content.title == "Medicine")
        #expect(host.presentation(of: key("dose-1", of: Self.other))?.notification.content.title == "Other")
        #expect(host.apps(showing: "dose-1") == [Self.medicine, Self.other])

        // The identifier alone names neither.
        #expect(throws: Diagnostic.self) { try host.key(of: "dose-1") }
        do {
            _ = try host.key(of: "dose-1")
        } catch {
            #expect(error.code == .responseAmbiguousNotification)
            #expect(error.message.contains(Self.medicine) && error.message.contains(Self.other))
        }

        // Delivered again: only that app's is replaced.
        _ = host.deliver(notification("dose-1", category: "dose", title: "Medicine again"), to: Self.medicine)
        #expect(fixture.events.dismissals.map(\.0) == ["dose-1"])
        #expect(host.presentation(of: key("dose-1", of: Self.other))?.notification.content.title == "Other")

        // Answered: only that app's leaves, and only that app receives it.
        let outcome = try host.respond(to: key("dose-1", of: Self.other), with: ResponseRequest(actionIdentifier: ActionIdentifier.default))
        #expect(outcome.presentation.dismissed && outcome.presentation.app == Self.other)
        #expect(outcome.forwarded.map(\.app) == [Self.other])
        #expect(host.delivered().map(\.app) == [Self.medicine])
        #expect(host.presentation(of: key("dose-1", of: Self.medicine))?.notification.content.title == "Medicine again")
        #expect(try host.key(of: "dose-1") == key("dose-1", of: Self.medicine), "now one app has it")
    }

    @Test func removingOneAppsNotificationLeavesTheOthers() {
        let host = fixture.host()
        _ = host.deliver(notification("dose-1", category: "dose"), to: Self.medicine)
        _ = host.deliver(notification("dose-1", category: "dose"), to: Self.other)
        #expect(host.remove([key("dose-1", of: Self.other)]) == [key("dose-1", of: Self.other)])
        #expect(host.delivered().map(\.app) == [Self.medicine])
        #expect(host.presentation(of: key("dose-1", of: Self.medicine)) != nil)
        #expect(host.remove([key("dose-1", of: Self.other)]).isEmpty, "gone already")
    }

    @Test func oneAppsFloodExpiresItsOwnNotificationsOnly() {
        var configuration = NotificationHost.Configuration()
        configuration.deliveredLimit = 10
        configuration.deliveredLimitPerApp = 4
        let host = fixture.host(configuration: configuration)
        _ = host.deliver(notification("dose-1", category: "dose"), to: Self.medicine)
        _ = host.deliver(notification("dose-2", category: "dose"), to: Self.medicine)
        for number in 0..<50 {
            _ = host.deliver(notification("spam-\(number)", category: "spam"), to: Self.other)
        }
        #expect(host.delivered(ofApp: Self.medicine).map(\.notification.identifier) == ["dose-1", "dose-2"])
        #expect(host.delivered(ofApp: Self.other).map(\.notification.identifier) == (46..<50).map { "spam-\($0)" })
        #expect(fixture.events.dismissals.allSatisfy { $0.0.hasPrefix("spam-") && $0.1 == .expired })

        // Many apps flooding past the total: the app showing the most gives up its oldest.
        for app in 0..<5 {
            for number in 0..<3 { _ = host.deliver(notification("n\(number)", category: "spam"), to: "com.example.flood\(app)") }
        }
        #expect(host.delivered().count == 10)
        #expect(host.delivered(ofApp: Self.medicine).map(\.notification.identifier) == ["dose-1", "dose-2"])
    }
}
