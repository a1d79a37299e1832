import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase
import TidingsDesktop
import TidingsProtocol

/// Whether a real window can be drawn and driven here: the dunst rig's
/// programs, GTK 4, xdotool and xwininfo.
let canShowWindows: Bool = {
    guard canRunDunst else { return false }
    let missing = ["xdotool", "xwininfo"].filter { ProcessRunner.which($0) == nil }
        + (dlopen("libgtk-4.so.1", RTLD_LAZY | RTLD_LOCAL) == nil ? ["libgtk-4.so.1"] : [])
    if !missing.isEmpty {
        print("SKIPPING the window tests: no \(missing.joined(separator: ", ")) "
              + "(apt-get install libgtk-4-1 xdotool x11-utils; .ci/run installs them)")
    }
    return missing.isEmpty
}()

/// `tidings show` (and "Show More" in `tidings desktop`) with a real GTK 4
/// window on Xvfb: `tidings serve` with EventInvite, the window's process,
/// xdotool clicking and typing where the window's log (`--json`) says each
/// control is, xwininfo reading its size, Xvfb's framebuffer showing what it
/// drew. Each step waits for a log line, never for a time. Serialized: each
/// test runs an X server.
@Suite(.serialized, .enabled(if: canShowWindows, "needs Xvfb, dunst, xdotool, xwininfo and libgtk-4-1"))
struct WindowTests {
    /// A `tidings show` process on the rig's display and server, and what it logged.
    final class ShowProcess: @unchecked Sendable {
        let rig: FrontEndRig
        let identifier: String
        let process: BackgroundProcess
        let log: String

        init(_ rig: FrontEndRig, _ identifier: String, arguments: [String] = []) throws {
            self.rig = rig
            self.identifier = identifier
            log = rig.directory.file("show-\(identifier).log")
            process = try BackgroundProcess(Locations.product("tidings"),
                                            ["show", identifier, "--socket", rig.socket, "--json"] + arguments,
                                            environment: ["HOME": rig.directory.path, "NO_COLOR": "1",
                                                          "DISPLAY": rig.session.display.name], log: log)
        }

        deinit { process.stop(with: SIGKILL) }

        /// The JSON lines it logged so far.
        var logged: [JSON] {
            rig.text(of: log).split(separator: "\n").compactMap { line in
                line.hasPrefix("{") ? try? JSON.parse(Array(line.utf8)) : nil
            }
        }

        /// Waits for the `index`th (from 0) line of `event` for which `condition` holds.
        func waitFor(_ event: String, _ condition: (JSON) -> Bool = { _ in true }) throws -> JSON {
            var found: JSON?
            let seen = eventually {
                found = logged.first { $0["event"]?.stringValue == event && condition($0) }
                return found != nil || !process.isRunning
            }
            return try #require(seen ? found : nil, "no \(event) in the window's log:\n\(rig.text(of: log))")
        }

        /// The window's X id, found by its title (which names the notification).
        func windowID() throws -> String {
            try window(named: identifier, on: rig.session.display, or: "its log:\n\(rig.text(of: log))")
        }

        var display: [String: String] { ["DISPLAY": rig.session.display.name] }

        /// The window's geometry as xwininfo reports it: x, y (absolute), width, height.
        func geometry() throws -> [Int] {
            let info = try ProcessRunner.run(ProcessRunner.which("xwininfo")!, ["-id", try windowID()],
                                             environment: display, deadline: patience).standardOutput
            func field(_ name: String) -> Int {
                info.split(separator: "\n").first { $0.contains(name) }
                    .flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") } ?? -1
            }
            return [field("Absolute upper-left X"), field("Absolute upper-left Y"), field("Width"), field("Height")]
        }

        /// Clicks the middle of the control `name` of `kind`, where the log line `line` places it.
        func click(_ name: String, kind: String, in line: JSON) throws {
            let control = try #require(line["controls"]?.arrayValue?.first {
                $0["name"]?.stringValue == name && $0["kind"]?.stringValue == kind
            }, "no \(kind) \(name) in \(line)")
            let frame = (control["frame"]?.arrayValue ?? []).compactMap(\.integerValue)
            try #require(frame.count == 4)
            try xdotool("mousemove", "--window", try windowID(), "\(frame[0] + frame[2] / 2)", "\(frame[1] + frame[3] / 2)",
                        "click", "1")
        }

        /// Runs xdotool with `arguments` on the rig's display (`closing` the window: it may be gone before xdotool is done).
        func xdotool(_ arguments: String..., closing: Bool = false) throws {
            let result = try ProcessRunner.run(ProcessRunner.which("xdotool")!, arguments, environment: display,
                                               deadline: patience)
            #expect(closing || result.status == 0, "xdotool \(arguments) failed: \(result.standardError)")
        }

        /// The window's pixels now, as a PNG of its rectangle.
        func pixels(named name: String) throws -> Data {
            let path = rig.directory.file(name + ".png")
            try Screenshot.write(framebuffer: rig.session.display.screen, to: path, region: try geometry())
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }

    /// A rig with the server up (EventInvite installed) and an invite delivered as `identifier`.
    private func serving(_ identifier: String, manifest: ((String) -> String)? = nil) throws -> FrontEndRig {
        let rig = try FrontEndRig()
        if let manifest {
            let plist = rig.directory.file("extensions/EventInvite.appex/Info.plist")
            try manifest(rig.text(of: plist)).write(toFile: plist, atomically: true, encoding: .utf8)
        }
        try rig.startServer()
        try rig.deliverInvite(identifier)
        return rig
    }

    @Test func theWindowIsWidthTimesRatioWhileLoadingThenThePreferredHeight() throws {
        let rig = try serving("invite-size")
        let window = try ShowProcess(rig, "invite-size")
        let shown = try window.waitFor("shown")
        // EventInvite: ratio 0.75 at 360 wide while it loads; then 320, the height its didReceive prefers.
        #expect(shown["loading"] == .bool(true))
        #expect(shown["viewHeight"] == .integer(270), "\(shown)")
        #expect(shown["width"] == .integer(360))
        let redrawn = try window.waitFor("redrawn") { $0["loading"] == .bool(false) }
        #expect(redrawn["viewHeight"] == .integer(320), "\(redrawn)")
        let height = try #require(redrawn["height"]?.integerValue)
        var geometry: [Int] = []
        try #require(eventually { geometry = (try? window.geometry()) ?? []; return geometry.count == 4 && geometry[3] == height },
                     "xwininfo: \(geometry), the log: \(redrawn)")
        #expect(geometry[2] == 360)
        // EventInvite hides the default content: only its view shows.
        #expect(redrawn["defaultContent"] == .bool(false))
        // Every control is placed, with its name, and the destructive action is among them.
        let names = (redrawn["controls"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(names.starts(with: ["Accept", "Decline", "Comment"]) || Set(["Accept", "Decline", "Comment"]).isSubset(of: names))
    }

    @Test func aWidthOfItsOwnScalesTheRatio() throws {
        let rig = try serving("invite-wide")
        let window = try ShowProcess(rig, "invite-wide", arguments: ["--width", "480"])
        let shown = try window.waitFor("shown")
        #expect(shown["viewHeight"] == .integer(360), "480 × 0.75: \(shown)")
        #expect(shown["width"] == .integer(480))
    }

    @Test func anExtensionThatShowsTheDefaultContentHasItDrawn() throws {
        let rig = try serving("invite-default") { manifest in
            manifest.replacingOccurrences(of: "<key>UNNotificationExtensionDefaultContentHidden</key>\n\t\t\t<true/>",
                                          with: "<key>UNNotificationExtensionDefaultContentHidden</key>\n\t\t\t<false/>")
        }
        let window = try ShowProcess(rig, "invite-default")
        let redrawn = try window.waitFor("redrawn") { $0["loading"] == .bool(false) }
        #expect(redrawn["defaultContent"] == .bool(true), "\(redrawn)")
    }

    @Test func anActionClickedReachesTheExtensionAndTheDismissalClosesTheWindow() throws {
        let rig = try serving("invite-decline")
        let window = try ShowProcess(rig, "invite-decline")
        let ready = try window.waitFor("redrawn") { $0["loading"] == .bool(false) }
        try window.click("Decline", kind: "action", in: ready)
        let sent = try window.waitFor("sent")
        #expect(sent["method"] == .string("notifications.respond"))
        #expect(sent["params"]?["action"] == .string("decline"))
        let answered = try window.waitFor("answered")
        #expect(answered["receiver"] == .string("extension"), "\(answered)")
        #expect(answered["option"] == .string("dismiss"))
        _ = try window.waitFor("closed") { $0["by"] == .string("server") }
        #expect(window.process.waitUntilExit(), "the window did not end after its notification was dismissed")
        #expect(window.process.ending?.status == 0)
    }

    @Test func aViewButtonAndAFieldReachTheExtensionAndTheViewIsRedrawn() throws {
        let rig = try serving("invite-view")
        let window = try ShowProcess(rig, "invite-view")
        let ready = try window.waitFor("redrawn") { $0["loading"] == .bool(false) }
        let before = try window.pixels(named: "before")
        // The note field: EventInvite shows "Note: …" in its response label, and keeps the interface open.
        try window.click("A note for the host", kind: "textField", in: ready)
        try window.xdotool("type", "--window", try window.windowID(), "bring snacks")
        try window.xdotool("key", "--window", try window.windowID(), "Return")
        let sent = try window.waitFor("sent") { $0["params"]?["element"] == .string("note") }
        #expect(sent["method"] == .string("notifications.interact"))
        #expect(sent["params"]?["text"] == .string("bring snacks"))
        _ = try window.waitFor("answered") { $0["method"] == .string("notifications.interact") }
        let presentation = try rig.client().call("notifications.presentation", .object([("identifier", .string("invite-view"))]))
        #expect("\(presentation)".contains("Note: bring snacks"), "the extension did not get the text")
        var after = before
        #expect(eventually { after = (try? window.pixels(named: "after")) ?? before; return after != before },
                "the window's pixels did not change where the label did")
        if let path = ProcessInfo.processInfo.environment["TIDINGS_SCREENSHOT"] {
            try Screenshot.write(framebuffer: rig.session.display.screen, to: path, region: try window.geometry())
        }
        // The view's button: EventInvite asks for text input, which the window shows as a field with its title.
        let latest = try #require(window.logged.last { $0["event"] == .string("redrawn") })
        try window.click("Add a comment", kind: "button", in: latest)
        _ = try window.waitFor("sent") { $0["params"]?["element"] == .string("addComment") }
        let asked = try window.waitFor("redrawn") { line in
            line["controls"]?.arrayValue?.contains { $0["name"] == .string("Post") && $0["kind"] == .string("send") } == true
        }
        #expect(asked["controls"]?.arrayValue?.contains { $0["name"] == .string("Say something to the host") } == true)
    }

    @Test func textTypedIntoATextInputActionIsTheResponse() throws {
        let rig = try serving("invite-comment")
        let window = try ShowProcess(rig, "invite-comment")
        let ready = try window.waitFor("redrawn") { $0["loading"] == .bool(false) }
        try window.click("Comment", kind: "action", in: ready)
        // The field opens (with the action's placeholder) and takes the focus.
        let opened = try window.waitFor("redrawn") { line in
            line["controls"]?.arrayValue?.contains { $0["name"] == .string("Add a comment") && $0["kind"] == .string("textInput") } == true
        }
        #expect(opened["controls"]?.arrayValue?.contains { $0["name"] == .string("Send") } == true)
        try window.xdotool("type", "--window", try window.windowID(), "Count me in")
        // The response dismisses the notification: the window may be gone before xdotool is done.
        try window.xdotool("key", "--window", try window.windowID(), "Return", closing: true)
        let sent = try window.waitFor("sent")
        #expect(sent["params"]?["action"] == .string("comment"))
        #expect(sent["params"]?["text"] == .string("Count me in"))
        let answered = try window.waitFor("answered")
        #expect(answered["userText"] == .string("Count me in"), "\(answered)")
        #expect(answered["receiver"] == .string("extension"))
        #expect(answered["option"] == .string("dismissAndForwardAction"))
    }

    @Test func escapeClosesTheWindowAndTheInterfaceNotTheNotification() throws {
        let rig = try serving("invite-escape")
        let window = try ShowProcess(rig, "invite-escape")
        _ = try window.waitFor("redrawn") { $0["loading"] == .bool(false) }
        try window.xdotool("key", "--window", try window.windowID(), "Escape", closing: true)
        _ = try window.waitFor("closed") { $0["by"] == .string("person") }
        #expect(window.process.waitUntilExit())
        let presentation = try rig.client().call("notifications.presentation", .object([("identifier", .string("invite-escape"))]))
        #expect(presentation["expanded"] == .bool(false), "the interface stayed open: \(presentation)")
        #expect(presentation["dismissed"] == .bool(false), "the notification left: \(presentation)")
    }

    /// A rig whose server runs the C fixture `name` (of app com.example.tests, for `category` with `actions`,
    /// its interface one label `label`) with `server` arguments, and a notification `identifier` delivered.
    private func serving(fixture name: String, category: String, label: String, identifier: String,
                         actions: String = "[]", server: [String] = []) throws -> FrontEndRig {
        let rig = try FrontEndRig()
        let library = try CCompiler.fixture(name, into: rig.directory.path, extraFlags: ["-pthread"])
        let interface = try rig.directory.write("""
            {"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "\(label)"}]}}
            """, to: "\(name)/MainInterface.json")
        try BundleMaker.make(name, in: rig.directory.file("extensions"), manifest: BundleMaker.contentManifest(
            identifier: "com.example.tests.\(name.lowercased())", executable: "lib\(name).so", categories: [category],
            interface: "MainInterface"), library: library, resources: [interface])
        try rig.startServer(options: server)
        _ = try rig.client().call("categories.register", try JSON.parse(Array("""
            {"app": "com.example.tests", "categories": [{"identifier": "\(category)", "actions": \(actions)}]}
            """.utf8)))
        _ = try rig.client().call("notifications.deliver", try JSON.parse(Array("""
            {"app": "com.example.tests", "payload": {"identifier": "\(identifier)", "content": {"title": "T", "body": "B", "categoryIdentifier": "\(category)"}}}
            """.utf8)))
        return rig
    }

    @Test func aChangeFromAnotherThreadOfTheExtensionIsDrawnLive() throws {
        // The Later fixture: after it answered, a thread of its own sets its label to "updated" and its height to 200.
        let rig = try serving(fixture: "Later", category: "story", label: "status", identifier: "later-1")
        let window = try ShowProcess(rig, "later-1")
        let updated = try window.waitFor("redrawn") { $0["viewHeight"] == .integer(200) }
        #expect(updated["loading"] == .bool(false))
        var geometry: [Int] = []
        #expect(eventually {
            geometry = (try? window.geometry()) ?? []
            return geometry.count == 4 && .integer(Int64(geometry[3])) == window.logged.last { $0["event"] == .string("redrawn") }?["height"]
        }, "xwininfo: \(geometry), the log: \(window.logged)")
    }

    @Test func anExtensionThatNeverCompletesIsSaidInTheWindowAndTheLog() throws {
        // The Misbehaving fixture: its "never" action never completes; the server's deadline is half a second.
        let rig = try serving(fixture: "Misbehaving", category: "misbehave", label: "count", identifier: "never-1",
                              actions: #"[{"identifier": "never", "title": "Never"}]"#, server: ["--deadline", "0.5"])
        let window = try ShowProcess(rig, "never-1")
        let ready = try window.waitFor("redrawn") { $0["loading"] == .bool(false) }
        // Its media button is drawn where the extension put it, with a name.
        #expect(ready["controls"]?.arrayValue?.contains { $0["kind"] == .string("mediaButton") } == true, "\(ready)")
        try window.click("Play", kind: "mediaButton", in: ready)
        _ = try window.waitFor("sent") { $0["method"] == .string("notifications.tap-media-button") }
        let tapped = try window.waitFor("answered") { $0["method"] == .string("notifications.tap-media-button") }
        _ = tapped
        let playing = try window.waitFor("redrawn") { line in
            line["controls"]?.arrayValue?.contains { $0["name"] == .string("Pause") && $0["kind"] == .string("mediaButton") } == true
        }
        try window.click("Never", kind: "action", in: playing)
        let incomplete = try window.waitFor("incomplete")
        #expect(incomplete["code"] == .string("response.completion-timeout"), "\(incomplete)")
        #expect(incomplete["response"]?.stringValue?.contains("app") == true, "\(incomplete)")
        // The window stays, saying so, after the host dismissed the notification.
        let said = try window.waitFor("redrawn") { $0["status"]?.stringValue?.contains("did not complete") == true }
        #expect(said["status"]?.stringValue?.contains("The notification was dismissed.") == true
                || window.logged.contains { $0["status"]?.stringValue?.contains("The notification was dismissed.") == true },
                "\(window.logged)")
        #expect(window.process.isRunning)
    }

    @Test func aKilledWindowLeavesTheServerAnswering() throws {
        let rig = try serving("invite-kill")
        let window = try ShowProcess(rig, "invite-kill")
        _ = try window.waitFor("redrawn") { $0["loading"] == .bool(false) }
        window.process.stop(with: SIGKILL)
        #expect(window.process.ending?.bySignal == true)
        let pong = try rig.client().call("server.ping", .object([]))
        #expect(pong != .null)
        // Another window opens the same interface again.
        let again = try ShowProcess(rig, "invite-kill")
        _ = try again.waitFor("redrawn") { $0["loading"] == .bool(false) }
    }

    @Test func withoutADisplayItSaysSoInOneLineAndExits78() throws {
        let rig = try serving("invite-nodisplay")
        // No DISPLAY, no WAYLAND_DISPLAY: the environment is only this.
        let log = rig.directory.file("show-nodisplay.log")
        let show = try BackgroundProcess(Locations.product("tidings"), ["show", "invite-nodisplay", "--socket", rig.socket],
                                         environment: ["HOME": rig.directory.path, "NO_COLOR": "1"], log: log)
        #expect(show.waitUntilExit())
        #expect(show.ending?.status == 78, "\(rig.text(of: log))")
        let lines = rig.text(of: log).split(separator: "\n").filter { $0.hasPrefix("tidings show:") }
        #expect(lines.count == 1 && lines[0].contains("display"), "\(rig.text(of: log))")
    }

    @Test func showMoreOnTheDesktopOpensTheWindowOnceAndSurvivesItsCrash() throws {
        let rig = try serving("invite-more")
        try rig.startDesktop(environment: ["DISPLAY": rig.session.display.name])
        _ = try rig.waitFor("synchronised")
        let shown = try rig.waitFor("shown", identifier: "invite-more")
        let open = try #require(shown["actions"]?.objectMembers?.first { $0.1 == .string("open") }?.0,
                                "no action opens the interface: \(shown)")
        try rig.chooseInMenu(open)
        _ = try rig.waitFor("window", identifier: "invite-more") { $0["window"] == .string("started") }
        let drawn = try rig.waitFor("window", identifier: "invite-more") { $0["window"] == .string("redrawn") }
        #expect(drawn["line"]?["viewHeight"] == .integer(320), "\(drawn)")
        // The window's own process: killed, it takes neither the front end nor the server with it.
        let window = ShowProcessID(rig: rig, identifier: "invite-more")
        let pid = try window.pid()
        kill(pid, SIGKILL)
        let ended = try rig.waitFor("window", identifier: "invite-more") { $0["window"] == .string("ended") }
        #expect(ended["signal"] == .integer(Int64(SIGKILL)))
        #expect(rig.desktop?.isRunning == true)
        _ = try rig.client().call("server.ping", .object([]))
    }

    @Test func aTextInputActionOnDunstOpensTheWindowToTypeIn() throws {
        // dunst takes no inline reply: "Comment" is offered all the same, and opens the window at its field.
        let rig = try serving("invite-reply")
        try rig.startDesktop(environment: ["DISPLAY": rig.session.display.name])
        _ = try rig.waitFor("synchronised")
        let shown = try rig.waitFor("shown", identifier: "invite-reply")
        #expect(shown["actions"]?["comment"] == .string("type:comment"), "\(shown)")
        try rig.chooseInMenu("comment")
        let ready = try rig.waitFor("window", identifier: "invite-reply") { line in
            line["window"] == .string("redrawn") && line["line"]?["loading"] == .bool(false)
                && line["line"]?["controls"]?.arrayValue?.contains {
                    $0["name"] == .string("Add a comment") && $0["kind"] == .string("textInput")
                } == true
        }
        let field = try #require(ready["line"]?["controls"]?.arrayValue?.first { $0["kind"] == .string("textInput") })
        let frame = (field["frame"]?.arrayValue ?? []).compactMap(\.integerValue)
        try #require(frame.count == 4)
        let display = ["DISPLAY": rig.session.display.name]
        let xdotool = try #require(ProcessRunner.which("xdotool"))
        let id = try window(named: "invite-reply", on: rig.session.display)
        _ = try ProcessRunner.run(xdotool, ["mousemove", "--window", id, "\(frame[0] + frame[2] / 2)", "\(frame[1] + frame[3] / 2)",
                                            "click", "1", "type", "--window", id, "Count me in"],
                                  environment: display, deadline: patience)
        // The response dismisses the notification: the window may be gone before xdotool is done.
        _ = try ProcessRunner.run(xdotool, ["key", "--window", id, "Return"], environment: display, deadline: patience)
        let answered = try rig.waitFor("window", identifier: "invite-reply") { $0["window"] == .string("answered") }
        #expect(answered["line"]?["userText"] == .string("Count me in"), "\(answered)")
        #expect(answered["line"]?["receiver"] == .string("extension"))
    }

    @Test func showMoreWithoutADisplayFallsBackToText() throws {
        let rig = try serving("invite-text")
        try rig.startDesktop()
        _ = try rig.waitFor("synchronised")
        let shown = try rig.waitFor("shown", identifier: "invite-text")
        let open = try #require(shown["actions"]?.objectMembers?.first { $0.1 == .string("open") }?.0)
        try rig.chooseInMenu(open)
        _ = try rig.waitFor("window", identifier: "invite-text") { $0["window"] == .string("unavailable") }
        _ = try rig.waitFor("opened", identifier: "invite-text")
    }

    /// The pid of the window of `identifier` (GTK sets `_NET_WM_PID`).
    struct ShowProcessID {
        let rig: FrontEndRig
        let identifier: String

        func pid() throws -> Int32 {
            let id = try window(named: identifier, on: rig.session.display)
            var pid: Int32?
            _ = eventually {
                pid = (try? ProcessRunner.run(ProcessRunner.which("xdotool")!, ["getwindowpid", id],
                                              environment: ["DISPLAY": rig.session.display.name], deadline: patience))
                    .flatMap { Int32($0.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) }
                return pid != nil
            }
            return try #require(pid, "no window of \(identifier) with a pid")
        }
    }
}

/// The X id of the window whose title names `identifier` on `display`, once
/// it is there (xdotool, polled; `context` says more when it never is).
func window(named identifier: String, on display: VirtualDisplay, or context: String = "") throws -> String {
    var id: String?
    _ = eventually {
        id = (try? ProcessRunner.run(ProcessRunner.which("xdotool")!, ["search", "--name", identifier],
                                     environment: ["DISPLAY": display.name], deadline: patience))?
            .standardOutput.split(separator: "\n").first.map(String.init)
        return id != nil
    }
    return try #require(id, "no window named \(identifier) on \(display.name); \(context)")
}

/// `tidings desktop`'s windows (`WindowProcesses`) with a stand-in for `tidings show`: a script that
/// logs a line, then stops (or exits as told), so that each way a window ends is seen.
@Suite struct WindowProcessesTests {
    let directory = TemporaryDirectory("window-processes")

    /// A stand-in that logs `{"event":"shown","pid":PID}` and then exits with `status`, or stops itself when nil.
    private func standIn(exiting status: Int32?) throws -> String {
        let path = try directory.write("""
            #!/bin/sh
            printf '{"event":"shown","identifier":"%s","pid":%d}\\n' "$2" $$
            \(status.map { "exit \($0)" } ?? "kill -STOP $$")
            """, to: "show-\(status.map(String.init) ?? "stop").sh")
        chmod(path, 0o755)
        return path
    }

    /// Services the windows' pipes until `until` holds of what they reported; everything reported.
    private func reports(of windows: WindowProcesses, until done: ([WindowProcesses.Report]) -> Bool) -> [WindowProcesses.Report] {
        var reports: [WindowProcesses.Report] = []
        _ = eventually {
            var descriptors = windows.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&descriptors, nfds_t(descriptors.count), 100)
            for ready in descriptors where ready.revents != 0 { reports += windows.service(ready.fd) }
            return done(reports)
        }
        return reports
    }

    @Test func oneWindowPerNotificationItsLinesRelayedAndItsKillReaped() throws {
        let windows = WindowProcesses(executable: try standIn(exiting: nil), socketPath: directory.file("tidings.sock"))
        #expect(try windows.open(NotificationKey(app: "com.example.events", identifier: "invite-1")))
        #expect(try !windows.open(NotificationKey(app: "com.example.events", identifier: "invite-1")), "a second Show More started a second window")
        #expect(windows.isOpen(NotificationKey(app: "com.example.events", identifier: "invite-1")))
        let lines = reports(of: windows) { $0.contains { if case .line = $0 { true } else { false } } }
        guard case .line(let key, let line)? = lines.first else {
            Issue.record("no line relayed: \(lines)")
            return
        }
        #expect(key.identifier == "invite-1" && key.app == "com.example.events")
        let pid = try #require(line["pid"]?.integerValue)
        kill(Int32(pid), SIGKILL)
        let ended = reports(of: windows) { $0.contains { if case .ended = $0 { true } else { false } } }
        guard case .ended(_, let status, let signal)? = ended.last else {
            Issue.record("the window's end was not reported: \(ended)")
            return
        }
        #expect(status == nil && signal == SIGKILL)
        #expect(!windows.isOpen(NotificationKey(app: "com.example.events", identifier: "invite-1")))
        // Reaped: no child is left to wait for.
        var left: Int32 = 0
        #expect(waitpid(Int32(pid), &left, WNOHANG) == -1)
    }

    @Test func aWindowThatClosesItsOutputAndGoesOnIsEndedNotWaitedFor() throws {
        let path = try directory.write("""
            #!/bin/sh
            printf '{"event":"shown","identifier":"%s","pid":%d}\\n' "$2" $$
            exec 1>&-
            kill -STOP $$
            """, to: "show-closing.sh")
        chmod(path, 0o755)
        let windows = WindowProcesses(executable: path, socketPath: directory.file("tidings.sock"))
        #expect(try windows.open(NotificationKey(app: "com.example.events", identifier: "invite-3")))
        // The front end's loop services the pipe's end; it must not block on a window that still runs.
        let ended = reports(of: windows) { $0.contains { if case .ended = $0 { true } else { false } } }
        guard case .ended(let key, let status, let signal)? = ended.last else {
            Issue.record("the window's end was not reported: \(ended)")
            return
        }
        #expect(key.identifier == "invite-3" && key.app == "com.example.events" && status == nil && signal == SIGKILL)
        #expect(!windows.isOpen(NotificationKey(app: "com.example.events", identifier: "invite-3")))
    }

    @Test func aWindowThatCannotShowEndsWithTheNoWindowStatus() throws {
        let windows = WindowProcesses(executable: try standIn(exiting: WindowProcesses.noWindowStatus),
                                      socketPath: directory.file("tidings.sock"))
        #expect(try windows.open(NotificationKey(app: "com.example.events", identifier: "invite-2")))
        let ended = reports(of: windows) { $0.contains { if case .ended = $0 { true } else { false } } }
        guard case .ended(let key, let status, let signal)? = ended.last else {
            Issue.record("the window's end was not reported: \(ended)")
            return
        }
        #expect(key.identifier == "invite-2" && key.app == "com.example.events" && status == WindowProcesses.noWindowStatus && signal == nil)
    }
}
