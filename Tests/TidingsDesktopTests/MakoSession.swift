import Foundation
import Glibc
import TestSupport

/// True when mako can run here: sway (its Wayland compositor, headless),
/// mako, and makoctl with the busctl it calls; setpriv too when the tests
/// run as root, since sway refuses to run as root.
let canRunMako: Bool = {
    guard canStartBus else { return false }
    let needed = ["sway", "mako", "makoctl", "busctl"] + (getuid() == 0 ? ["setpriv"] : [])
    let missing = needed.filter { ProcessRunner.which($0) == nil }
    if !missing.isEmpty {
        print("SKIPPING the mako tests: no \(missing.joined(separator: ", ")) "
              + "(apt-get install mako-notifier sway systemd util-linux; .ci/run installs them)")
    }
    return missing.isEmpty
}()

/// mako on a headless sway, on a private bus: the second real notification
/// server the front end is tested on. sway and mako run as `nobody` when
/// the tests run as root (sway will not run as root), so the bus lets every
/// user connect; their runtime directory (`XDG_RUNTIME_DIR`, where sway puts
/// its Wayland socket) belongs to whoever runs them. Each is stopped by pid.
final class MakoSession: NotificationServerSession, @unchecked Sendable {
    let bus: PrivateBus
    /// sway's and mako's `XDG_RUNTIME_DIR` and `HOME`, mode 0700.
    let runtime = TemporaryDirectory("tidings-wayland")
    let sway: BackgroundProcess
    let mako: BackgroundProcess

    /// What can keep a session from starting.
    enum SessionError: Error {
        /// sway did not come up headless (it ended, or made no Wayland socket): its log.
        case noCompositor(String)
        /// mako ended, or never answered on the bus: its log.
        case noMako(String)
    }

    /// Starts the bus, sway, then mako, whose configuration keeps every
    /// notification on screen until it is closed.
    init() throws {
        bus = try PrivateBus(everyUser: true)
        if getuid() == 0 { chown(runtime.path, 65534, 65534) }
        let environment = ["HOME": runtime.path, "XDG_RUNTIME_DIR": runtime.path]
        let swayLog = bus.directory.file("sway.log")
        let configuration = try runtime.write("xwayland disable\n", to: "sway.conf")
        sway = try Self.start("sway", ["-c", configuration], log: swayLog, environment: environment.merging(
            ["WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"]) { $1 })
        var display: String?
        let directory = runtime.path
        let sway = sway
        eventually {
            display = Self.waylandSocket(in: directory)
            return !sway.isRunning || display.map { BackgroundProcess.wait(forListener: directory + "/" + $0, seconds: 0) } == true
        }
        guard let display, sway.isRunning else { throw SessionError.noCompositor(Self.text(of: swayLog)) }

        let makoLog = bus.directory.file("mako.log")
        let makoConfiguration = try runtime.write("default-timeout=0\nmax-visible=-1\n", to: "mako.conf")
        mako = try Self.start("mako", ["-c", makoConfiguration], log: makoLog, environment: environment.merging(
            ["WAYLAND_DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 })
        // mako owns its name a moment after it starts: only asking can tell.
        let mako = mako
        let answers = eventually { !mako.isRunning || (try? self.notifications()) != nil }
        guard answers, mako.isRunning else { throw SessionError.noMako(Self.text(of: makoLog)) }
    }

    /// Starts `program` with `arguments`: as `nobody` through setpriv when the tests run as root.
    private static func start(_ program: String, _ arguments: [String], log: String,
                              environment: [String: String]) throws -> BackgroundProcess {
        let path = ProcessRunner.which(program)!
        guard getuid() == 0 else { return try BackgroundProcess(path, arguments, environment: environment, log: log) }
        return try BackgroundProcess(ProcessRunner.which("setpriv")!,
                                     ["--reuid=65534", "--regid=65534", "--clear-groups", path] + arguments,
                                     environment: environment, log: log)
    }

    /// The name of the Wayland socket sway made in `directory` (`wayland-1`), if any yet.
    private static func waylandSocket(in directory: String) -> String? {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
    }

    /// Runs `makoctl` with `arguments` on the private bus; its output.
    @discardableResult
    func makoctl(_ arguments: String...) throws -> String {
        let result = try ProcessRunner.run(ProcessRunner.which("makoctl")!, arguments,
                                           environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], deadline: patience)
        guard result.status == 0 else { throw MakoctlError(arguments: arguments, message: result.standardError) }
        return result.standardOutput
    }

    /// `makoctl` failed: its arguments and what it said.
    struct MakoctlError: Error {
        let arguments: [String]
        let message: String
    }

    /// A notification mako shows, as `makoctl list` reports it.
    struct Shown {
        let id: Int
        let summary: String
        let body: String
        /// Its actions: key → label.
        let actions: [String: String]
    }

    /// What mako shows now (`makoctl list`: busctl's JSON of `aa{sv}`).
    func notifications() throws -> [Shown] {
        let json = try JSONSerialization.jsonObject(with: Data(try makoctl("list").utf8)) as? [String: Any]
        let entries = ((json?["data"] as? [Any])?.first as? [[String: Any]]) ?? []
        return entries.map { entry in
            func field(_ name: String) -> Any? { (entry[name] as? [String: Any])?["data"] }
            return Shown(id: field("id") as? Int ?? -1, summary: field("summary") as? String ?? "",
                         body: field("body") as? String ?? "", actions: field("actions") as? [String: String] ?? [:])
        }
    }

    /// A file's text; "" when it cannot be read.
    private static func text(of path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Kills mako, then sway, by pid.
    deinit {
        mako.stop(with: SIGKILL)
        sway.stop(with: SIGKILL)
    }
}
