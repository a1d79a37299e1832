import Foundation
import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// A push as a person sees it: an app server's pywebpush message, through
/// the distributor double and `tidings desktop` (the connector), to
/// `tidings serve`, whose service extension (InviteService) rewrites it on
/// `mutable-content`, to dunst on screen — in both isolation modes of the
/// service extension.
@Suite(.serialized, .enabled(if: canRunDunst && canRunUnifiedPush && webPushPython != nil,
                             "needs dunst, the D-Bus tests' tools and pywebpush"))
struct UnifiedPushDunstTests {
    @Test(arguments: ["in-process", "process"])
    func aMutableContentPushIsRewrittenByTheServiceExtensionOnDunst(isolation: String) throws {
        let rig = try FrontEndRig()
        _ = try BundleMaker.installSample("InviteService", in: rig.directory.file("extensions"))
        try rig.startServer(isolation: isolation)
        let distributor = try ScriptedDouble("unifiedpush-distributor.py",
                                             [rig.session.bus.address, ScriptedDouble.fifoArgument, rig.directory.file("distributor.json")],
                                             label: "distributor", in: rig.directory)
        try distributor.waitFor("ready")
        try rig.startDesktop(["--geoclue-bus", "off", "--verbose"])
        _ = try rig.waitFor("push") { $0["step"] == .string("distributor") }

        let registration = try rig.client().call("push.register", .object([("app", .string(FrontEndRig.app))]))
        let publicKey = try #require(registration["publicKey"]?.stringValue), auth = try #require(registration["auth"]?.stringValue)
        _ = try distributor.waitFor("sent") { $0["sent"] == .string("NewEndpoint") }
        let endpoint = try #require(distributor.lines("sent") { $0["sent"] == .string("NewEndpoint") }.last?["endpoint"]?.stringValue)

        let payload = #"{"aps": {"alert": {"title": "Team offsite", "body": "You are invited."}, "category": "event-invite", "mutable-content": 1}}"#
        let sent = try JSON.parse(Array(try webPush("webpush-send.py", ["--endpoint", endpoint, "--public-key=" + publicKey,
                                                                        "--auth=" + auth, "--payload", payload]).utf8))
        #expect(sent["status"] == .integer(201), "\(sent)")
        #expect(eventually { rig.dunstShowed.contains { $0.summary.contains("Invitation: Team offsite") } || rig.desktop?.isRunning == false },
                "dunst did not show the rewritten push: \(rig.dunstShowed) \(rig.desktopLog)")
        #expect(!rig.dunstShowed.contains { $0.summary == "Team offsite" }, "the content before the service extension is never shown")
    }
}
