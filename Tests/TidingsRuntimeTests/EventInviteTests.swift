import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// The Swift sample, loaded from its built library, end to end.
@Suite struct EventInviteTests {
    let fixture = Fixture()

    static let categories = [
        NotificationCategory(identifier: "event-invite", actions: [
            NotificationAction(identifier: "accept", title: "Accept"),
            NotificationAction(identifier: "decline", title: "Decline", options: .destructive),
            NotificationAction(identifier: "comment", title: "Comment",
                               textInput: .init(buttonTitle: "Send", placeholder: "Add a comment")),
        ], options: .customDismissAction),
    ]

    /// A host speaking ABI `version` (its own by default) serving the sample.
    func host(version: UInt32 = HostFunctions.abiVersion) throws -> NotificationHost {
        try fixture.installEventInvite()
        var configuration = NotificationHost.Configuration()
        configuration.responseDeadline = 2
        configuration.abiVersion = version
        let host = fixture.host(configuration: configuration)
        host.register(Self.categories, for: "com.example.events")
        return host
    }

    func invite(_ identifier: String = "invite", thread: String = "") -> UserNotification {
        notification(identifier, category: "event-invite", thread: thread, title: "Fallback title", body: "Fallback body",
                     userInfo: [("title", .string("Team offsite")), ("date", .string("Thursday")),
                                ("location", .string("Pier 3")), ("message", .string("Dinner after"))])
    }

    @Test func deliveryHidesDefaultContentAndSizesByRatio() throws {
        let delivery = try host().deliverOpened(invite(), to: "com.example.events", width: 400)
        let presentation = delivery.presentation
        #expect(delivery.diagnostics.isEmpty)
        #expect(presentation.extensionIdentifier == "com.example.events.invite")
        #expect(presentation.defaultContentHidden)
        #expect(presentation.defaultContent == nil)
        #expect(presentation.initialContentHeight == 300)  // 400 × 0.75
        #expect(presentation.contentHeight == 160)  // the extension's preferred height without an image
        #expect(presentation.actions.map(\.identifier) == ["accept", "decline", "comment"])
    }

    @Test func viewIsFilledFromUserInfo() throws {
        let view = try #require(try host().deliverOpened(invite(), to: "com.example.events").presentation.view)
        #expect(view.text(of: "eventTitle") == "Team offsite")
        #expect(view.text(of: "eventDate") == "Thursday")
        #expect(view.text(of: "eventLocation") == "Pier 3")
        #expect(view.text(of: "eventMessage") == "Dinner after")
        #expect(view.node("eventResponse")?.hidden == true)
    }

    @Test func firstAttachmentIsShownAsTheImage() throws {
        let image = NotificationAttachment(identifier: "poster", type: "public.png",
                                           path: Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png"))
        var withImage = invite()
        withImage.content.attachments = [image]
        let presentation = try host().deliverOpened(withImage, to: "com.example.events").presentation
        let node = try #require(presentation.view?.node("eventImage"))
        #expect(node.content == .image(attachment: "poster"))
        #expect(!node.hidden)
        #expect(presentation.contentHeight == 320)
    }

    @Test func acceptShowsGoingInGreenAndDismisses() throws {
        let host = try host()
        _ = host.deliverOpened(invite(), to: "com.example.events")
        let outcome = try host.respond(to: "invite", with: ResponseRequest(actionIdentifier: "accept"))
        #expect(outcome.receiver == .extension)
        #expect(outcome.option == .dismiss)
        #expect(outcome.presentation.dismissed)
        #expect(outcome.forwarded.isEmpty)
        #expect(outcome.presentation.view?.text(of: "eventResponse") == "Going!")
        #expect(outcome.presentation.view?.color(of: "eventResponse") == "#34C759")
        #expect(host.presentation(of: "invite") == nil)
    }

    @Test func declineShowsNotGoingInRed() throws {
        let host = try host()
        _ = host.deliverOpened(invite(), to: "com.example.events")
        let outcome = try host.respond(to: "invite", with: ResponseRequest(actionIdentifier: "decline"))
        #expect(outcome.presentation.view?.text(of: "eventResponse") == "Not Going.")
        #expect(outcome.presentation.view?.color(of: "eventResponse") == "#FF3B30")
    }

    @Test func commentTextReachesTheExtensionAndIsForwarded() throws {
        let host = try host()
        _ = host.deliverOpened(invite(), to: "com.example.events")
        let outcome = try host.respond(to: "invite", with: ResponseRequest(actionIdentifier: "comment", userText: "Count me in"))
        #expect(outcome.option == .dismissAndForwardAction)
        #expect(outcome.presentation.view?.text(of: "eventResponse") == "Comment sent: Count me in")
        #expect(outcome.forwarded == [ForwardedResponse(app: "com.example.events", notification: invite(),
                                                       actionIdentifier: "comment", userText: "Count me in")])
        #expect(outcome.log.map(\.message) == ["forwarding a comment of 11 characters to the app"])
    }

    /// The sample reads the actions shown and sets them without Comment.
    @Test func closedCommentsTakeTheCommentActionAway() throws {
        var closed = invite()
        closed.content.userInfo.append(("comments", .string("closed")))
        let delivery = try host().deliverOpened(closed, to: "com.example.events")
        #expect(delivery.diagnostics.isEmpty, "\(delivery.diagnostics)")
        #expect(delivery.presentation.actions.map(\.identifier) == ["accept", "decline"])
    }

    /// What a response's action name is resolved against: the actions the
    /// presentation offers, the extension's own while its interface is open.
    @Test func theActionsOfferedAreThoseThePresentationShows() throws {
        let host = try host()
        let key = NotificationKey(app: "com.example.events", identifier: "invite")
        _ = host.deliver(invite(), to: "com.example.events")
        #expect(host.offeredActions(of: key) == ["accept", "decline", "comment"])
        var closed = invite()
        closed.content.userInfo.append(("comments", .string("closed")))
        _ = host.deliverOpened(closed, to: "com.example.events")
        #expect(host.offeredActions(of: key) == ["accept", "decline"])
        #expect(host.offeredActions(of: key) == host.presentation(of: key)?.actions.map(\.identifier))
        #expect(host.offeredActions(of: NotificationKey(app: "com.example.events", identifier: "other")) == nil)
    }

    /// A host of version 2 has no getter for the actions: the sample keeps
    /// them, and completes its responses without naming its instance.
    @Test func onAVersion2HostTheSampleKeepsTheActionsAndCompletes() throws {
        let host = try host(version: 2)
        var closed = invite()
        closed.content.userInfo.append(("comments", .string("closed")))
        let delivery = host.deliverOpened(closed, to: "com.example.events")
        #expect(delivery.diagnostics.isEmpty, "\(delivery.diagnostics)")
        #expect(delivery.presentation.actions.map(\.identifier) == ["accept", "decline", "comment"])
        let outcome = try host.respond(to: "invite", with: ResponseRequest(actionIdentifier: "accept"))
        #expect(outcome.option == .dismiss)
        #expect(outcome.diagnostics.isEmpty)
    }

    /// The sample cuts what it shows to the limit the host's limits interface gives.
    @Test func aLongCommentIsShownCutToTheHostsLimit() throws {
        let host = try host()
        _ = host.deliverOpened(invite(), to: "com.example.events")
        let text = String(repeating: "é", count: 10_000)
        let outcome = try host.respond(to: "invite", with: ResponseRequest(actionIdentifier: "comment", userText: text))
        let shown = try #require(outcome.presentation.view?.text(of: "eventResponse"))
        #expect(shown.hasPrefix("Comment sent: éé"))
        #expect(shown.utf8.count <= HostLimits.textBytes && shown.utf8.count > HostLimits.textBytes - 2)
    }

    @Test func defaultActionIsForwardedToTheApp() throws {
        let host = try host()
        _ = host.deliverOpened(invite(), to: "com.example.events")
        let outcome = try host.respond(to: "invite", with: ResponseRequest(actionIdentifier: ActionIdentifier.default))
        #expect(outcome.receiver == .app && outcome.option == nil)
        #expect(outcome.forwarded.map(\.actionIdentifier) == [ActionIdentifier.default])
    }

    /// With customDismissAction the dismissal goes to the app, never to the
    /// extension (which would answer it with dismiss, swallowing it).
    @Test func dismissReachesTheAppWithCustomDismissAction() throws {
        let host = try host()
        _ = host.deliverOpened(invite(), to: "com.example.events")
        let outcome = try host.respond(to: "invite", with: ResponseRequest(actionIdentifier: ActionIdentifier.dismiss))
        #expect(outcome.receiver == .app && outcome.option == nil)
        #expect(outcome.forwarded.map(\.actionIdentifier) == [ActionIdentifier.dismiss])
        #expect(outcome.presentation.dismissed)
    }

    @Test func textInputActionNeedsText() throws {
        let host = try host()
        _ = host.deliverOpened(invite(), to: "com.example.events")
        #expect(throws: Diagnostic.self) { try host.respond(to: "invite", with: ResponseRequest(actionIdentifier: "comment")) }
        #expect(throws: Diagnostic.self) {
            try host.respond(to: "invite", with: ResponseRequest(actionIdentifier: "accept", userText: "no"))
        }
        // Refused responses leave the notification shown.
        #expect(host.presentation(of: "invite") != nil)
    }

    @Test func unknownActionIsRefusedWithASuggestion() throws {
        let host = try host()
        _ = host.deliverOpened(invite(), to: "com.example.events")
        let error = #expect(throws: Diagnostic.self) {
            try host.respond(to: "invite", with: ResponseRequest(actionIdentifier: "acept"))
        }
        #expect(error?.code == .responseUnknownAction)
        #expect(error?.message.contains("did you mean \"accept\"") == true)
    }

    @Test func responseToUnknownNotificationIsRefused() throws {
        let error = #expect(throws: Diagnostic.self) {
            try host().respond(to: "nothing", with: ResponseRequest(actionIdentifier: "accept"))
        }
        #expect(error?.code == .responseUnknownNotification)
    }

    @Test func anotherAppNeverSeesTheExtension() throws {
        let delivery = try host().deliverOpened(invite(), to: "com.example.other")
        #expect(delivery.presentation.extensionIdentifier == nil)
        #expect(!delivery.presentation.defaultContentHidden)
        #expect(delivery.diagnostics.codes == ["route.no-extension"])
        #expect(delivery.diagnostics[0].message.contains("served for com.example.events"))
    }

    @Test func misspeltCategoryIsExplained() throws {
        var misspelt = invite()
        misspelt.content.categoryIdentifier = "event-invites"
        let delivery = try host().deliverOpened(misspelt, to: "com.example.events")
        #expect(delivery.presentation.extensionIdentifier == nil)
        #expect(delivery.diagnostics.first?.message.contains("did you mean \"event-invite\"") == true)
    }
}
