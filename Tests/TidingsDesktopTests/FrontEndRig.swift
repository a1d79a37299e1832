import Foundation
import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// A real notification server on a private bus, for `DesktopRig`: dunst on
/// Xvfb (`DunstTests.Session`), mako on a headless sway (`MakoSession`).
protocol NotificationServerSession: AnyObject, Sendable {
    /// The private bus it serves `org.freedesktop.Notifications` on.
    var bus: PrivateBus { get }
}

/// The end-to-end rig on dunst, which most desktop tests use.
typealias FrontEndRig = DesktopRig<DunstTests.Session>

/// Everything an end-to-end test of `tidings desktop` runs: a notification
/// server on a private bus (`session`), `tidings serve` with the EventInvite
/// sample, and `tidings desktop --json` between them. Each is a child
/// process stopped by pid.
final class DesktopRig<Session: NotificationServerSession>: @unchecked Sendable {
    /// The EventInvite sample's app.
    static var app: String { "com.example.events" }
    let directory: TemporaryDirectory
    let session: Session
    private(set) var server: BackgroundProcess?
    private(set) var desktop: BackgroundProcess?
    private var serverRuns = 0
    private var desktopRuns = 0
    var socket: String { directory.file("run/tidings.sock") }
    /// The logs of the front end's runs, in order.
    var desktopLogs: [String] { (0..<desktopRuns).map { directory.file("desktop-\($0 + 1).log") } }
    /// What the front end's runs logged.
    var desktopLog: String { desktopLogs.map(text(of:)).joined() }

    /// A rig in `directory` (where `session` may keep its scripts) on `session`; installs EventInvite.
    init(directory: TemporaryDirectory, session: Session) throws {
        self.directory = directory
        self.session = session
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        _ = try BundleMaker.installSample("EventInvite", in: directory.file("extensions"))
    }

    deinit {
        desktop?.stop(with: SIGKILL)
        server?.stop(with: SIGKILL)
    }

    // MARK: The server

    /// Starts `tidings serve` on the rig's socket and state (`state`, in the
    /// rig's directory; in process unless `isolation` says otherwise: the
    /// front end is what is tested), and registers EventInvite's
    /// categories; with `options` besides.
    func startServer(state: String = "state", isolation: String = "in-process", options: [String] = []) throws {
        serverRuns += 1
        let log = directory.file("serve-\(serverRuns).log")
        let process = try BackgroundProcess(Locations.product("tidings"),
                                            ["serve", "--socket", socket, "--state", directory.file(state),
                                             "--isolation", isolation, "--extensions", directory.file("extensions")] + options,
                                            environment: ["HOME": directory.path, "NO_COLOR": "1"], log: log)
        server = process
        let listening = eventually { !process.isRunning || BackgroundProcess.wait(forListener: socket, seconds: 0) }
        try #require(listening && process.isRunning, "the server did not start: \(text(of: log))")
        let categories = try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Locations.repositoryFile(
            "Plugins/EventInvite/Payloads/categories.json")))), file: nil)
        _ = try client().call("categories.register", categories)
    }

    /// Stops the server with `signal` and waits for it to end.
    func stopServer(with signal: Int32) {
        server?.stop(with: signal)
        server = nil
    }

    /// A new client of the server.
    func client() throws -> RPCClient {
        try RPCClient(path: socket)
    }

    /// Delivers EventInvite's invite.json under `identifier` (for `app`, EventInvite's by default),
    /// with `title` instead of its own when given.
    @discardableResult
    func deliverInvite(_ identifier: String, title: String? = nil, app: String = DesktopRig.app) throws -> JSON {
        var payload = try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Locations.repositoryFile(
            "Plugins/EventInvite/Payloads/invite.json")))), file: nil)
        guard case .object(var members) = payload, case .object(var content)? = payload["content"] else { return .null }
        let image = Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png")
        if let title { content = content.map { $0.0 == "title" ? ($0.0, .string(title)) : $0 } }
        content = content.map { $0.0 == "attachments" ? ($0.0, .array([.object([("identifier", .string("event-image")),
                                                                                  ("path", .string(image))])])) : $0 }
        members = members.map { $0.0 == "content" ? ($0.0, .object(content)) : $0 }
        payload = .object(members)
        return try client().call("notifications.deliver", .object([("payload", payload), ("app", .string(app)),
                                                                   ("identifier", .string(identifier))]))
    }

    // MARK: The front end

    /// Starts `tidings desktop --json` on the rig's server and bus, with
    /// `options` besides (and `environment` too: a `DISPLAY` for its windows).
    func startDesktop(_ options: [String] = [], environment extra: [String: String] = [:]) throws {
        desktopRuns += 1
        desktop = try BackgroundProcess(Locations.product("tidings"),
                                        ["desktop", "--socket", socket, "--bus", session.bus.address,
                                         "--state", directory.file("desktop.json"), "--json"] + options,
                                        environment: extra.merging(["HOME": directory.path, "NO_COLOR": "1"]) { $1 },
                                        log: desktopLogs.last!)
    }

    /// Stops the front end with `signal` and waits for it to end; how it ended.
    @discardableResult
    func stopDesktop(with signal: Int32 = SIGTERM) -> (status: Int32, bySignal: Bool)? {
        desktop?.stop(with: signal)
        defer { desktop = nil }
        return desktop?.ending
    }

    /// Waits until the front end's `--state` file keeps `identifiers` as
    /// shown (it is written after the round that logged them): what a kill -9 leaves.
    func waitForKept(_ identifiers: [String]) {
        #expect(eventually {
            let kept = (try? JSON.parse(Array(text(of: directory.file("desktop.json")).utf8)))?["shown"]?.arrayValue ?? []
            return identifiers.allSatisfy { identifier in
                kept.contains { $0["identifier"]?.stringValue == identifier && ($0["id"]?.integerValue ?? 0) != 0 }
            }
        }, "the front end's state does not keep \(identifiers): \(text(of: directory.file("desktop.json")))")
    }

    /// The front end's JSON log lines so far.
    var logged: [JSON] {
        desktopLog.split(separator: "\n").compactMap { line in
            line.hasPrefix("{") ? try? JSON.parse(Array(line.utf8)) : nil
        }
    }

    /// The logged events named `event`, of `identifier` when given.
    func events(_ event: String, identifier: String? = nil) -> [JSON] {
        logged.filter { $0["event"]?.stringValue == event && (identifier == nil || $0["identifier"]?.stringValue == identifier) }
    }

    /// Waits for an event `event` (of `identifier`) for which `condition` holds; the first.
    func waitFor(_ event: String, identifier: String? = nil, _ condition: (JSON) -> Bool = { _ in true }) throws -> JSON {
        var found: JSON?
        let seen = eventually {
            found = events(event, identifier: identifier).first(where: condition)
            return found != nil || desktop?.isRunning == false
        }
        return try #require(seen ? found : nil, "no \(event) for \(identifier ?? "any") in the front end's log:\n\(desktopLog)")
    }

    /// Sends, from a connection of its own, the notification server's signal
    /// `member` with `arguments` (`dbus-send`'s `type:value`) to every
    /// connection of the bus: what any app on the bus could forge.
    func forgeSignal(_ member: String, _ arguments: String...) throws {
        let send = try #require(ProcessRunner.which("dbus-send"), "no dbus-send (the dbus-bin package, which dbus-daemon needs)")
        let environment = ["DBUS_SESSION_BUS_ADDRESS": session.bus.address]
        let names = try ProcessRunner.run(send, ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                 "org.freedesktop.DBus.ListNames"], environment: environment, deadline: patience)
            .standardOutput.split(separator: "\n").compactMap { line -> String? in
                let parts = line.split(separator: "\"")
                return parts.count >= 2 && parts[1].hasPrefix(":") ? String(parts[1]) : nil
            }
        try #require(!names.isEmpty, "the bus listed no connection")
        for name in names {
            _ = try ProcessRunner.run(send, ["--session", "--type=signal", "--dest=" + name, "/org/freedesktop/Notifications",
                                             "org.freedesktop.Notifications." + member] + arguments,
                                      environment: environment, deadline: patience)
        }
    }

    /// A file's text; "" when it cannot be read.
    func text(of path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}

extension DunstTests.Session: NotificationServerSession {}

/// The rig on dunst: its context menu's `dmenu` a script that picks the
/// action the test names, a rule's script that records each notification it shows.
extension DesktopRig where Session == DunstTests.Session {
    /// A rig whose bus starts `services` (bus name → command) by D-Bus activation.
    convenience init(services: [String: String] = [:]) throws {
        let directory = TemporaryDirectory("desktop-front-end")
        let menu = try directory.write("""
            #!/bin/sh
            # dunst's context menu: record what it offers, pick the line of the action in `choice`
            # (KEY: the first notification's; ID,KEY: that desktop notification's).
            cat > "\(directory.file("menu.txt")).tmp"
            mv "\(directory.file("menu.txt")).tmp" "\(directory.file("menu.txt"))"
            key=$(cat "\(directory.file("choice"))" 2>/dev/null)
            [ -n "$key" ] && grep -F -e ",$key]" -e "[$key]" "\(directory.file("menu.txt"))" | head -n 1
            exit 0
            """, to: "dmenu.sh")
        let record = try directory.write("""
            #!/bin/sh
            # A dunst rule's script: each notification dunst shows, as it shows it.
            printf 'id=%s\\nsummary=%s\\nbody=%s\\nend\\n' "$DUNST_ID" "$DUNST_SUMMARY" "$DUNST_BODY" >> "\(directory.file("shown.txt"))"
            """, to: "record.sh")
        chmod(menu, 0o755)
        chmod(record, 0o755)
        try self.init(directory: directory, session: DunstTests.Session(configuration: """
            [global]
                dmenu = \(menu)
                notification_limit = 0
                history_length = 100
                always_run_script = true
                stack_duplicates = false
            [urgency_low]
                timeout = 0
            [urgency_normal]
                timeout = 0
            [urgency_critical]
                timeout = 0
            [record]
                summary = "*"
                script = \(record)
            """, services: services))
    }

    /// Opens dunst's context menu; the dmenu script picks the action `key` (none: ""; `ID,KEY`: of desktop notification ID).
    func chooseInMenu(_ key: String) throws {
        _ = try directory.write(key, to: "choice")
        try? FileManager.default.removeItem(atPath: directory.file("menu.txt"))
        _ = try session.dunstctl("context")
        #expect(eventually { FileManager.default.fileExists(atPath: directory.file("menu.txt")) },
                "dunst's context menu did not run its dmenu")
    }

    /// What the context menu last offered.
    var menu: String { text(of: directory.file("menu.txt")) }

    /// Each notification dunst showed (its rule's script ran for it): id, summary, body.
    var dunstShowed: [(id: String, summary: String, body: String)] {
        text(of: directory.file("shown.txt")).components(separatedBy: "end\n").compactMap { record in
            var fields: [String: String] = [:]
            var key = ""
            for line in record.split(separator: "\n", omittingEmptySubsequences: false) {
                if let equals = line.firstIndex(of: "="), ["id", "summary", "body"].contains(String(line[..<equals])) {
                    key = String(line[..<equals])
                    fields[key] = String(line[line.index(after: equals)...])
                } else if !key.isEmpty {
                    fields[key, default: ""] += "\n" + line
                }
            }
            guard let id = fields["id"] else { return nil }
            return (id, fields["summary"] ?? "", fields["body"] ?? "")
        }
    }

    /// dunst's history (the notifications it closed): each entry's id, summary and body.
    func dunstHistory() throws -> [(id: Int, summary: String, body: String)] {
        let json = try JSONSerialization.jsonObject(with: Data(try session.dunstctl("history").utf8)) as? [String: Any]
        let entries = ((json?["data"] as? [[Any]])?.first as? [[String: Any]]) ?? []
        return entries.map { entry in
            func field(_ name: String) -> Any? { (entry[name] as? [String: Any])?["data"] }
            return (field("id") as? Int ?? -1, field("summary") as? String ?? "", field("body") as? String ?? "")
        }
    }

    /// How many notifications dunst displays and keeps waiting.
    func dunstOnScreen() throws -> Int {
        let displayed = Int(try session.dunstctl("count", "displayed").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        let waiting = Int(try session.dunstctl("count", "waiting").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        return displayed + waiting
    }
}
