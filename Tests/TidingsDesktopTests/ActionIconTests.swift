import Testing
import TestSupport
import TidingsBase
import TidingsDesktop

/// Action icons (`UNNotificationActionIcon`): on a server with
/// `action-icons`, the actions keyed by their icons' names with the
/// `action-icons` hint, each key mapped back to its action; elsewhere text.
@Suite struct ActionIconTests {
    /// A server with every capability the mapping uses, and `action-icons`.
    static let withIcons = ServerCapabilities(Array(Servers.full.names) + ["action-icons"])

    @Test func aServerWithActionIconsGetsTheIconsNamesAsKeys() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.eventInviteDelivered),
                                         app: AppDisplay(identifier: "com.example.events", providesSettings: true),
                                         capabilities: Self.withIcons)
        #expect(mapped.notification.hints["action-icons"] == .bool(true))
        // checkmark and xmark are the theme's object-select and window-close;
        // the text-input action stays the inline reply.
        #expect(mapped.notification.actions.map(\.key)
                == ["default", "object-select", "window-close", "inline-reply", "view-fullscreen", "preferences-system"])
        #expect(mapped.notification.actions.map(\.label) == ["Open", "Accept", "Decline", "Comment", "Show More", "Settings"])
        #expect(mapped.actions["object-select"] == .respond("accept"))
        #expect(mapped.actions["window-close"] == .respond("decline"))
        #expect(mapped.actions["inline-reply"] == .reply("comment"))
        #expect(mapped.actions["view-fullscreen"] == .openInterface)
        #expect(mapped.actions["preferences-system"] == .respond("tidings.settings"))
        #expect(mapped.degradations.isEmpty)
    }

    @Test func aTemplateImageGoesByItsNameAndAnActionWithoutAnIconKeepsItsIdentifier() throws {
        let presentation = try captured(CapturedPresentation.plain).setting("actions", to: .array([
            .object([("identifier", .string("taken")), ("title", .string("Taken")),
                     ("icon", .object([("templateImageName", .string("pillbox-taken"))]))]),
            .object([("identifier", .string("skip")), ("title", .string("Skip"))]),
            // The same icon twice: the second keeps its identifier.
            .object([("identifier", .string("again")), ("title", .string("Again")),
                     ("icon", .object([("templateImageName", .string("pillbox-taken"))]))]),
        ]))
        let mapped = DesktopPresentation(presentation: presentation, app: AppDisplay(identifier: "com.example.plain"),
                                         capabilities: Self.withIcons)
        #expect(mapped.notification.actions.map(\.key) == ["default", "pillbox-taken", "skip", "again"])
        #expect(mapped.actions["pillbox-taken"] == .respond("taken"))
        #expect(mapped.actions["again"] == .respond("again"))
    }

    @Test func aServerWithoutActionIconsGetsText() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.eventInviteDelivered),
                                         app: AppDisplay(identifier: "com.example.events"), capabilities: Servers.full)
        #expect(mapped.notification.hints["action-icons"] == nil)
        #expect(mapped.notification.actions.map(\.key) == ["default", "accept", "decline", "inline-reply", "tidings.open"])
    }

    @Test func noIconNoHint() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.buildStatus),
                                         app: AppDisplay(identifier: "com.example.ci"), capabilities: Self.withIcons)
        #expect(mapped.notification.hints["action-icons"] == nil)
        #expect(mapped.notification.actions.map(\.key) == ["default", "open-log", "tidings.open"])
    }
}

/// The icons through a notification server double on a private bus that
/// advertises `action-icons` (neither dunst 1.9 nor mako 1.7 does): the
/// hint and keys it is sent, and the key it reports mapped back to the action.
@Suite(.enabled(if: canStartBus, "needs libsystemd.so.0 and dbus-daemon"))
struct ActionIconServerTests {
    @Test func theInvokedIconIsTheActionItStandsFor() throws {
        let bus = try PrivateBus()
        // The user picks the second button: Accept, shown as its checkmark.
        let services = try FakeServices(on: bus, capabilities: ["actions", "body", "action-icons"], choice: 1)
        let client = try bus.connect()
        defer { try? services.stop(through: client) }
        let notifications = NotificationsClient()
        let capabilities = ServerCapabilities(try notifications.capabilities(on: client))
        #expect(capabilities.actionIcons)

        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.eventInviteDelivered),
                                         app: AppDisplay(identifier: "com.example.events"), capabilities: capabilities)
        var signals: [NotificationSignal] = []
        try notifications.subscribe(on: client) { signal, _ in signals.append(signal) }
        let id = try notifications.notify(mapped.notification, on: client)
        let sent = try #require(services.recorded { $0.notifications }.first)
        #expect(sent.hints["action-icons"] == .bool(true))
        #expect(sent.actions.map(\.key).contains("object-select"))

        #expect(try client.run(until: { signals.contains { if case .actionInvoked = $0 { true } else { false } } },
                               seconds: patience))
        guard case .actionInvoked(id, let key)? = signals.first(where: { if case .actionInvoked = $0 { true } else { false } })
        else {
            Issue.record("no action was invoked: \(signals)")
            return
        }
        #expect(key == "object-select")
        #expect(mapped.actions[key] == .respond("accept"))
    }
}
