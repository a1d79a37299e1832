import Testing
import TidingsBase
import TidingsDesktop

/// Banners of real presentations mapped for dunst, a minimal server and a
/// full one: Notify's arguments, the action table and the degradations.
@Suite struct MappingTests {
    @Test func anEventInviteBannerOnDunst() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.eventInviteDelivered),
                                         app: events, capabilities: Servers.dunst)
        var expected = DesktopNotification(
            appName: "Events", summary: "Team offsite", body: "You are invited to the team offsite.",
            actions: [.init(key: "default", label: "Open"), .init(key: "accept", label: "Accept"),
                      .init(key: "decline", label: "Decline"), .init(key: "comment", label: "Comment…"),
                      .init(key: "tidings.open", label: "Show More")],
            hints: ["urgency": .byte(1), "desktop-entry": .string("com.example.events"),
                    "category": .string("event-invite"), "suppress-sound": .bool(true),
                    "image-path": .string("file:///tmp/mapcap/state/tidings/attachments/05fbbe9061f85ff94585dbcabc370ae0.png")])
        expected.appIcon = "/usr/share/icons/events.png".fileURI
        #expect(mapped.notification == expected)
        #expect(mapped.actions == ["default": .respond("default"), "accept": .respond("accept"),
                                   "decline": .respond("decline"), "comment": .typeIn("comment"),
                                   "tidings.open": .openInterface])
        #expect(mapped.degradations == [
            "this server takes no inline reply: a text-input action opens the interface's window (tidings show), with the action's field to type in",
        ])
    }

    @Test func anEventInviteBannerOnAFullServerRepliesInline() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.eventInviteDelivered),
                                         app: events, capabilities: Servers.full)
        #expect(mapped.notification.actions.map(\.key) == ["default", "accept", "decline", "inline-reply", "tidings.open"])
        #expect(mapped.notification.actions[3].label == "Comment")
        #expect(mapped.actions["inline-reply"] == .reply("comment"))
        #expect(mapped.notification.hints["x-kde-reply-placeholder-text"] == .string("Add a comment"))
        #expect(mapped.notification.hints["x-kde-reply-submit-button-text"] == .string("Send"))
        #expect(mapped.degradations.isEmpty)
    }

    @Test func anEventInviteBannerOnAMinimalServerHasNoActions() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.eventInviteDelivered),
                                         app: events, capabilities: Servers.minimal)
        #expect(mapped.notification.summary == "Team offsite")
        #expect(mapped.notification.body == "You are invited to the team offsite.")
        #expect(mapped.notification.actions.isEmpty)
        #expect(mapped.actions.isEmpty)
        #expect(mapped.degradations == ["this server shows no actions: respond through another client of `tidings serve` (notifications.respond)"])
    }

    @Test func thePresentationAloneHasNoAttachmentToShow() throws {
        let delivered = try captured(CapturedPresentation.eventInviteDelivered)
        let presentation = try #require(delivered["presentation"])
        let mapped = DesktopPresentation(presentation: presentation, app: events, capabilities: Servers.dunst)
        #expect(mapped.notification.hints["image-path"] == nil)
        #expect(mapped.notification.summary == "Team offsite")
    }

    @Test func aBuildStatusBannerOffersItsActionAndTheInterface() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.buildStatus),
                                         app: AppDisplay(identifier: "com.example.ci"), capabilities: Servers.dunst)
        #expect(mapped.notification == DesktopNotification(
            appName: "com.example.ci", summary: "tidings", body: "Build #418 failed on main.",
            actions: [.init(key: "default", label: "Open"), .init(key: "open-log", label: "Open log"),
                      .init(key: "tidings.open", label: "Show More")],
            hints: ["urgency": .byte(1), "desktop-entry": .string("com.example.ci"),
                    "category": .string("build-status"), "suppress-sound": .bool(true)]))
        #expect(mapped.actions == ["default": .respond("default"), "open-log": .respond("open-log"),
                                   "tidings.open": .openInterface])
        #expect(mapped.degradations.isEmpty)
    }

    @Test func aPlainNotificationOnDunstEscapesItsBodyAndPlaysTheMessageSound() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.plain),
                                         app: AppDisplay(identifier: "com.example.plain", name: "Plain"),
                                         capabilities: Servers.dunst)
        #expect(mapped.notification == DesktopNotification(
            appName: "Plain", summary: "Lunch", body: "<b>Today</b>\nPizza at 12 &amp; &lt;cake&gt;",
            actions: [.init(key: "default", label: "Open")],
            hints: ["urgency": .byte(1), "desktop-entry": .string("com.example.plain"),
                    "sound-name": .string("message-new-instant")]))
        #expect(mapped.actions == ["default": .respond("default")])
        #expect(mapped.degradations == ["this server plays no sounds: the notification's sound is not played"])
    }

    @Test func aPlainNotificationOnAMinimalServerIsPlainText() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.plain),
                                         app: AppDisplay(identifier: "com.example.plain"), capabilities: Servers.minimal)
        #expect(mapped.notification.summary == "Lunch")
        #expect(mapped.notification.body == "Today\nPizza at 12 & <cake>")
        #expect(mapped.degradations == ["this server plays no sounds: the notification's sound is not played",
                                        "this server shows no actions: respond through another client of `tidings serve` (notifications.respond)"])
    }

    @Test func aServerWithoutBodyGetsTitleAndSubtitleInTheSummary() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.plain),
                                         app: AppDisplay(identifier: "com.example.plain"),
                                         capabilities: ServerCapabilities(["actions"]))
        #expect(mapped.notification.summary == "Lunch — Today")
        #expect(mapped.notification.body == "")
        #expect(mapped.degradations.contains("this server shows no body: only the summary is shown"))
    }

    @Test func aPlainNotificationOnAFullServerLosesNothing() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.plain),
                                         app: AppDisplay(identifier: "com.example.plain"), capabilities: Servers.full)
        #expect(mapped.degradations.isEmpty)
        #expect(mapped.notification.hints["sound-name"] == .string("message-new-instant"))
    }

    @Test func hiddenPreviewsShowThePlaceholderAndNoImage() throws {
        // The server already put the placeholder in the default content; the
        // notification's attachment (given beside it) must not show either.
        let delivered = try captured(CapturedPresentation.eventInviteDelivered)
        let hidden: JSON = .object([("notification", try #require(delivered["notification"])),
                                    ("presentation", try captured(CapturedPresentation.hiddenPreviews))])
        let mapped = DesktopPresentation(presentation: hidden, app: events, capabilities: Servers.dunst)
        #expect(mapped.notification.summary == "Team offsite")
        #expect(mapped.notification.body == "1 invitations")
        #expect(mapped.notification.hints["image-path"] == nil)
        #expect(!mapped.notification.body.contains("invited"))
        // Nothing to open: with previews hidden the interface shows no view. The actions stay
        // (as on iOS); the text-input one opens the window for its field.
        #expect(mapped.notification.actions.map(\.key) == ["default", "accept", "decline", "comment"])
    }

    @Test func aQuietNotificationHasLowUrgencyNoSoundAndStays() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.quiet),
                                         app: AppDisplay(identifier: "com.example.quiet"), capabilities: Servers.full)
        #expect(mapped.notification == DesktopNotification(
            appName: "com.example.quiet", summary: "Tip", body: "Try the new view",
            actions: [.init(key: "default", label: "Open")],
            hints: ["urgency": .byte(0), "transient": .bool(false), "suppress-sound": .bool(true),
                    "desktop-entry": .string("com.example.quiet")]))
        #expect(mapped.degradations == [
            "this desktop has no list without a banner: the notification is shown with low urgency and no sound",
        ])
    }

    @Test func urgencyFollowsTheInterruptionLevel() throws {
        let plain = try captured(CapturedPresentation.plain)
        for (level, urgency) in [("passive", 0), ("active", 1), ("time-sensitive", 1), ("critical", 2), ("loud", 1)] {
            let attributes = plain["attributes"]!.setting("interruptionLevel", to: .string(level))
            let mapped = DesktopPresentation(presentation: plain.setting("attributes", to: attributes),
                                             app: events, capabilities: Servers.dunst)
            #expect(mapped.notification.hints["urgency"] == .byte(UInt8(urgency)), "\(level)")
        }
    }

    @Test func theAppsPresentationOptionsDecideSoundAndHistory() throws {
        let plain = try captured(CapturedPresentation.plain)
        let bannerOnly = DesktopPresentation(
            presentation: plain.setting("presentationOptions", to: .array([.string("banner")])),
            app: events, capabilities: Servers.full)
        #expect(bannerOnly.notification.hints["transient"] == .bool(true))
        #expect(bannerOnly.notification.hints["suppress-sound"] == .bool(true))
        #expect(bannerOnly.notification.hints["sound-name"] == nil)

        let listOnly = DesktopPresentation(
            presentation: plain.setting("presentationOptions", to: .array([.string("list"), .string("sound")])),
            app: events, capabilities: Servers.full)
        #expect(listOnly.notification.hints["urgency"] == .byte(0))
        #expect(listOnly.notification.hints["transient"] == .bool(false))
        #expect(listOnly.notification.hints["suppress-sound"] == .bool(true))
    }

    @Test func anAppsOwnSoundPlaysAsTheMessageSoundAndSaysSo() throws {
        let plain = try captured(CapturedPresentation.plain)
        let sound: JSON = .object([("name", .string("chime.caf")), ("critical", .bool(false)), ("volume", .null)])
        let mapped = DesktopPresentation(
            presentation: plain.setting("attributes", to: plain["attributes"]!.setting("sound", to: sound)),
            app: events, capabilities: Servers.full)
        #expect(mapped.notification.hints["sound-name"] == .string("message-new-instant"))
        #expect(mapped.degradations == [
            "the notification's own sound is not on this desktop: the desktop's message sound plays instead",
        ])
    }

    @Test func aDismissedPresentationIsStillMapped() throws {
        let mapped = DesktopPresentation(
            presentation: try captured(CapturedPresentation.buildStatus).setting("dismissed", to: .bool(true)),
            app: events, capabilities: Servers.dunst)
        #expect(mapped.notification.summary == "tidings")
    }

    @Test func anAppShowsItsNameAndIcon() {
        #expect(AppDisplay(identifier: "com.example.a").name == "com.example.a")
        #expect(AppDisplay(identifier: "com.example.a", name: "").name == "com.example.a")
        #expect(AppDisplay(identifier: "com.example.a", icon: "mail-unread").icon == "mail-unread")
        #expect(AppDisplay(identifier: "com.example.a", icon: "/opt/my app/icon 100%.png").icon
            == "file:///opt/my%20app/icon%20100%25.png")
        #expect(AppDisplay(identifier: "com.example.a", icon: "file:///x.png").icon == "file:///x.png")
    }

    @Test func capabilitiesAreReadByName() {
        let capabilities = ServerCapabilities(["actions", "body", "body-markup", "inline-reply", "x-unknown"])
        #expect(capabilities.actions && capabilities.body && capabilities.bodyMarkup && capabilities.inlineReply)
        #expect(!capabilities.bodyImages && !capabilities.persistence && !capabilities.sound)
        #expect(capabilities.names.contains("x-unknown"))
    }
}

/// The app EventInvite's notifications come from, as apps.list would show it.
let events = AppDisplay(identifier: "com.example.events", name: "Events", icon: "/usr/share/icons/events.png")

/// Capabilities of notification servers.
enum Servers {
    /// What dunst 1.9.0 answers GetCapabilities with `markup = full` (its
    /// shipped dunstrc; asked on a private bus under Xvfb). Without markup it
    /// leaves out `body-markup`.
    static let dunst = ServerCapabilities(["actions", "body", "body-hyperlinks", "icon-static", "synchronous",
                                           "private-synchronous", "x-canonical-private-synchronous",
                                           "x-dunst-stack-tag", "body-markup"])
    /// A server that shows a summary and a body and nothing else.
    static let minimal = ServerCapabilities(["body"])
    /// A server with every capability the mapping uses (KDE Plasma's kind).
    static let full = ServerCapabilities(["actions", "body", "body-markup", "body-hyperlinks", "body-images",
                                          "icon-static", "persistence", "sound", "inline-reply"])
}

/// A fixture parsed.
func captured(_ text: String) throws -> JSON {
    try JSON.parse(Array(text.utf8))
}

extension JSON {
    /// This object with the member `key` set to `value` (replaced where it is, else added last).
    func setting(_ key: String, to value: JSON) -> JSON {
        var members = objectMembers ?? []
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = value
        } else {
            members.append((key, value))
        }
        return .object(members)
    }
}

extension String {
    /// This absolute path as a `file://` URI.
    var fileURI: String { FileURL.url(of: self) }
}

// Presentations as `tidings deliver --json` printed them (captured on 2026-11-27 from
// this tree's build), so that the mapping is tested on what the server sends.
enum CapturedPresentation {
    /// The params of `notification.delivered` for EventInvite's invite.json (its app named "Events"): a banner, with the notification and its attachment.
    static let eventInviteDelivered = #"{"app":"com.example.events","notification":{"identifier":"invite-offsite-2026","date":"2026-11-21T09:30:00Z","title":"Team offsite","subtitle":"","body":"You are invited to the team offsite.","categoryIdentifier":"event-invite","threadIdentifier":"offsite","interruptionLevel":"active","relevanceScore":0.0,"contentAvailable":false,"mutableContent":false,"userInfo":{"title":"Team offsite","date":"Thursday 4 December, 09:00–17:00","location":"Lighthouse, Pier 3","message":"A day of planning, then dinner on the pier."},"attachments":[{"identifier":"event-image","type":"public.png","url":"file:///tmp/mapcap/state/tidings/attachments/05fbbe9061f85ff94585dbcabc370ae0.png","size":192,"thumbnailHidden":false}]},"presentation":{"notification":"invite-offsite-2026","app":"com.example.events","extension":"com.example.events.invite","header":"Events","icon":null,"defaultContentHidden":false,"previewsHidden":false,"defaultContent":{"title":"Team offsite","subtitle":"","body":"You are invited to the team offsite."},"contentSize":{"width":360.0},"view":null,"actions":[{"identifier":"accept","title":"Accept","options":[],"icon":{"systemImageName":"checkmark"}},{"identifier":"decline","title":"Decline","options":["destructive"],"icon":{"systemImageName":"xmark"}},{"identifier":"comment","title":"Comment","options":[],"textInput":{"buttonTitle":"Send","placeholder":"Add a comment"},"icon":{"templateImageName":"comment-bubble"}}],"userInteractionEnabled":false,"textInput":null,"attributes":{"sound":null,"badge":null,"interruptionLevel":"active","relevanceScore":0.0,"launchImageName":"","filterCriteria":null,"summaryArgument":"","summaryArgumentCount":0,"contentAvailable":false},"category":{"identifier":"event-invite","options":["customDismissAction","hiddenPreviewsShowTitle"],"actions":[{"identifier":"accept","title":"Accept","options":[],"icon":{"systemImageName":"checkmark"}},{"identifier":"decline","title":"Decline","options":["destructive"],"icon":{"systemImageName":"xmark"}},{"identifier":"comment","title":"Comment","options":[],"textInput":{"buttonTitle":"Send","placeholder":"Add a comment"},"icon":{"templateImageName":"comment-bubble"}}],"hiddenPreviewsBodyPlaceholder":"%u invitations","categorySummaryFormat":"%u invitations from %@"},"group":{"thread":"offsite","count":1,"arguments":[],"summary":"1 invitations from "},"presentationOptions":["banner","list","sound","badge"],"expanded":false,"dismissed":false}}"#

    /// EventInvite's presentation opened (`deliver --open`): its view, default content hidden.
    static let eventInviteExpanded = #"{"notification":"invite-offsite-2026","app":"com.example.events","extension":"com.example.events.invite","header":"Events","icon":null,"defaultContentHidden":true,"previewsHidden":false,"contentSize":{"width":360.0,"initialHeight":270.0,"height":320.0},"view":{"type":"stack","id":"invitation","hidden":false,"axis":"vertical","spacing":8.0,"children":[{"type":"image","id":"eventImage","hidden":false,"attachment":{"identifier":"event-image","type":"public.png","url":"file:///tmp/mapcap/state/tidings/attachments/ef733e7427ef9203956e959792175844.png","size":192,"thumbnailHidden":false}},{"type":"label","id":"eventTitle","hidden":false,"text":"Team offsite","style":"headline"},{"type":"label","id":"eventDate","hidden":false,"text":"Thursday 4 December, 09:00–17:00","style":"subheadline"},{"type":"label","id":"eventLocation","hidden":false,"text":"Lighthouse, Pier 3","style":"subheadline"},{"type":"label","id":"eventMessage","hidden":false,"text":"A day of planning, then dinner on the pier.","style":"body"},{"type":"label","id":"eventResponse","hidden":true,"text":"","style":"headline"},{"type":"textField","id":"note","hidden":false,"text":"","placeholder":"A note for the host","enabled":true},{"type":"button","id":"addComment","hidden":false,"title":"Add a comment","enabled":true}]},"actions":[{"identifier":"accept","title":"Accept","options":[],"icon":{"systemImageName":"checkmark"}},{"identifier":"decline","title":"Decline","options":["destructive"],"icon":{"systemImageName":"xmark"}},{"identifier":"comment","title":"Comment","options":[],"textInput":{"buttonTitle":"Send","placeholder":"Add a comment"},"icon":{"templateImageName":"comment-bubble"}}],"userInteractionEnabled":true,"textInput":null,"attributes":{"sound":null,"badge":null,"interruptionLevel":"active","relevanceScore":0.0,"launchImageName":"","filterCriteria":null,"summaryArgument":"","summaryArgumentCount":0,"contentAvailable":false},"category":{"identifier":"event-invite","options":["customDismissAction","hiddenPreviewsShowTitle"],"actions":[{"identifier":"accept","title":"Accept","options":[],"icon":{"systemImageName":"checkmark"}},{"identifier":"decline","title":"Decline","options":["destructive"],"icon":{"systemImageName":"xmark"}},{"identifier":"comment","title":"Comment","options":[],"textInput":{"buttonTitle":"Send","placeholder":"Add a comment"},"icon":{"templateImageName":"comment-bubble"}}],"hiddenPreviewsBodyPlaceholder":"%u invitations","categorySummaryFormat":"%u invitations from %@"},"group":{"thread":"offsite","count":1,"arguments":[],"summary":"1 invitations from "},"presentationOptions":["banner","list","sound","badge"],"expanded":true,"dismissed":false}"#

    /// BuildStatus's build-failed.json: a banner of a category with a foreground action.
    static let buildStatus = #"{"notification":"7DEC1735-947E-091E-6C92-7EBAA567DA9C","app":"com.example.ci","extension":"com.example.ci.build-status","header":"com.example.ci","icon":null,"defaultContentHidden":false,"previewsHidden":false,"defaultContent":{"title":"tidings","subtitle":"","body":"Build #418 failed on main."},"contentSize":{"width":360.0},"view":null,"actions":[{"identifier":"open-log","title":"Open log","options":["foreground"]}],"userInteractionEnabled":false,"textInput":null,"attributes":{"sound":null,"badge":null,"interruptionLevel":"active","relevanceScore":0.0,"launchImageName":"","filterCriteria":null,"summaryArgument":"","summaryArgumentCount":0,"contentAvailable":false},"category":{"identifier":"build-status","options":[],"actions":[{"identifier":"open-log","title":"Open log","options":["foreground"]}]},"group":{"thread":"tidings/main","count":1,"arguments":[],"summary":"1 notification"},"presentationOptions":["banner","list","sound","badge"],"expanded":false,"dismissed":false}"#

    /// A notification of an app without extension or category: title, subtitle, a body with markup characters, the default sound, time-sensitive.
    static let plain = #"{"notification":"9BF73FEE-DB2A-333B-0DA5-13ED0748EB1D","app":"com.example.plain","extension":null,"header":"com.example.plain","icon":null,"defaultContentHidden":false,"previewsHidden":false,"defaultContent":{"title":"Lunch","subtitle":"Today","body":"Pizza at 12 & <cake>"},"contentSize":{"width":360.0},"view":null,"actions":[],"userInteractionEnabled":false,"textInput":null,"attributes":{"sound":{"name":"default","critical":false,"volume":null},"badge":null,"interruptionLevel":"time-sensitive","relevanceScore":0.0,"launchImageName":"","filterCriteria":null,"summaryArgument":"","summaryArgumentCount":0,"contentAvailable":false},"category":null,"group":{"thread":"","count":1,"arguments":[],"summary":"1 notification"},"presentationOptions":["banner","list","sound","badge"],"expanded":false,"dismissed":false}"#

    /// EventInvite's invite.json with `--previews never`: the category's placeholder, its title shown (hiddenPreviewsShowTitle).
    static let hiddenPreviews = #"{"notification":"invite-offsite-2026","app":"com.example.events","extension":"com.example.events.invite","header":"com.example.events","icon":null,"defaultContentHidden":false,"previewsHidden":true,"defaultContent":{"title":"Team offsite","subtitle":"","body":"1 invitations"},"contentSize":{"width":360.0},"view":null,"actions":[{"identifier":"accept","title":"Accept","options":[],"icon":{"systemImageName":"checkmark"}},{"identifier":"decline","title":"Decline","options":["destructive"],"icon":{"systemImageName":"xmark"}},{"identifier":"comment","title":"Comment","options":[],"textInput":{"buttonTitle":"Send","placeholder":"Add a comment"},"icon":{"templateImageName":"comment-bubble"}}],"userInteractionEnabled":false,"textInput":null,"attributes":{"sound":null,"badge":null,"interruptionLevel":"active","relevanceScore":0.0,"launchImageName":"","filterCriteria":null,"summaryArgument":"","summaryArgumentCount":0,"contentAvailable":false},"category":{"identifier":"event-invite","options":["customDismissAction","hiddenPreviewsShowTitle"],"actions":[{"identifier":"accept","title":"Accept","options":[],"icon":{"systemImageName":"checkmark"}},{"identifier":"decline","title":"Decline","options":["destructive"],"icon":{"systemImageName":"xmark"}},{"identifier":"comment","title":"Comment","options":[],"textInput":{"buttonTitle":"Send","placeholder":"Add a comment"},"icon":{"templateImageName":"comment-bubble"}}],"hiddenPreviewsBodyPlaceholder":"%u invitations","categorySummaryFormat":"%u invitations from %@"},"group":{"thread":"offsite","count":1,"arguments":[],"summary":"1 invitations from "},"presentationOptions":["banner","list","sound","badge"],"expanded":false,"dismissed":false}"#

    /// A notification of an app authorized provisionally (`tidings serve`:
    /// `authorization.request` with "provisional", then `notifications.deliver`
    /// with `answer: "presentation"`): quiet, with the default sound.
    static let quiet = #"{"notification":"144E97A4-0896-DAF8-734B-8D80B5CA729F","app":"com.example.quiet","extension":null,"header":"com.example.quiet","icon":null,"defaultContentHidden":false,"previewsHidden":false,"quiet":true,"defaultContent":{"title":"Tip","subtitle":"","body":"Try the new view"},"contentSize":{"width":360.0},"view":null,"actions":[],"userInteractionEnabled":false,"textInput":null,"attributes":{"sound":{"name":"default","critical":false,"volume":null},"badge":null,"interruptionLevel":"active","relevanceScore":0.0,"launchImageName":"","filterCriteria":null,"summaryArgument":"","summaryArgumentCount":0,"contentAvailable":false},"category":null,"group":{"thread":"","count":1,"arguments":[],"summary":"1 notification"},"presentationOptions":["banner","list","sound","badge"],"expanded":false,"dismissed":false}"#

    /// An `authorization.requested` event's params, as the protocol reference gives them.
    static let authorizationRequested = #"{"app":"com.example.events","name":"Events","options":["alert","sound","badge"],"seq":7}"#
}
