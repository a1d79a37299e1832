import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase

/// `tidings desktop` against itself and its bus, end to end on dunst: a
/// restarted front end takes over what the previous one showed; a stopped
/// notification server (SIGSTOP) delays nothing else and loses nothing;
/// SIGTERM ends it in every state; its log says a line per notification and
/// per answer, and an extension that never completed, by default. Each test waits for what the front end
/// logs (`--json`) and what dunst reports, never for a time. Serialized:
/// each test runs an X server and a notification server.
@Suite(.serialized, .enabled(if: canRunDunst, "needs dunst, dunstctl and Xvfb"))
struct FrontEndSurvivalTests {
    /// A rig with the server and the front end (with `options`) up and synchronised.
    private func started(_ options: [String] = []) throws -> FrontEndRig {
        let rig = try FrontEndRig()
        try rig.startServer()
        try rig.startDesktop(options)
        _ = try rig.waitFor("desktop")
        _ = try rig.waitFor("synchronised")
        return rig
    }

    /// A short deadline: the calls a stopped dunst does not answer are said late at once.
    private static let shortDeadline = ["--call-deadline", "0.2"]

    @Test(arguments: [SIGTERM, SIGKILL])
    func aRestartedFrontEndStillHearsTheCloseAndTheClickOnWhatItShowed(_ signal: Int32) throws {
        let rig = try started()
        let identifiers = ["before-1", "before-2", "before-3"]
        for identifier in identifiers { try rig.deliverInvite(identifier) }
        for identifier in identifiers { _ = try rig.waitFor("shown", identifier: identifier) }
        rig.waitForKept(identifiers)
        rig.stopDesktop(with: signal)
        // dunst sends a notification's signals to the connection that showed it:
        // the new front end shows each again from its own, in place.
        try rig.startDesktop()
        _ = try rig.waitFor("synchronised") { _ in rig.events("synchronised").count == 2 }
        for identifier in identifiers {
            let first = try rig.waitFor("shown", identifier: identifier)
            let again = try rig.waitFor("shown", identifier: identifier) { $0["takenOver"] == .bool(true) }
            #expect(again["desktopID"] == first["desktopID"], "\(identifier) moved: \(first) then \(again)")
        }
        #expect(eventually { (try? rig.dunstOnScreen()) == 3 }, "dunst shows \((try? rig.dunstOnScreen()) ?? -1) notifications")
        // The user closes one on dunst and accepts another from its menu: both reach the server.
        _ = try rig.session.dunstctl("close")
        let closed = try rig.waitFor("closed") { $0["by"] == .string("desktop") }
        let closedIdentifier = try #require(closed["identifier"]?.stringValue)
        let dismissed = try rig.waitFor("responded", identifier: closedIdentifier)
        #expect(dismissed["action"] == .string("dismiss"))
        try rig.chooseInMenu("accept")
        let accepted = try rig.waitFor("responded") { $0["action"] == .string("accept") }
        let acceptedIdentifier = try #require(accepted["identifier"]?.stringValue)
        #expect(acceptedIdentifier != closedIdentifier)
        #expect(accepted["receiver"] == .string("extension"))
        // EventInvite dismisses what it accepted: the server no longer lists it.
        let listed = { () -> [String] in
            ((try? rig.client().call("notifications.list"))?["notifications"]?.arrayValue ?? [])
                .compactMap { $0["notification"]?["identifier"]?.stringValue }
        }
        #expect(eventually { !listed().contains(acceptedIdentifier) }, "the server still lists \(acceptedIdentifier): \(listed())")
    }

    @Test func aStoppedNotificationServerDelaysNothingElseAndLosesNothing() throws {
        let rig = try started(Self.shortDeadline)
        try rig.deliverInvite("answered-meanwhile")
        _ = try rig.waitFor("shown", identifier: "answered-meanwhile")
        let dunst = rig.session.dunst.identifier
        kill(dunst, SIGSTOP)
        defer { kill(dunst, SIGCONT) }
        let identifiers = (1...5).map { "while-stopped-\($0)" }
        for identifier in identifiers { try rig.deliverInvite(identifier) }
        // The front end takes each delivery while the Notify before it waits: each is sent, and said late.
        for identifier in identifiers {
            _ = try rig.waitFor("timedOut") { $0["method"] == .string("Notify") && $0["subject"] == .string(identifier) }
        }
        // The server answers at once, and so does the front end: a response dismisses one, which it closes.
        #expect(try rig.client().call("server.ping") != .null)
        _ = try rig.client().call("notifications.respond", .object([("identifier", .string("answered-meanwhile")),
                                                                    ("action", .string("accept"))]))
        _ = try rig.waitFor("closed", identifier: "answered-meanwhile")
        _ = try rig.waitFor("timedOut") { $0["method"] == .string("CloseNotification") }
        #expect(rig.events("shown").count == 1, "shown while dunst is stopped: \(rig.desktopLog)")
        // dunst goes on: every notification sent meanwhile appears, once.
        kill(dunst, SIGCONT)
        for identifier in identifiers {
            _ = try rig.waitFor("shown", identifier: identifier)
            _ = try rig.waitFor("answered") { $0["subject"] == .string(identifier) }
        }
        #expect(eventually { (try? rig.dunstOnScreen()) == identifiers.count },
                "dunst shows \((try? rig.dunstOnScreen()) ?? -1) notifications: \(rig.desktopLog)")
        for identifier in identifiers {
            #expect(rig.events("shown", identifier: identifier).count == 1, "\(identifier): \(rig.desktopLog)")
        }
        // People read that the server does not answer once, not once per call, and that it answers again.
        var said: [Substring] { rig.desktopLog.split(separator: "\n").filter { $0.hasPrefix("tidings desktop:") } }
        #expect(eventually { said.contains { $0.contains("it answers again") } }, "\(said)")
        let late = said.filter { $0.contains("has not answered") }.count
        #expect(late >= 1 && late < rig.events("timedOut").count, "\(said)")
    }

    @Test func sigtermEndsItWhileTheNotificationServerIsStopped() throws {
        let rig = try started(Self.shortDeadline)
        let dunst = rig.session.dunst.identifier
        kill(dunst, SIGSTOP)
        defer { kill(dunst, SIGCONT) }
        try rig.deliverInvite("never-answered")
        _ = try rig.waitFor("timedOut") { $0["subject"] == .string("never-answered") }
        let ending = rig.stopDesktop()
        #expect(ending?.status == 0 && ending?.bySignal == false, "SIGTERM ended it with \(String(describing: ending))")
    }

    @Test func sigtermEndsItWhileItConnectsToAStoppedNotificationServer() throws {
        let rig = try FrontEndRig()
        try rig.startServer()
        let dunst = rig.session.dunst.identifier
        // dunst answers once, so that it is up; then it stops, and the front end's first calls wait for it.
        #expect(eventually { (try? rig.session.dunstctl("is-paused")) != nil }, "dunst did not come up")
        kill(dunst, SIGSTOP)
        defer { kill(dunst, SIGCONT) }
        try rig.startDesktop(Self.shortDeadline)
        _ = try rig.waitFor("waiting") { $0["for"] == .string("notifications") }
        let ending = rig.stopDesktop()
        #expect(ending?.status == 0 && ending?.bySignal == false, "SIGTERM ended it with \(String(describing: ending))")
    }

    @Test func sigtermEndsItWhileTheServerIsAway() throws {
        let rig = try started()
        rig.stopServer(with: SIGKILL)
        _ = try rig.waitFor("disconnected")
        let ending = rig.stopDesktop()
        #expect(ending?.status == 0 && ending?.bySignal == false, "SIGTERM ended it with \(String(describing: ending))")
    }

    /// The lines for people (standard error) of the front end's runs that name `identifier`.
    private func linesFor(_ identifier: String, in rig: FrontEndRig) -> [Substring] {
        rig.desktopLog.split(separator: "\n").filter { $0.hasPrefix("tidings desktop:") && $0.contains(identifier) }
    }

    @Test func byDefaultANotificationIsALineAndItsAnswerAnother() throws {
        let rig = try started()
        try rig.deliverInvite("invite-said")
        _ = try rig.waitFor("shown", identifier: "invite-said")
        try rig.chooseInMenu("accept")
        _ = try rig.waitFor("responded", identifier: "invite-said")
        // EventInvite dismisses what it accepted: closed on dunst (logged, for programs, as closed).
        _ = try rig.waitFor("closed", identifier: "invite-said") { $0["by"] == .string("tidings") }
        let lines = linesFor("invite-said", in: rig)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.contains(#"showed "invite-said" of com.example.events"#) == true
                && lines.last?.contains(#"answered accept on "invite-said" of com.example.events"#) == true,
                "\(lines)")
    }

    @Test func aForgottenCompletionIsSaidInBothLogs() throws {
        let rig = try FrontEndRig()
        // Misbehaving's "never" never completes the response: the server's deadline passes.
        let library = try CCompiler.fixture("Misbehaving", into: rig.directory.path, extraFlags: ["-pthread"])
        _ = try BundleMaker.make("Misbehaving", in: rig.directory.file("extensions"), manifest: BundleMaker.contentManifest(
            identifier: "com.example.tests.misbehaving", executable: "libMisbehaving.so", categories: ["misbehave"]),
            library: library)
        try rig.startServer(options: ["--deadline", "0.3"])
        try rig.startDesktop()
        _ = try rig.waitFor("synchronised")
        let client = try rig.client()
        _ = try client.call("categories.register", try JSON.parse(Array(#"{"app": "com.example.tests", "categories": [{"identifier": "misbehave", "actions": [{"identifier": "never", "title": "Never"}]}]}"#.utf8)))
        _ = try client.call("notifications.deliver", try JSON.parse(Array(#"{"app": "com.example.tests", "payload": {"identifier": "forgotten", "content": {"title": "T", "body": "B", "categoryIdentifier": "misbehave"}}}"#.utf8)))
        _ = try rig.waitFor("shown", identifier: "forgotten")
        try rig.chooseInMenu("never")
        let responded = try rig.waitFor("responded", identifier: "forgotten")
        #expect(responded["completed"] == .bool(false), "\(responded)")
        let said = linesFor("forgotten", in: rig).filter { $0.contains("did not complete") }
        #expect(said.count == 1, "\(rig.desktopLog)")
        let serverLog = rig.text(of: rig.directory.file("serve-1.log"))
        #expect(serverLog.split(separator: "\n").filter { $0.contains("forgotten") && $0.contains("was not completed") }.count == 1,
                "\(serverLog)")
    }
}
