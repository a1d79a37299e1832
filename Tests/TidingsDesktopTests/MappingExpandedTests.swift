import Testing
import TidingsBase
import TidingsDesktop

/// Expanded interfaces: the content extension's view flattened to what the
/// server shows.
@Suite struct MappingExpandedTests {
    private let image = "file:///tmp/mapcap/state/tidings/attachments/ef733e7427ef9203956e959792175844.png"

    @Test func eventInviteOpenOnDunst() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.eventInviteExpanded),
                                         app: events, capabilities: Servers.dunst)
        var expected = DesktopNotification(
            appName: "Events", summary: "Team offsite",
            body: "Thursday 4 December, 09:00–17:00\nLighthouse, Pier 3\nA day of planning, then dinner on the pier.",
            actions: [.init(key: "default", label: "Open"), .init(key: "accept", label: "Accept"),
                      .init(key: "decline", label: "Decline"), .init(key: "comment", label: "Comment…")],
            hints: ["urgency": .byte(1), "desktop-entry": .string("com.example.events"),
                    "category": .string("event-invite"), "suppress-sound": .bool(true), "image-path": .string(image)])
        expected.appIcon = "/usr/share/icons/events.png".fileURI
        #expect(mapped.notification == expected)
        #expect(mapped.actions == ["default": .respond("default"), "accept": .respond("accept"),
                                   "decline": .respond("decline"), "comment": .typeIn("comment")])
        #expect(mapped.degradations == [
            "the view's buttons and text fields are not shown: use them through another client of `tidings serve` (notifications.interact)",
            "this server takes no inline reply: a text-input action opens the interface's window (tidings show), with the action's field to type in",
        ])
    }

    @Test func eventInviteOpenOnAMinimalServer() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.eventInviteExpanded),
                                         app: events, capabilities: Servers.minimal)
        #expect(mapped.notification.summary == "Team offsite")
        #expect(mapped.notification.body.hasPrefix("Thursday 4 December"))
        #expect(mapped.notification.hints["image-path"] == .string(image))
        #expect(mapped.degradations == [
            "the view's buttons and text fields are not shown: use them through another client of `tidings serve` (notifications.interact)",
            "this server shows no actions: respond through another client of `tidings serve` (notifications.respond)",
        ])
    }

    @Test func theDefaultContentFollowsTheViewUnlessHidden() throws {
        let open = try captured(CapturedPresentation.eventInviteExpanded)
            .setting("defaultContentHidden", to: .bool(false))
            .setting("defaultContent", to: .object([("title", .string("Invitation")), ("subtitle", .string("From Ann")),
                                                    ("body", .string("Come along"))]))
        let mapped = DesktopPresentation(presentation: open, app: events, capabilities: Servers.dunst)
        #expect(mapped.notification.summary == "Invitation")
        #expect(mapped.notification.body == """
            <b>Team offsite</b>
            Thursday 4 December, 09:00–17:00
            Lighthouse, Pier 3
            A day of planning, then dinner on the pier.
            <b>From Ann</b>
            Come along
            """)
    }

    @Test func titlesAndCaptionsAreMarkupOrPlainLinesWithASentence() throws {
        let view = stack([label("Ready & waiting", style: "title"), label("<details>", style: "body"),
                          label("small print", style: "caption")])
        let open = try captured(CapturedPresentation.eventInviteExpanded).setting("view", to: view)
            .setting("defaultContent", to: .object([("title", .string("Build")), ("subtitle", .string("")),
                                                    ("body", .string(""))]))
            .setting("defaultContentHidden", to: .bool(false))
        let marked = DesktopPresentation(presentation: open, app: events, capabilities: Servers.dunst)
        #expect(marked.notification.body == "<b>Ready &amp; waiting</b>\n&lt;details&gt;\n<i>small print</i>")
        #expect(!marked.degradations.contains("this server shows no body markup: the view's titles are plain text"))

        let plain = DesktopPresentation(presentation: open, app: events, capabilities: Servers.minimal)
        #expect(plain.notification.body == "Ready & waiting\n<details>\nsmall print")
        #expect(plain.degradations.contains("this server shows no body markup: the view's titles are plain text"))
    }

    @Test func laterImagesAreInlineWhereTheServerShowsBodyImages() throws {
        let view = stack([imageElement("/data/first.png"), label("Two photos"),
                          imageElement("/data/second one.jpg", type: "public.jpeg")])
        let open = try captured(CapturedPresentation.eventInviteExpanded).setting("view", to: view)
        let full = DesktopPresentation(presentation: open, app: events, capabilities: Servers.full)
        #expect(full.notification.hints["image-path"] == .string("file:///data/first.png"))
        #expect(full.notification.summary == "Events")
        #expect(full.notification.body == "Two photos\n<img src=\"file:///data/second%20one.jpg\" alt=\"\"/>")
        #expect(full.degradations.isEmpty)

        let dunst = DesktopPresentation(presentation: open, app: events, capabilities: Servers.dunst)
        #expect(dunst.notification.body == "Two photos")
        #expect(dunst.degradations.contains(
            "this server shows no images in the body: the view's other images are left out"))
    }

    @Test func anImageThatIsNoFileIsSaid() throws {
        let view = stack([imageElement("/data/song.mp3", type: "public.mp3"), label("Listen")])
        let open = try captured(CapturedPresentation.eventInviteExpanded).setting("view", to: view)
        let mapped = DesktopPresentation(presentation: open, app: events, capabilities: Servers.full)
        #expect(mapped.notification.hints["image-path"] == nil)
        #expect(mapped.degradations == ["the view's image is not a file this server can show"])

        let second = stack([imageElement("/data/song.mp3", type: "public.mp3"), imageElement("/data/cover.gif",
                                                                                               type: "com.compuserve.gif")])
        let shown = DesktopPresentation(presentation: open.setting("view", to: second), app: events,
                                        capabilities: Servers.full)
        #expect(shown.notification.hints["image-path"] == .string("file:///data/cover.gif"))
        #expect(shown.degradations == ["the view's image is not a file this server can show"])
    }

    @Test func hiddenElementsAndUnboundImagesAreLeftOut() throws {
        let view = stack([.object([("type", .string("image")), ("hidden", .bool(false)), ("attachment", .null)]),
                          label("Secret", style: "headline", hidden: true), label("Shown", style: "headline"),
                          stack([label("Inside hidden")], hidden: true)])
        let open = try captured(CapturedPresentation.eventInviteExpanded).setting("view", to: view)
        let mapped = DesktopPresentation(presentation: open, app: events, capabilities: Servers.full)
        #expect(mapped.notification.summary == "Shown")
        #expect(mapped.notification.body == "")
        #expect(mapped.notification.hints["image-path"] == nil)
        #expect(mapped.degradations.isEmpty)
    }

    @Test func theMediaButtonAndTheExtensionsTextInputAreSaid() throws {
        let open = try captured(CapturedPresentation.eventInviteExpanded)
            .setting("mediaButton", to: .object([("type", .string("default")), ("playing", .bool(false))]))
            .setting("textInput", to: .object([("buttonTitle", .string("Send")), ("placeholder", .string("Say"))]))
        let mapped = DesktopPresentation(presentation: open, app: events, capabilities: Servers.full)
        #expect(mapped.degradations.contains(
            "the view's media button is not shown: play or pause through another client of `tidings serve` (notifications.interact)"))
        #expect(mapped.degradations.contains(
            "the extension's text input is not shown: type through another client of `tidings serve` (notifications.input)"))
    }

    @Test func anExpandedInterfaceWithPreviewsHiddenShowsTheDefaultContent() throws {
        let open = try captured(CapturedPresentation.eventInviteExpanded)
            .setting("previewsHidden", to: .bool(true))
            .setting("defaultContent", to: .object([("title", .string("Team offsite")), ("subtitle", .string("")),
                                                    ("body", .string("1 invitations"))]))
        let mapped = DesktopPresentation(presentation: open, app: events, capabilities: Servers.dunst)
        #expect(mapped.notification.summary == "Team offsite")
        #expect(mapped.notification.body == "1 invitations")
        #expect(mapped.notification.hints["image-path"] == nil)
    }
}

/// A stack element of `children`.
func stack(_ children: [JSON], hidden: Bool = false) -> JSON {
    .object([("type", .string("stack")), ("hidden", .bool(hidden)), ("axis", .string("vertical")),
             ("spacing", .double(8)), ("children", .array(children))])
}

/// A label element.
func label(_ text: String, style: String = "body", hidden: Bool = false) -> JSON {
    .object([("type", .string("label")), ("hidden", .bool(hidden)), ("text", .string(text)), ("style", .string(style))])
}

/// An image element bound to an attachment at `path`.
func imageElement(_ path: String, type: String = "public.png") -> JSON {
    .object([("type", .string("image")), ("hidden", .bool(false)), ("attachment", .object([
        ("identifier", .string("image")), ("type", .string(type)), ("url", .string(path.fileURI)),
        ("size", .integer(10)), ("thumbnailHidden", .bool(false)),
    ]))])
}
