import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// The C sample, built from its source against tidings.h alone, end to end.
@Suite struct BuildStatusTests {
    let fixture = Fixture()

    func host() throws -> NotificationHost {
        try fixture.installBuildStatusFromSource()
        let host = fixture.host()
        host.register([NotificationCategory(identifier: "build-status",
                                            actions: [NotificationAction(identifier: "open-log", title: "Open log")])],
                      for: "com.example.ci")
        return host
    }

    func build(_ status: String) -> UserNotification {
        notification("build", category: "build-status", title: "tidings", body: "Build finished",
                     userInfo: [("project", .string("tidings")), ("branch", .string("main")),
                                ("status", .string(status)), ("duration", .string("4 min"))])
    }

    @Test func passedBuildShowsGreenStatusAndTheCategoryActions() throws {
        let presentation = try host().deliverOpened(build("passed"), to: "com.example.ci", width: 300).presentation
        #expect(presentation.extensionIdentifier == "com.example.ci.build-status")
        #expect(presentation.header == "CI · tidings")  // the manifest allows overriding the title
        #expect(presentation.defaultContent?.body == "Build finished")  // not hidden
        #expect(presentation.initialContentHeight == 300)  // <integer>1</integer> ratio
        #expect(presentation.contentHeight == 96)
        #expect(presentation.view?.text(of: "status") == "Build passed")
        #expect(presentation.view?.color(of: "status") == "#34C759")
        #expect(presentation.actions.map(\.identifier) == ["open-log"])
    }

    @Test func failedBuildReplacesTheActions() throws {
        let presentation = try host().deliverOpened(build("failed"), to: "com.example.ci").presentation
        #expect(presentation.view?.color(of: "status") == "#FF3B30")
        #expect(presentation.actions.map(\.identifier) == ["retry", "open-log", "mute"])
        #expect(presentation.actions[0].options == .foreground)
    }

    @Test func responsesUseTheActionsTheExtensionSet() throws {
        let host = try host()
        _ = host.deliverOpened(build("failed"), to: "com.example.ci")
        let muted = try host.respond(to: "build", with: ResponseRequest(actionIdentifier: "mute"))
        #expect(muted.option == .doNotDismiss)
        #expect(!muted.presentation.dismissed)
        #expect(muted.presentation.view?.text(of: "details") == "Muted: no more notifications for this branch today.")
        let retried = try host.respond(to: "build", with: ResponseRequest(actionIdentifier: "retry"))
        #expect(retried.option == .dismissAndForwardAction)
        #expect(retried.forwarded.map(\.actionIdentifier) == ["retry"])
        #expect(retried.log.map(\.message) == ["forwarding the action to the app"])
    }

    @Test func dismissWithoutCustomDismissActionReachesNobody() throws {
        let host = try host()
        _ = host.deliverOpened(build("passed"), to: "com.example.ci")
        let outcome = try host.respond(to: "build", with: ResponseRequest(actionIdentifier: ActionIdentifier.dismiss))
        #expect(outcome.receiver == .nobody)
        #expect(outcome.forwarded.isEmpty)
        #expect(outcome.presentation.dismissed)
        #expect(outcome.diagnostics.codes == ["response.dismiss-not-delivered"])
    }
}
