import Testing
import TidingsBase
import TidingsDesktop

/// The authorization prompt: "‹name› would like to send you notifications", Allow / Don't Allow.
@Suite struct MappingAuthorizationTests {
    @Test func thePromptOnDunst() throws {
        let mapped = DesktopPresentation(authorizationRequest: try captured(CapturedPresentation.authorizationRequested),
                                         app: AppDisplay(identifier: "com.example.events"), capabilities: Servers.dunst)
        #expect(mapped.notification == DesktopNotification(
            appName: "com.example.events", summary: "Events would like to send you notifications",
            body: "Notifications may include alerts, sounds and badges.",
            actions: [.init(key: "allow", label: "Allow"), .init(key: "deny", label: "Don't Allow")],
            hints: ["urgency": .byte(1), "desktop-entry": .string("com.example.events")], expireTimeout: 0))
        #expect(mapped.actions == ["allow": .authorize(true), "deny": .authorize(false)])
        #expect(mapped.degradations == [
            "this server keeps no notifications: if the prompt goes away, decide with `tidings apps allow` or `tidings apps deny`",
        ])
    }

    @Test func thePromptIsResidentWherePersistent() throws {
        let mapped = DesktopPresentation(authorizationRequest: try captured(CapturedPresentation.authorizationRequested),
                                         app: events, capabilities: Servers.full)
        #expect(mapped.notification.hints["resident"] == .bool(true))
        #expect(mapped.notification.appIcon == "/usr/share/icons/events.png".fileURI)
        #expect(mapped.degradations.isEmpty)
    }

    @Test func withoutActionsThePromptSaysHowToDecide() throws {
        let mapped = DesktopPresentation(authorizationRequest: try captured(CapturedPresentation.authorizationRequested),
                                         app: events, capabilities: Servers.minimal)
        #expect(mapped.notification.actions.isEmpty)
        #expect(mapped.actions.isEmpty)
        #expect(mapped.degradations.first
            == "this server shows no actions: decide with `tidings apps allow` or `tidings apps deny`")
    }

    @Test func theBodyNamesWhatIsAsked() {
        func body(_ options: [String]) -> String {
            DesktopPresentation(authorizationRequest: .object([("app", .string("a")),
                                                                ("options", .array(options.map(JSON.string)))]),
                                app: AppDisplay(identifier: "a"), capabilities: Servers.full).notification.body
        }
        #expect(body(["badge"]) == "Notifications may include badges.")
        #expect(body(["sound", "alert"]) == "Notifications may include alerts and sounds.")
        #expect(body(["criticalAlert", "alert", "provisional"]) == "Notifications may include alerts and critical alerts.")
        #expect(body(["carPlay"]) == "")
    }

    @Test func withoutANameTheAppsDisplayNameIsUsed() {
        let mapped = DesktopPresentation(authorizationRequest: .object([("app", .integer(3)), ("name", .array([]))]),
                                         app: events, capabilities: Servers.dunst)
        #expect(mapped.notification.summary == "Events would like to send you notifications")
        #expect(mapped.notification.body == "")
    }
}
