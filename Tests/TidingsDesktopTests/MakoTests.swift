import Foundation
import Testing
import TestSupport
import TidingsBase

/// `tidings desktop` end to end on mako, a Wayland notification server, under
/// a headless sway: what mako shows and what its controls do (`makoctl`
/// list, invoke, dismiss) reach Tidings as they do from dunst
/// (`DesktopFrontEndTests`). Serialized: each test runs a compositor and a
/// notification server. Where sway cannot come up here, each test says so
/// and is cancelled.
@Suite(.serialized, .enabled(if: canRunMako, "needs sway, mako, makoctl and busctl (and setpriv as root)"))
struct MakoTests {
    /// A rig on mako with the server and the front end up and synchronised,
    /// and EventInvite's invite delivered as `identifier` and shown by mako: its id there.
    private func invited(_ identifier: String) throws -> (rig: DesktopRig<MakoSession>, id: Int) {
        let session: MakoSession
        do {
            session = try MakoSession()
        } catch MakoSession.SessionError.noCompositor(let log) {
            print("SKIPPING the mako tests: sway did not come up headless here; its log:\n\(log)")
            try Test.cancel("sway did not come up headless here")
        }
        let rig = try DesktopRig(directory: TemporaryDirectory("desktop-mako"), session: session)
        try rig.startServer()
        try rig.startDesktop()
        _ = try rig.waitFor("synchronised")
        try rig.deliverInvite(identifier)
        let shown = try rig.waitFor("shown", identifier: identifier)
        let id = try #require(shown["desktopID"]?.integerValue)
        #expect(eventually { (try? session.notifications())?.contains { $0.id == id } == true },
                "mako does not show it: \((try? session.makoctl("list")) ?? "")")
        return (rig, Int(id))
    }

    @Test func anInviteShowsOnMakoWithItsTextAndActions() throws {
        let (rig, id) = try invited("invite-1")
        let shown = try #require(try rig.session.notifications().first { $0.id == id })
        #expect(shown.summary == "Team offsite")
        #expect(shown.body.contains("You are invited to the team offsite."), "mako shows: \(shown.body)")
        #expect(shown.actions["accept"] == "Accept", "mako offers: \(shown.actions)")
        #expect(shown.actions["decline"] != nil, "mako offers: \(shown.actions)")
        #expect(shown.actions["default"] != nil, "mako offers: \(shown.actions)")
    }

    @Test func acceptingOnMakoReachesTheExtension() throws {
        let (rig, id) = try invited("invite-accept")
        try rig.session.makoctl("invoke", "-n", "\(id)", "accept")
        let responded = try rig.waitFor("responded", identifier: "invite-accept")
        #expect(responded["action"] == .string("accept"))
        #expect(responded["receiver"] == .string("extension"))
        // EventInvite dismisses the invitation it accepted: the server's event closes it on mako.
        #expect(responded["option"] == .string("dismiss"))
        #expect(eventually { (try? rig.session.notifications())?.contains { $0.id == id } == false },
                "the accepted invitation is still on mako")
        #expect(try rig.client().call("notifications.list")["notifications"]?.arrayValue?.isEmpty == true)
    }

    @Test func dismissingOnMakoDismissesInTidings() throws {
        let (rig, id) = try invited("invite-dismiss")
        try rig.session.makoctl("dismiss", "-n", "\(id)")
        let closed = try rig.waitFor("closed", identifier: "invite-dismiss")
        #expect(closed["by"] == .string("desktop"))
        #expect(closed["reason"] == .string("dismissed"))
        let responded = try rig.waitFor("responded", identifier: "invite-dismiss")
        #expect(responded["action"] == .string("dismiss"))
        // event-invite has customDismissAction: the server hands the dismissal to the app's inbox.
        #expect(responded["receiver"] == .string("app"))
        _ = try rig.waitFor("kept") { $0["app"] == .string(DesktopRig<MakoSession>.app) }
    }

    @Test func aRestartedFrontEndStillHearsTheDismissalAndTheActionOnMako() throws {
        let (rig, _) = try invited("before-1")
        try rig.deliverInvite("before-2")
        _ = try rig.waitFor("shown", identifier: "before-2")
        rig.waitForKept(["before-1", "before-2"])
        // mako, too, is told again who shows them: the new front end hears what the user does.
        rig.stopDesktop(with: SIGKILL)
        try rig.startDesktop()
        _ = try rig.waitFor("synchronised") { _ in rig.events("synchronised").count == 2 }
        for identifier in ["before-1", "before-2"] {
            _ = try rig.waitFor("shown", identifier: identifier) { $0["takenOver"] == .bool(true) }
        }
        let idOf = { (identifier: String) in
            rig.events("shown", identifier: identifier).last?["desktopID"]?.integerValue ?? -1
        }
        #expect(eventually { (try? rig.session.notifications())?.count == 2 },
                "mako shows \((try? rig.session.makoctl("list")) ?? "")")
        try rig.session.makoctl("dismiss", "-n", "\(idOf("before-1"))")
        let dismissed = try rig.waitFor("responded", identifier: "before-1")
        #expect(dismissed["action"] == .string("dismiss"))
        try rig.session.makoctl("invoke", "-n", "\(idOf("before-2"))", "accept")
        let accepted = try rig.waitFor("responded", identifier: "before-2")
        #expect(accepted["action"] == .string("accept"))
        #expect(accepted["receiver"] == .string("extension"))
    }
}
