import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase
import TidingsDesktop

/// Debian's xdg-desktop-portal (1.16), the portal Tidings' backend serves.
let portalDaemon = "/usr/libexec/xdg-desktop-portal"
/// Debian's python3, which has `gi` (the `python3` on PATH may be another without it).
let debianPython = "/usr/bin/python3"

/// True when the portal tests can run: dunst's, xdg-desktop-portal and python3-gi.
let canRunPortal: Bool = {
    guard canRunDunst else { return false }
    guard FileManager.default.isExecutableFile(atPath: portalDaemon),
          (try? ProcessRunner.run(debianPython, ["-c", "import gi; gi.require_version('Gio', '2.0')"]))?.status == 0 else {
        print("SKIPPING the portal tests: no \(portalDaemon) or no python3-gi "
              + "(apt-get install xdg-desktop-portal python3-gi; .ci/run installs them)")
        return false
    }
    return true
}()

/// True when `bwrap` can make a sandbox here (user namespaces allowed, or a setuid bwrap).
let canSandbox: Bool = {
    guard canRunPortal, let bwrap = ProcessRunner.which("bwrap") else { return false }
    let tried = try? ProcessRunner.run(bwrap, ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "/bin/true"])
    if tried?.status != 0 {
        print("SKIPPING the sandboxed portal test: bwrap cannot make a sandbox here (\(tried?.standardError ?? "no bwrap"))")
    }
    return tried?.status == 0
}()

/// An unmodified GNotification (Debian's python3-gi, GLib's portal backend)
/// through Debian's xdg-desktop-portal on a private bus, Tidings' backend
/// (`tidings desktop`), `tidings serve`, and dunst: what it shows, the
/// person's click coming back to the app, its withdrawal.
@Suite(.enabled(if: canRunPortal, "needs dunst, Xvfb, xdg-desktop-portal and python3-gi"), .serialized)
struct PortalTests {
    /// The app id a sandbox vouches for.
    static let app = "org.example.Pills"

    /// The rig with the server and the front end up, and xdg-desktop-portal
    /// started on its bus with only Tidings' `.portal` file.
    final class Portal: @unchecked Sendable {
        let rig: FrontEndRig
        let daemon: BackgroundProcess
        var log: String { rig.directory.file("portal.log") }
        private var apps: [BackgroundProcess] = []

        init() throws {
            rig = try FrontEndRig()
            try rig.startServer()
            try rig.startDesktop()
            _ = try rig.waitFor("portal") { $0["available"] == .bool(true) }
            _ = try rig.waitFor("synchronised")
            let portals = rig.directory.file("portals")
            try FileManager.default.createDirectory(atPath: portals, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Locations.repositoryFile("Packaging/tidings.portal"),
                                             toPath: portals + "/tidings.portal")
            daemon = try BackgroundProcess(portalDaemon, ["--verbose", "--replace"],
                                           environment: ["DBUS_SESSION_BUS_ADDRESS": rig.session.bus.address,
                                                         "XDG_DESKTOP_PORTAL_DIR": portals, "XDG_CURRENT_DESKTOP": "tidings",
                                                         "HOME": rig.directory.path],
                                           log: rig.directory.file("portal.log"))
            try #require(BackgroundProcess.wait(for: "org.freedesktop.portal.Desktop acquired", inFile: log),
                         "xdg-desktop-portal did not start: \(rig.text(of: log))")
            #expect(rig.text(of: log).contains("Using tidings.portal for org.freedesktop.impl.portal.Notification"))
        }

        /// Starts the app script in `mode`, in a Flatpak-like sandbox when `sandboxed`; its log.
        func startApp(_ mode: String, sandboxed: Bool, input: FileHandle? = nil) throws -> (process: BackgroundProcess, log: String) {
            let script = try rig.directory.write(Self.script, to: "pills.py")
            let log = rig.directory.file("app-\(apps.count + 1).log")
            var command = [debianPython, script, mode]
            if sandboxed {
                // As Flatpak makes one: a root of its own with /.flatpak-info naming the app.
                let info = try rig.directory.write("[Application]\nname=\(PortalTests.app)\n", to: "flatpak-info")
                command = [ProcessRunner.which("bwrap")!, "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
                           "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc",
                           "--proc", "/proc", "--dev", "/dev", "--bind", rig.directory.path, rig.directory.path,
                           // The private bus's socket is in its own directory.
                           "--bind", rig.session.bus.directory.path, rig.session.bus.directory.path,
                           "--ro-bind", info, "/.flatpak-info", "--"] + command
            }
            let process = try BackgroundProcess(command[0], Array(command.dropFirst()), environment: [
                "DBUS_SESSION_BUS_ADDRESS": rig.session.bus.address, "HOME": rig.directory.path,
                // GLib 2.74 takes the portal backend when asked to use portals (GTK_USE_PORTAL) and named.
                "GNOTIFICATION_BACKEND": "portal", "GTK_USE_PORTAL": "1", "NO_AT_BRIDGE": "1",
            ], log: log, input: input)
            apps.append(process)
            return (process, log)
        }

        /// Stops what it started, by pid: the apps, the portal; the rig stops the rest.
        deinit {
            for app in apps { app.stop(with: SIGKILL) }
            daemon.stop(with: SIGKILL)
        }

        /// The app: a GApplication of its own id that sends one notification
        /// with two buttons and a default action, unmodified GLib API, and
        /// prints each action activated. Modes: `act` quits after a button's
        /// action; `signal` also prints the portal's ActionInvoked it receives
        /// (a host app's only way back) and quits after it; `withdraw`
        /// withdraws the notification when a line comes on its standard input,
        /// and quits. Each ends by itself: a sandbox's `bwrap` is never signalled.
        static let script = #"""
            import sys
            import gi
            gi.require_version("Gio", "2.0")
            from gi.repository import Gio, GLib

            mode = sys.argv[1]
            app = Gio.Application(application_id="org.example.Pills", flags=Gio.ApplicationFlags.FLAGS_NONE)

            def activated(action, parameter):
                print("activated", action.get_name(), parameter.unpack() if parameter is not None else "", flush=True)
                if mode == "act" and action.get_name() != "open":
                    app.quit()

            for name in ["take", "snooze", "open"]:
                action = Gio.SimpleAction.new(name, GLib.VariantType.new("s"))
                action.connect("activate", activated)
                app.add_action(action)

            def invoked(connection, sender, path, interface, member, parameters):
                identifier, action, parameter = parameters.unpack()
                print("invoked", identifier, action, *parameter, flush=True)
                if mode == "signal":
                    app.quit()

            def withdraw(channel, condition):
                sys.stdin.readline()
                app.withdraw_notification("dose-1")
                print("withdrawn", flush=True)
                # Ends once the withdrawal is sent (a flush of the connection), by itself.
                app.get_dbus_connection().flush_sync(None)
                app.quit()
                return GLib.SOURCE_REMOVE

            def activate(app):
                connection = app.get_dbus_connection()
                connection.signal_subscribe(None, "org.freedesktop.portal.Notification", "ActionInvoked",
                                            "/org/freedesktop/portal/desktop", None, Gio.DBusSignalFlags.NONE, invoked)
                if mode == "withdraw":
                    GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN, withdraw)
                notification = Gio.Notification.new("Dose due")
                notification.set_body("Take one pill with water")
                notification.add_button_with_target("Take", "app.take", GLib.Variant("s", "dose-1"))
                notification.add_button_with_target("Snooze", "app.snooze", GLib.Variant("s", "dose-1"))
                notification.set_default_action_and_target("app.open", GLib.Variant("s", "dose-1"))
                notification.set_priority(Gio.NotificationPriority.HIGH)
                app.send_notification("dose-1", notification)
                print("sent", flush=True)
                app.hold()

            app.connect("activate", activate)
            app.run([sys.argv[0]])
            """#
    }

    /// Waits until the app printed `line` (a whole line).
    func waitForLine(_ line: String, in log: String, portal: Portal) throws {
        let printed = BackgroundProcess.wait(for: line + "\n", inFile: log)
        let logs = "the app did not print \(line): \(portal.rig.text(of: log))\nthe front end:\n\(portal.rig.desktopLog)"
            + "\nthe portal:\n\(portal.rig.text(of: portal.log))"
        try #require(printed, "\(logs)")
    }

    @Test(.enabled(if: canSandbox, "needs bwrap to make a sandbox"))
    func aSandboxedAppsNotificationShowsItsButtonsAndAButtonRunsItsAction() throws {
        let portal = try Portal()
        let rig = portal.rig
        let app = try portal.startApp("act", sandboxed: true)
        // The portal vouched for the app id: the notification is the sandbox's app's, under its own id.
        let delivered = try rig.waitFor("portal-delivered", identifier: "dose-1")
        #expect(delivered["app"] == .string(Self.app))
        #expect(delivered["buttons"] == .integer(2))
        let shown = try rig.waitFor("shown", identifier: "dose-1")
        #expect(shown["app"] == .string(Self.app))
        let desktopID = try #require(shown["desktopID"]?.integerValue)
        #expect(eventually { rig.dunstShowed.contains { $0.id == "\(desktopID)" } }, "dunst did not show it")
        let showed = try #require(rig.dunstShowed.first { $0.id == "\(desktopID)" })
        #expect(showed.summary == "Dose due")
        #expect(showed.body.contains("Take one pill with water"))
        // dunst offers the buttons as actions, and the person picks Snooze.
        try rig.chooseInMenu("button-1")
        #expect(rig.menu.contains("#Take (Dose due) [\(desktopID),button-0]"), "the menu offered: \(rig.menu)")
        #expect(rig.menu.contains("#Snooze (Dose due) [\(desktopID),button-1]"), "the menu offered: \(rig.menu)")
        // The app's own action runs, with its target; the app quits after it.
        try waitForLine("activated snooze dose-1", in: app.log, portal: portal)
        #expect(app.process.waitUntilExit())
        let activated = try rig.waitFor("activated") { $0["identifier"] == .string("dose-1") }
        #expect(activated["action"] == .string("app.snooze"))
        // The log names the connection it went to.
        #expect(activated["to"]?.stringValue?.hasPrefix(":") == true)
        // Taken from the inbox: the app has it.
        #expect(eventually { (try? rig.client().call("inbox.list", .object([("app", .string(Self.app))])))?["entries"]?
            .arrayValue?.isEmpty == true })
    }

    @Test func aHostAppIsTheHostAppsAndItsClickComesBackAsActionInvoked() throws {
        let portal = try Portal()
        let rig = portal.rig
        let app = try portal.startApp("signal", sandboxed: false)
        // xdg-desktop-portal 1.16 names no unsandboxed app: its notifications are the host app's.
        let delivered = try rig.waitFor("portal-delivered", identifier: "dose-1")
        #expect(delivered["app"] == .string("org.freedesktop.portal.host"))
        let shown = try rig.waitFor("shown", identifier: "dose-1")
        let desktopID = try #require(shown["desktopID"]?.integerValue)
        #expect(eventually { rig.dunstShowed.contains { $0.id == "\(desktopID)" } }, "dunst did not show it")
        // The person clicks the notification itself: its default action, as ActionInvoked with its target.
        _ = try rig.session.dunstctl("action", "0")
        try waitForLine("invoked dose-1 app.open dose-1", in: app.log, portal: portal)
        #expect(app.process.waitUntilExit())
        let invoked = try rig.waitFor("portal-invoked") { $0["identifier"] == .string("dose-1") }
        #expect(invoked["action"] == .string("app.open"))
    }

    @Test func withdrawingTheNotificationRemovesItFromTheServerAndTheScreen() throws {
        let portal = try Portal()
        let rig = portal.rig
        let pipe = Pipe()
        let app = try portal.startApp("withdraw", sandboxed: canSandbox, input: pipe.fileHandleForReading)
        let shown = try rig.waitFor("shown", identifier: "dose-1")
        let desktopID = try #require(shown["desktopID"]?.integerValue)
        #expect(eventually { rig.dunstShowed.contains { $0.id == "\(desktopID)" } }, "dunst did not show it")
        pipe.fileHandleForWriting.write(Data("withdraw\n".utf8))
        try waitForLine("withdrawn", in: app.log, portal: portal)
        #expect(app.process.waitUntilExit())
        let removed = try rig.waitFor("portal-removed", identifier: "dose-1")
        #expect(removed["removed"] == .integer(1))
        _ = try rig.waitFor("closed", identifier: "dose-1")
        let listed = try rig.client().call("notifications.list")
        #expect(listed["notifications"]?.arrayValue?.isEmpty == true)
        #expect(eventually { (try? rig.dunstOnScreen()) == 0 })
    }

    @Test func onlyThePortalMayCallTheBackend() throws {
        let portal = try Portal()
        let rig = portal.rig
        // Another connection on the bus claims to be the portal adding an app's notification.
        let impostor = try rig.session.bus.connect()
        var refusal: BusError?
        do throws(BusError) {
            try impostor.call(PortalBackend.busName, PortalBackend.path, PortalBackend.interface, "AddNotification", arguments: {
                (message: borrowing MessageWriter) throws(BusError) in
                try message.append("org.example.Bank")
                try message.append("fraud-1")
                try message.append(dictionary: ["title": .string("Your account is locked")])
            }, reply: { (_: borrowing MessageReader) in })
        } catch {
            refusal = error
        }
        #expect(refusal?.name == "org.freedesktop.DBus.Error.AccessDenied")
        _ = try rig.waitFor("portal-refused")
        let listed = try rig.client().call("notifications.list")
        #expect(listed["notifications"]?.arrayValue?.isEmpty == true)
    }

    /// AddNotification as a connection that owns the portal's name sends it:
    /// `entries` appends the `a{sv}`'s entries; the D-Bus error's name, nil when taken.
    static func add(_ id: String, on connection: borrowing BusConnection,
                    _ entries: @escaping (borrowing MessageWriter) throws(BusError) -> Void) -> String? {
        do throws(BusError) {
            try connection.call(PortalBackend.busName, PortalBackend.path, PortalBackend.interface, "AddNotification", arguments: {
                (message: borrowing MessageWriter) throws(BusError) in
                try message.append("org.example.Pills")
                try message.append(id)
                try message.container("a", "{sv}") { (array: borrowing MessageWriter) throws(BusError) in try entries(array) }
            }, reply: { (_: borrowing MessageReader) in })
            return nil
        } catch {
            return error.name ?? "no name"
        }
    }

    /// One `{sv}` entry of `key` whose variant of `signature` `body` writes.
    static func entry(_ writer: borrowing MessageWriter, _ key: String, _ signature: String,
                      _ body: (borrowing MessageWriter) throws(BusError) -> Void) throws(BusError) {
        try writer.container("e", "sv") { (entry: borrowing MessageWriter) throws(BusError) in
            try entry.append(key)
            try entry.container("v", signature, body)
        }
    }

    @Test func theBackendRefusesHostileNotificationsFromThePortalAndIgnoresStrangeKeys() throws {
        let rig = try FrontEndRig()
        try rig.startServer()
        try rig.startDesktop()
        _ = try rig.waitFor("portal") { $0["available"] == .bool(true) }
        _ = try rig.waitFor("synchronised")
        // This connection plays xdg-desktop-portal: the backend believes the owner of its name.
        let portal = try rig.session.bus.connect()
        try portal.requestName(PortalBackend.portalName)
        let version = try portal.call(PortalBackend.busName, PortalBackend.path, "org.freedesktop.DBus.Properties", "Get",
                                      arguments: { (message: borrowing MessageWriter) throws(BusError) in
                                          try message.append(PortalBackend.interface)
                                          try message.append("version")
                                      }, reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readVariant() })
        #expect(version == .uint32(2))
        // The backend learns the new owner from the bus's signal: a plain notification is taken once it has.
        let title = { (writer: borrowing MessageWriter) throws(BusError) in
            try Self.entry(writer, "title", "s") { (value: borrowing MessageWriter) throws(BusError) in try value.append("Dose due") }
        }
        #expect(eventually { Self.add("plain", on: portal, title) == nil })
        _ = try rig.waitFor("portal-delivered", identifier: "plain")

        let invalid = "org.freedesktop.DBus.Error.InvalidArgs"
        // A title of another type.
        #expect(Self.add("typed", on: portal) { (writer: borrowing MessageWriter) throws(BusError) in
            try Self.entry(writer, "title", "i") { (value: borrowing MessageWriter) throws(BusError) in try value.append(Int32(7)) }
        } == invalid)
        // Buttons that are not dictionaries.
        #expect(Self.add("buttons", on: portal) { (writer: borrowing MessageWriter) throws(BusError) in
            try Self.entry(writer, "buttons", "as") { (value: borrowing MessageWriter) throws(BusError) in try value.append(["Take"]) }
        } == invalid)
        // More buttons than the front end offers.
        #expect(Self.add("many", on: portal) { (writer: borrowing MessageWriter) throws(BusError) in
            try Self.entry(writer, "buttons", "aa{sv}") { (value: borrowing MessageWriter) throws(BusError) in
                try value.container("a", "a{sv}") { (list: borrowing MessageWriter) throws(BusError) in
                    for index in 0...PortalLimits.buttons {
                        try list.append(dictionary: ["label": .string("B\(index)"), "action": .string("app.b")])
                    }
                }
            }
        } == invalid)
        // An empty id.
        #expect(Self.add("", on: portal, title) == invalid)
        // A key of a type no version has, beside a title: ignored, and the rest delivered.
        #expect(Self.add("strange", on: portal) { (writer: borrowing MessageWriter) throws(BusError) in
            try title(writer)
            try Self.entry(writer, "x-strange", "(ii)") { (value: borrowing MessageWriter) throws(BusError) in
                try value.container("r", "ii") { (pair: borrowing MessageWriter) throws(BusError) in
                    try pair.append(Int32(1))
                    try pair.append(Int32(2))
                }
            }
        } == nil)
        let strange = try rig.waitFor("portal-delivered", identifier: "strange")
        #expect(strange["ignored"] == .array([.string("x-strange")]))
        #expect(rig.events("portal-refused").count >= 4)
        let listed = try rig.client().call("notifications.list")
        let identifiers = listed["notifications"]?.arrayValue?.compactMap { $0["notification"]?["identifier"]?.stringValue }
        #expect(identifiers == ["plain", "strange"])
    }
}
