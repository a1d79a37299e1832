import Testing
import TidingsBase
import TidingsDesktop

/// Whatever a presentation holds — members missing, of the wrong type,
/// huge, or full of control characters — the mapping maps something and
/// never crashes.
@Suite struct MappingHostileTests {
    @Test(arguments: [JSON.null, .bool(true), .integer(-1), .string("presentation"), .array([.null]), .object([])])
    func aPresentationThatIsNoObjectShowsTheAppsName(_ presentation: JSON) {
        let mapped = DesktopPresentation(presentation: presentation, app: events, capabilities: Servers.full)
        #expect(mapped.notification.summary == "Events")
        #expect(mapped.notification.body == "")
        #expect(mapped.notification.actions.map(\.key) == ["default"])
        #expect(mapped.notification.hints["urgency"] == .byte(1))
    }

    @Test func everyMemberOfTheWrongType() {
        let wrong: JSON = .object([
            ("presentation", .object([
                ("extension", .integer(4)), ("header", .array([])), ("defaultContentHidden", .string("yes")),
                ("previewsHidden", .integer(1)), ("quiet", .string("true")),
                ("defaultContent", .object([("title", .integer(1)), ("subtitle", .null), ("body", .bool(true))])),
                ("view", .array([label("x")])), ("actions", .object([("identifier", .string("a"))])),
                ("textInput", .string("t")), ("attributes", .array([])), ("category", .string("c")),
                ("presentationOptions", .string("sound")), ("expanded", .string("true")), ("dismissed", .null),
                ("mediaButton", .integer(1)),
            ])),
            ("notification", .object([("attachments", .object([("url", .string("file:///x.png"))]))])),
        ])
        let mapped = DesktopPresentation(presentation: wrong, app: events, capabilities: Servers.full)
        #expect(mapped.notification.summary == "Events")
        #expect(mapped.notification.hints["image-path"] == nil)
    }

    @Test func wrongElementsOfAViewAreSkipped() throws {
        let view: JSON = .object([("type", .string("stack")), ("children", .array([
            .null, .integer(3), .object([("type", .integer(1))]), .object([("type", .string("label")), ("text", .integer(2))]),
            .object([("type", .string("image")), ("attachment", .object([("url", .string("http://x/y.png"))]))]),
            .object([("type", .string("image")), ("attachment", .object([("url", .string("file://relative.png"))]))]),
            .object([("type", .string("stack")), ("children", .string("none"))]),
            label("Still here"),
        ]))])
        let open = try captured(CapturedPresentation.eventInviteExpanded).setting("view", to: view)
        let mapped = DesktopPresentation(presentation: open, app: events, capabilities: Servers.full)
        #expect(mapped.notification.body == "Still here")
        #expect(mapped.notification.hints["image-path"] == nil)
        #expect(mapped.degradations == ["the view's image is not a file this server can show"])
    }

    @Test func hugeTextIsCappedWithAnEllipsis() throws {
        let huge = String(repeating: "ab", count: 500_000)
        let content: JSON = .object([("title", .string(huge)), ("subtitle", .string("")), ("body", .string(huge))])
        let mapped = DesktopPresentation(
            presentation: try captured(CapturedPresentation.plain).setting("defaultContent", to: content),
            app: events, capabilities: Servers.minimal)
        #expect(mapped.notification.summary.count == 1_000)
        #expect(mapped.notification.summary.hasSuffix("…"))
        #expect(mapped.notification.body.count == 10_000)
        #expect(mapped.notification.body.hasSuffix("…"))
    }

    @Test func aHugeViewIsCappedInTextAndMarkupStaysWhole() throws {
        let many = (0..<2_000).map { label(String(repeating: "<&>", count: 50) + "\($0)", style: "headline") }
        let open = try captured(CapturedPresentation.eventInviteExpanded).setting("view", to: stack(many))
        let mapped = DesktopPresentation(presentation: open, app: events, capabilities: Servers.dunst)
        let lines = mapped.notification.body.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("<b>") && $0.hasSuffix("</b>") })
        let text = mapped.notification.body.replacing("<b>", with: "").replacing("</b>", with: "")
            .replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&amp;", with: "&")
        #expect(text.count <= 10_000)
        #expect(mapped.degradations.contains("the view has more elements than a notification shows: the rest are left out"))
    }

    @Test func aDeepViewIsCut() throws {
        // Deeper than the elements read (JSON.parse refuses more than 256
        // levels by default: deeper would not reach the mapping from a line).
        var view = label("bottom")
        for _ in 0..<1_000 { view = stack([view]) }
        let open = try captured(CapturedPresentation.eventInviteExpanded).setting("view", to: view)
        let mapped = DesktopPresentation(presentation: open, app: events, capabilities: Servers.full)
        #expect(mapped.notification.summary == "Events")
        #expect(mapped.degradations == ["the view has more elements than a notification shows: the rest are left out"])
    }

    @Test func controlCharactersAreStrippedAndTheSummaryIsOneLine() throws {
        let content: JSON = .object([("title", .string("Bell\u{07}\u{1B}[31m red\nline\u{202E}txt\r")),
                                     ("subtitle", .string("")), ("body", .string("one\u{0}\r\ntwo\tthree\u{85}"))])
        let mapped = DesktopPresentation(
            presentation: try captured(CapturedPresentation.plain).setting("defaultContent", to: content),
            app: AppDisplay(identifier: "com.example\u{0}.x", name: "Na\u{1B}me"), capabilities: Servers.minimal)
        #expect(mapped.notification.summary == "Bell[31m red linetxt")
        #expect(mapped.notification.body == "one\ntwo three")
        #expect(mapped.notification.appName == "Name")
        // An identifier with a control character names nothing: no hint rather than another app's.
        #expect(mapped.notification.hints["desktop-entry"] == nil)
    }

    @Test func tooManyActionsAndTakenKeysAreLeftOutAndSaid() throws {
        var actions: [JSON] = [
            .object([("identifier", .string("default")), ("title", .string("Mine"))]),
            .object([("identifier", .string("")), ("title", .string("Empty"))]),
            .object([("identifier", .string("tidings.open")), ("title", .string("Sneaky"))]),
            .object([("identifier", .string("ok")), ("title", .string(""))]),
            .object([("identifier", .string("ok")), ("title", .string("Again"))]),
            .string("not an action"),
            .object([("identifier", .string("bell\u{07}")), ("title", .string("Bell"))]),
            .object([("identifier", .string(String(repeating: "k", count: 5_000))), ("title", .string("Long"))]),
        ]
        actions += (0..<20).map { .object([("identifier", .string("a\($0)")), ("title", .string("A\($0)"))]) }
        let mapped = DesktopPresentation(
            presentation: try captured(CapturedPresentation.buildStatus).setting("actions", to: .array(actions)),
            app: events, capabilities: Servers.full)
        #expect(mapped.notification.actions.map(\.key) == ["default", "ok", "a0", "a1", "tidings.open"])
        #expect(mapped.notification.actions[1].label == "ok")
        #expect(mapped.actions["default"] == .respond("default"))
        #expect(mapped.actions["tidings.open"] == .openInterface)
        #expect(mapped.degradations == [
            "an action whose identifier is empty, malformed or another key is left out",
            "an action whose identifier is empty, malformed or another key is left out",
            "an action whose identifier is empty, malformed or another key is left out",
            "an action whose identifier is empty, malformed or another key is left out",
            "an action whose identifier is empty, malformed or another key is left out",
            "an action whose identifier is empty, malformed or another key is left out",
            "an action whose identifier is empty, malformed or another key is left out",
            "a notification offers at most 10 actions: the rest are left out",
        ])
    }

    @Test func aSecondTextInputActionIsLeftOutWhereOneIsInline() throws {
        let input: JSON = .object([("buttonTitle", .string("Send")), ("placeholder", .string("Say"))])
        let actions: JSON = .array([
            .object([("identifier", .string("reply")), ("title", .string("Reply")), ("textInput", input)]),
            .object([("identifier", .string("note")), ("title", .string("Note")), ("textInput", input)]),
        ])
        let mapped = DesktopPresentation(
            presentation: try captured(CapturedPresentation.plain).setting("actions", to: actions),
            app: events, capabilities: Servers.full)
        #expect(mapped.actions == ["default": .respond("default"), "inline-reply": .reply("reply")])
        #expect(mapped.degradations == [
            "this server takes one inline reply per notification: further text-input actions are left out",
        ])
    }
}
