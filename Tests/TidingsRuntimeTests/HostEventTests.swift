import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// What front ends hear without asking, with a real C extension that
/// changes its view from a thread of its own after it answered: the new
/// presentation, dismissals with their reason, responses the app receives.
@Suite struct HostEventTests {
    let fixture = Fixture()

    init() throws {
        let library = try CCompiler.fixture("Later", into: fixture.directory.path, extraFlags: ["-pthread"])
        let interface = try fixture.directory.write("""
            {"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "status"}]}}
            """, to: "MainInterface.json")
        try BundleMaker.make("Later", in: fixture.directory.path, manifest: BundleMaker.contentManifest(
            identifier: "com.example.news.later", executable: "libLater.so", categories: ["story"],
            interface: "MainInterface"), library: library, resources: [interface])
    }

    func story(_ identifier: String = "story", then: String = "") -> UserNotification {
        notification(identifier, category: "story", userInfo: then.isEmpty ? [] : [("then", .string(then))])
    }

    @Test func aViewChangedAfterTheAnswerIsPushedAsANewPresentation() throws {
        let host = fixture.host()
        let delivery = host.deliverOpened(story(), to: "com.example.news")
        // The extension's thread changes the view whenever it runs: what the answer
        // did not show yet is pushed. It makes two host calls, which may be pushed
        // one by one: the last presentation pushed carries both once the height is there.
        let answered = delivery.presentation
        if answered.view?.text(of: "status") != "updated" || answered.contentHeight != 200 {
            #expect(answered.view?.text(of: "status") == "loading" || answered.view?.text(of: "status") == "updated")
            #expect(fixture.events.wait { $0.presentations.last?.contentHeight == 200 })
            let pushed = try #require(fixture.events.presentations.last)
            #expect(pushed.notification.identifier == "story")
            #expect(pushed.view?.text(of: "status") == "updated")
            #expect(pushed.contentHeight == 200)
            #expect(!pushed.dismissed)
        }
        #expect(host.presentation(of: "story")?.view?.text(of: "status") == "updated")
    }

    /// dismissNotificationContentExtension closes the expanded interface, not the notification.
    @Test func anExtensionClosingItsInterfaceLaterKeepsTheNotification() throws {
        let host = fixture.host()
        _ = host.deliverOpened(story(then: "dismiss"), to: "com.example.news")
        #expect(fixture.events.wait { $0.presentations.contains { !$0.expanded } })
        #expect(fixture.events.presentations.last?.expanded == false)
        #expect(fixture.events.presentations.last?.dismissed == false)
        #expect(fixture.events.dismissals.isEmpty)
        #expect(host.presentedIdentifiers == ["story"])
        #expect(host.presentation(of: "story")?.expanded == false)
        #expect(fixture.events.forwarded.isEmpty)
    }

    @Test func anExtensionOpeningTheAppLaterForwardsTheDefaultAction() throws {
        let host = fixture.host()
        _ = host.deliverOpened(story(then: "open"), to: "com.example.news")
        #expect(fixture.events.wait { !$0.forwarded.isEmpty && !$0.dismissals.isEmpty })
        let forwarded = try #require(fixture.events.forwarded.first)
        #expect(forwarded.app == "com.example.news")
        #expect(forwarded.actionIdentifier == ActionIdentifier.default)
        #expect(host.presentedIdentifiers.isEmpty)
    }

    @Test func aForwardedResponseAndItsDismissalAreTold() throws {
        let host = fixture.host()
        _ = host.deliverOpened(story(), to: "com.example.news")
        let outcome = try host.respond(to: "story", with: ResponseRequest(actionIdentifier: ActionIdentifier.default))
        #expect(outcome.forwarded.count == 1)
        #expect(fixture.events.forwarded.map(\.actionIdentifier) == [ActionIdentifier.default])
        #expect(fixture.events.dismissals.map(\.1) == [.response])
    }

    @Test func removingNotificationsDismissesThemWithoutAResponse() throws {
        let host = fixture.host()
        _ = host.deliverOpened(story("a"), to: "com.example.news")
        _ = host.deliverOpened(story("b"), to: "com.example.news")
        #expect(host.delivered(ofApp: "com.example.news").map(\.notification.identifier) == ["a", "b"])
        #expect(host.remove(["a", "missing"]) == ["a"])
        #expect(host.presentedIdentifiers == ["b"])
        #expect(fixture.events.dismissals.map(\.0) == ["a"])
        #expect(fixture.events.dismissals.map(\.1) == [.removed])
        #expect(fixture.events.forwarded.isEmpty)
        #expect(host.delivered(ofApp: "com.example.other").isEmpty)
    }

    @Test func registeredCategoriesAreListedByApp() {
        let host = fixture.host()
        host.register([NotificationCategory(identifier: "story"), NotificationCategory(identifier: "alert")],
                      for: "com.example.news")
        host.register([NotificationCategory(identifier: "invite")], for: "com.example.events")
        let registered = host.registeredCategories()
        #expect(registered["com.example.news"]?.map(\.identifier) == ["alert", "story"])
        #expect(registered["com.example.events"]?.map(\.identifier) == ["invite"])
    }
}
