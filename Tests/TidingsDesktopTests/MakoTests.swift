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
}
