import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase

/// `tidings desktop` end to end: `tidings serve` with the EventInvite sample,
/// the front end, and dunst on a private bus and X display. Each test waits
/// for what the front end logs (`--json`) and what dunst reports (its
/// context menu's input, its rule script, `dunstctl`), never for a time.
/// Serialized: each test runs an X server and a notification server.
@Suite(.serialized, .enabled(if: canRunDunst, "needs dunst, dunstctl and Xvfb"))
struct DesktopFrontEndTests {
    /// A rig with the server and the front end up and synchronised.
    private func started() throws -> FrontEndRig {
        let rig = try FrontEndRig()
        try rig.startServer()
        try rig.startDesktop()
        _ = try rig.waitFor("desktop")
        _ = try rig.waitFor("synchronised")
        return rig
    }

    @Test func anInviteShowsOnDunstWithItsTextAndActions() throws {
        let rig = try started()
        try rig.deliverInvite("invite-1")
        let shown = try rig.waitFor("shown", identifier: "invite-1")
        let desktopID = try #require(shown["desktopID"]?.integerValue)
        #expect(shown["replaced"] == .bool(false))
        #expect(eventually { rig.dunstShowed.contains { $0.id == "\(desktopID)" } }, "dunst did not show it")
        let showed = try #require(rig.dunstShowed.first { $0.id == "\(desktopID)" })
        #expect(showed.summary == "Team offsite")
        #expect(showed.body.contains("You are invited to the team offsite."))
        // dunst's context menu offers the category's actions: "#LABEL (SUMMARY) [ID,KEY]".
        try rig.chooseInMenu("")
        #expect(rig.menu.contains("#Accept (Team offsite) [\(desktopID),accept]"), "the menu offered: \(rig.menu)")
        #expect(rig.menu.contains("[\(desktopID),decline]"), "the menu offered: \(rig.menu)")
        if let path = ProcessInfo.processInfo.environment["TIDINGS_SCREENSHOT"] {
            try Screenshot.write(framebuffer: rig.session.display.screen, to: path)
        }
    }

    @Test func acceptingOnDunstReachesTheExtension() throws {
        let rig = try started()
        try rig.deliverInvite("invite-accept")
        let shown = try rig.waitFor("shown", identifier: "invite-accept")
        try rig.chooseInMenu("accept")
        let responded = try rig.waitFor("responded", identifier: "invite-accept")
        #expect(responded["action"] == .string("accept"))
        #expect(responded["receiver"] == .string("extension"))
        // EventInvite shows "Going!" and dismisses the invitation: the server's event closes it on dunst.
        #expect(responded["option"] == .string("dismiss"))
        let desktopID = try #require(shown["desktopID"]?.integerValue)
        #expect(eventually { (try? rig.dunstHistory())?.contains { $0.id == Int(desktopID) } == true },
                "the accepted invitation is still on screen")
        #expect(try rig.client().call("notifications.list")["notifications"]?.arrayValue?.isEmpty == true)
    }

    /// Another app delivered a notification of the same identifier first:
    /// the desktop's answer names the app it shows, and the other app's
    /// notification stays delivered.
    @Test func acceptingOnDunstAnswersTheAppShownAndLeavesAnotherAppsOfTheIdentifier() throws {
        let rig = try started()
        let other = JSON.object([("identifier", .string("invite-twice")),
                                 ("content", .object([("title", .string("Another app's"))]))])
        _ = try rig.client().call("notifications.deliver", .object([("payload", other), ("app", .string("com.example.other")),
                                                                    ("identifier", .string("invite-twice"))]))
        _ = try rig.waitFor("shown", identifier: "invite-twice")
        try rig.deliverInvite("invite-twice")
        _ = try rig.waitFor("shown") { $0["identifier"] == .string("invite-twice") && $0["app"] == .string("com.example.events") }
        try rig.chooseInMenu("accept")
        let responded = try rig.waitFor("responded", identifier: "invite-twice")
        #expect(responded["receiver"] == .string("extension"), "\(rig.desktopLog)")
        let listed = try rig.client().call("notifications.list")["notifications"]?.arrayValue ?? []
        #expect(listed.map { $0["app"] } == [.string("com.example.other")], "\(listed)")
    }

    /// Two apps deliver `dose-1`: dunst shows both, each under a desktop id
    /// of its own, and accepting one answers that app's only.
    @Test func twoAppsOfOneIdentifierBothShowAndEachAnswerGoesToItsApp() throws {
        let rig = try started()
        let other = "com.example.other"
        var categories = try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Locations.repositoryFile(
            "Plugins/EventInvite/Payloads/categories.json")))), file: nil)
        if case .object(let members) = categories {
            categories = .object(members.map { $0.0 == "app" ? ($0.0, .string(other)) : $0 })
        }
        _ = try rig.client().call("categories.register", categories)
        try rig.deliverInvite("dose-1", title: "Events' dose")
        try rig.deliverInvite("dose-1", title: "Other's dose", app: other)
        let mine = try rig.waitFor("shown") { $0["identifier"] == .string("dose-1") && $0["app"] == .string(FrontEndRig.app) }
        let others = try rig.waitFor("shown") { $0["identifier"] == .string("dose-1") && $0["app"] == .string(other) }
        let mineID = try #require(mine["desktopID"]?.integerValue)
        let othersID = try #require(others["desktopID"]?.integerValue)
        #expect(mineID != othersID, "one desktop notification shows both: \(rig.desktopLog)")
        #expect(eventually { [mineID, othersID].allSatisfy { id in rig.dunstShowed.contains { $0.id == "\(id)" } } },
                "dunst did not show both: \(rig.dunstShowed)")
        #expect(eventually { (try? rig.dunstOnScreen()) == 2 }, "dunst does not show both")
        // Accepting the other app's answers it, not EventInvite's.
        try rig.chooseInMenu("\(othersID),accept")
        let responded = try rig.waitFor("responded") { $0["identifier"] == .string("dose-1") }
        #expect(responded["app"] == .string(other) && responded["action"] == .string("accept"), "\(rig.desktopLog)")
        #expect(responded["receiver"] == .string("app"), "\(rig.desktopLog)")
        let inbox = try rig.client().call("inbox.list", .object([("app", .string(other))]))["entries"]?.arrayValue ?? []
        #expect(inbox.contains { $0["actionIdentifier"] == .string("accept") }, "\(inbox)")
        let mineInbox = try rig.client().call("inbox.list", .object([("app", .string(FrontEndRig.app))]))["entries"]?.arrayValue ?? []
        #expect(!mineInbox.contains { $0["actionIdentifier"] == .string("accept") }, "EventInvite's was answered too: \(mineInbox)")
        let listed = try rig.client().call("notifications.list")["notifications"]?.arrayValue ?? []
        #expect(listed.contains { $0["app"] == .string(FrontEndRig.app) }, "EventInvite's dose-1 went: \(listed)")
        // Accepting EventInvite's reaches its extension.
        try rig.chooseInMenu("\(mineID),accept")
        let second = try rig.waitFor("responded") { $0["app"] == .string(FrontEndRig.app) }
        #expect(second["receiver"] == .string("extension"), "\(rig.desktopLog)")
        #expect(rig.events("responded").count == 2, "\(rig.desktopLog)")
    }

    @Test func signalsForgedByAnotherConnectionAreIgnored() throws {
        let rig = try started()
        try rig.deliverInvite("invite-forged")
        let shown = try rig.waitFor("shown", identifier: "invite-forged")
        let desktopID = try #require(shown["desktopID"]?.integerValue)
        // Another app on the bus sends the notification server's signals to the front end: accept, then dismissed.
        try rig.forgeSignal("ActionInvoked", "uint32:\(desktopID)", "string:accept")
        try rig.forgeSignal("NotificationClosed", "uint32:\(desktopID)", "uint32:2")
        // The user's own choice, made after: the only one answered.
        try rig.chooseInMenu("decline")
        let responded = try rig.waitFor("responded", identifier: "invite-forged")
        #expect(responded["action"] == .string("decline"))
        #expect(rig.events("invoked").map { $0["key"] } == [.string("decline")], "\(rig.desktopLog)")
        #expect(rig.events("responded").count == 1, "\(rig.desktopLog)")
    }

    @Test func anAnswerGivenWhileTheServerIsAwayReachesItWhenItIsBack() throws {
        let rig = try started()
        try rig.deliverInvite("invite-later")
        _ = try rig.waitFor("shown", identifier: "invite-later")
        rig.stopServer(with: SIGTERM)
        _ = try rig.waitFor("disconnected")
        try rig.chooseInMenu("accept")
        _ = try rig.waitFor("queued") { $0["method"] == .string("notifications.respond") }
        try rig.startServer()
        let responded = try rig.waitFor("responded", identifier: "invite-later")
        #expect(responded["action"] == .string("accept"))
        #expect(responded["receiver"] == .string("extension"))
    }

    @Test func aResponseKeptForAnAppWithoutBusNameIsTriedAgainWhenTheBusIsBack() throws {
        let rig = try started()
        try rig.deliverInvite("invite-kept-response")
        _ = try rig.waitFor("shown", identifier: "invite-kept-response")
        _ = try rig.session.dunstctl("close")
        // The dismissal goes to the app, which owns no bus name: it stays in the inbox.
        let kept = try rig.waitFor("kept") { $0["app"] == .string("com.example.events") }
        let entry = try #require(kept["entry"])
        // Another notification server: the front end connects again and hands the inbox over again.
        try rig.session.restartDunst()
        _ = try rig.waitFor("disconnected") { $0["from"] == .string("bus") }
        _ = try rig.waitFor("kept") { _ in rig.events("kept").filter { $0["entry"] == entry }.count == 2 }
    }

    @Test func aServerWithFreshStateIsFollowedFromItsFirstEvent() throws {
        let rig = try started()
        for number in 1...3 { try rig.deliverInvite("old-\(number)") }
        _ = try rig.waitFor("shown", identifier: "old-3")
        rig.stopServer(with: SIGTERM)
        _ = try rig.waitFor("disconnected")
        // Another server, with state of its own: its events number from 1 again.
        try rig.startServer(state: "fresh-state")
        _ = try rig.waitFor("reconnected") { $0["resumed"] == .bool(false) }
        try rig.deliverInvite("fresh-1")
        _ = try rig.waitFor("shown", identifier: "fresh-1")
    }

    @Test func openingTheInterfaceShowsTheExtensionsView() throws {
        let rig = try started()
        try rig.deliverInvite("invite-open")
        let shown = try rig.waitFor("shown", identifier: "invite-open")
        let open = try #require(shown["actions"]?.objectMembers?.first { $0.1 == .string("open") }?.0,
                                "no action opens the interface: \(shown)")
        try rig.chooseInMenu(open)
        _ = try rig.waitFor("opened", identifier: "invite-open")
        // The extension's view, filled from the invitation's userInfo, replaces the banner on dunst.
        let expanded = try rig.waitFor("shown", identifier: "invite-open") { $0["desktopID"] != shown["desktopID"] || $0["replaced"] == .bool(true) }
        let desktopID = try #require(expanded["desktopID"]?.integerValue)
        #expect(eventually { rig.dunstShowed.contains { $0.id == "\(desktopID)" && $0.body.contains("Lighthouse, Pier 3") } },
                "dunst did not show the extension's view: \(rig.dunstShowed)")
    }

    @Test func closingOnDunstDismissesAndTidingsClosesOnDunst() throws {
        let rig = try started()
        try rig.deliverInvite("invite-close")
        _ = try rig.waitFor("shown", identifier: "invite-close")
        _ = try rig.session.dunstctl("close")
        let closed = try rig.waitFor("closed", identifier: "invite-close")
        #expect(closed["by"] == .string("desktop"))
        #expect(closed["reason"] == .string("dismissed"))
        let responded = try rig.waitFor("responded", identifier: "invite-close")
        #expect(responded["action"] == .string("dismiss"))
        // event-invite has customDismissAction: the dismissal goes to the app.
        #expect(responded["receiver"] == .string("app"))
        // The app owns no bus name here: the forwarded dismissal stays in its inbox.
        _ = try rig.waitFor("kept") { $0["app"] == .string("com.example.events") }

        try rig.deliverInvite("invite-removed")
        let shown = try rig.waitFor("shown", identifier: "invite-removed")
        _ = try rig.client().call("notifications.remove", .object([("identifiers", .array([.string("invite-removed")]))]))
        let removed = try rig.waitFor("closed", identifier: "invite-removed")
        #expect(removed["by"] == .string("tidings"))
        #expect(removed["reason"] == .string("removed"))
        let desktopID = try #require(shown["desktopID"]?.integerValue)
        #expect(eventually { (try? rig.dunstHistory())?.contains { $0.id == Int(desktopID) } == true },
                "dunst still shows the removed notification")
    }

    @Test(arguments: [SIGTERM, SIGKILL])
    func aHostRestartLosesAndDoublesNothing(_ signal: Int32) throws {
        let rig = try started()
        try rig.deliverInvite("before-1")
        try rig.deliverInvite("before-2")
        _ = try rig.waitFor("shown", identifier: "before-2")
        rig.stopServer(with: signal)
        _ = try rig.waitFor("disconnected")
        try rig.startServer()
        _ = try rig.waitFor("reconnected")
        try rig.deliverInvite("after-1")
        _ = try rig.waitFor("shown", identifier: "after-1")
        // The front end restarts too, and resumes from what it kept.
        let ending = rig.stopDesktop()
        #expect(ending?.status == 0 && ending?.bySignal == false, "SIGTERM ended the front end with \(String(describing: ending))")
        // Delivered while no front end runs: shown once it is back.
        try rig.deliverInvite("while-down")
        try rig.startDesktop()
        _ = try rig.waitFor("connected") { _ in rig.events("connected").count == 2 }
        try rig.deliverInvite("after-2")
        _ = try rig.waitFor("shown", identifier: "after-2")
        _ = try rig.waitFor("shown", identifier: "while-down")
        for identifier in ["before-1", "before-2", "after-1", "while-down", "after-2"] {
            let ids = Set(rig.events("shown", identifier: identifier).compactMap { $0["desktopID"]?.integerValue })
            #expect(ids.count == 1, "\(identifier) was shown as \(ids.sorted())")
        }
        #expect(rig.events("closed").isEmpty, "\(rig.desktopLog)")
        #expect(eventually { (try? rig.dunstOnScreen()) == 5 }, "dunst shows \((try? rig.dunstOnScreen()) ?? -1) notifications")
    }

    @Test func theDefaultActionReachesTheSampleAppThroughActivateAction() throws {
        let scratch = TemporaryDirectory("desktop-app")
        let record = scratch.file("calls.jsonl")
        let sample = Locations.product("tidings-events-app")
        let rig = try FrontEndRig(services: ["com.example.events": "\(sample) --record \(record) --idle \(Int(patience))"])
        try rig.startServer()
        try rig.startDesktop()
        _ = try rig.waitFor("synchronised")
        try rig.deliverInvite("invite-open")
        _ = try rig.waitFor("shown", identifier: "invite-open")
        // The user opens the notification itself: the default action goes to the app, which D-Bus starts.
        try rig.chooseInMenu("default")
        let responded = try rig.waitFor("responded", identifier: "invite-open")
        #expect(responded["receiver"] == .string("app"))
        let activated = try rig.waitFor("activated") { $0["app"] == .string("com.example.events") }
        let entry = try #require(activated["entry"]?.integerValue)
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        let call = try JSON.parse(Array(try #require(lines.last).utf8))
        #expect(call["method"] == .string("ActivateAction") && call["action"] == .string("tidings.response"))
        #expect(call["parameter"]?["notification"] == .string("invite-open"))
        #expect(call["parameter"]?["action"] == .string("com.apple.UNNotificationDefaultActionIdentifier"))
        #expect(call["parameter"]?["opensApp"] == .bool(true))
        #expect(call["parameter"]?["entry"] == .integer(entry))
        // The app has it: the front end took it out of the inbox.
        #expect(eventually { (try? rig.client().call("inbox.list"))?["entries"]?.arrayValue?.isEmpty == true },
                "the response stayed in the inbox")
    }

    @Test func aNotificationServerThatComesBackShowsWhatTidingsStillShows() throws {
        let rig = try started()
        try rig.deliverInvite("invite-kept")
        _ = try rig.waitFor("shown", identifier: "invite-kept")
        try rig.session.restartDunst()
        _ = try rig.waitFor("disconnected") { $0["from"] == .string("bus") }
        let again = try rig.waitFor("shown", identifier: "invite-kept") { _ in rig.events("shown", identifier: "invite-kept").count == 2 }
        let desktopID = try #require(again["desktopID"]?.integerValue)
        #expect(again["replaced"] == .bool(false))
        #expect(eventually { (try? rig.dunstOnScreen()) == 1 })
        #expect(rig.dunstShowed.contains { $0.id == "\(desktopID)" && $0.summary == "Team offsite" })
    }

    @Test func anAppsAuthorizationRequestIsAnsweredOnDunst() throws {
        let rig = try started()
        let client = try rig.client()
        let request = client.request("authorization.request", .object([("app", .string("com.example.asking")),
                                                                         ("options", .array([.string("alert")]))]))
        let prompted = try rig.waitFor("prompted") { $0["app"] == .string("com.example.asking") }
        let allow = try #require(prompted["actions"]?.objectMembers?.first { $0.1 == .string("allow") }?.0,
                                 "the prompt offers no Allow: \(prompted)")
        try rig.chooseInMenu(allow)
        let decided = try rig.waitFor("decided") { $0["app"] == .string("com.example.asking") }
        #expect(decided["decision"] == .string("allow"))
        let answer = try client.result(of: request)
        #expect(answer["granted"] == .bool(true))
        #expect(answer["status"] == .string("authorized"))
    }

    /// An app that asked for `providesAppNotificationSettings` has
    /// "Settings" on its notifications: the front end reads it from
    /// `apps.list`, and picking it answers `tidings.settings`.
    @Test func anAppWithItsOwnSettingsOffersSettingsOnDunst() throws {
        let rig = try started()
        let client = try rig.client()
        let request = client.request("authorization.request", .object([
            ("app", .string(FrontEndRig.app)),
            ("options", .array([.string("alert"), .string("providesAppNotificationSettings")]))]))
        _ = try rig.waitFor("prompted") { $0["app"] == .string(FrontEndRig.app) }
        _ = try client.call("authorization.decide", .object([("app", .string(FrontEndRig.app)), ("decision", .string("allow"))]))
        _ = try client.result(of: request)
        // The decision makes the front end ask apps.list again; its answer counts for the next notification.
        _ = try rig.waitFor("app") { $0["app"] == .string(FrontEndRig.app) && $0["settings"] == .bool(true) }
        try rig.deliverInvite("invite-settings")
        let shown = try rig.waitFor("shown", identifier: "invite-settings")
        let desktopID = try #require(shown["desktopID"]?.integerValue)
        try rig.chooseInMenu("\(desktopID),tidings.settings")
        #expect(rig.menu.contains("[\(desktopID),tidings.settings]"), "the menu offered: \(rig.menu)")
        let responded = try rig.waitFor("responded", identifier: "invite-settings")
        #expect(responded["action"] == .string("tidings.settings"), "\(rig.desktopLog)")
    }

    @Test func aDeliveryUnderTheSameIdentifierReplacesItOnDunst() throws {
        let rig = try started()
        try rig.deliverInvite("invite-again")
        let first = try rig.waitFor("shown", identifier: "invite-again")
        try rig.deliverInvite("invite-again", title: "Team offsite, moved to Friday")
        let second = try rig.waitFor("shown", identifier: "invite-again") { $0["replaced"] == .bool(true) }
        #expect(second["desktopID"] == first["desktopID"])
        #expect(second["summary"] == .string("Team offsite, moved to Friday"))
        #expect(rig.events("closed").isEmpty)
        #expect(eventually { (try? rig.dunstOnScreen()) == 1 }, "\(rig.desktopLog)")
    }
}
