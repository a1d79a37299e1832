import Foundation
import Testing
import TestSupport
import TidingsDesktop

/// True when a real notification server can run here: dunst and its
/// dunstctl, on an X server of its own (Xvfb).
let canRunDunst: Bool = {
    guard canStartBus else { return false }
    let missing = ["dunst", "dunstctl", "Xvfb"].filter { ProcessRunner.which($0) == nil }
    if !missing.isEmpty {
        print("SKIPPING the dunst tests: no \(missing.joined(separator: ", ")) "
              + "(apt-get install dunst xvfb; .ci/run installs them)")
    }
    return missing.isEmpty
}()

/// The Notifications client against the real dunst, on a private bus and a
/// private X display: what the server shows, and the signals it sends when
/// its own controls act on a notification.
@Suite(.enabled(if: canRunDunst, "needs dunst, dunstctl and Xvfb"))
struct DunstTests {
    /// Xvfb on a free display, and dunst on it and on `bus`, each stopped by pid.
    final class Session: @unchecked Sendable {
        let bus: PrivateBus
        let display: VirtualDisplay
        private(set) var dunst: BackgroundProcess
        /// Starts them; dunst with `configuration` as its dunstrc when given;
        /// the bus starts `services` (bus name → command) by D-Bus activation.
        init(configuration: String? = nil, services: [String: String] = [:]) throws {
            bus = try PrivateBus(services: services)
            if let configuration { _ = try bus.directory.write(configuration, to: ".config/dunst/dunstrc") }
            display = try VirtualDisplay(in: bus.directory.path)
            dunst = try Self.startDunst(bus: bus, number: display.number)
        }

        /// Starts dunst on the display `number` and on `bus`.
        private static func startDunst(bus: PrivateBus, number: Int) throws -> BackgroundProcess {
            try BackgroundProcess(ProcessRunner.which("dunst")!, [],
                                  environment: ["DISPLAY": ":\(number)", "DBUS_SESSION_BUS_ADDRESS": bus.address,
                                                "HOME": bus.directory.path],
                                  log: bus.directory.file("dunst.log"))
        }

        /// Kills dunst and starts another: a notification server that goes away and comes back.
        func restartDunst() throws {
            dunst.stop(with: SIGKILL)
            dunst = try Self.startDunst(bus: bus, number: display.number)
        }

        /// Runs `dunstctl` with `arguments` on the private bus; its output.
        func dunstctl(_ arguments: String...) throws -> String {
            try ProcessRunner.run(ProcessRunner.which("dunstctl")!, arguments,
                                  environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], deadline: patience)
                .standardOutput
        }

        /// Kills dunst by pid (under the test runner it outlives SIGTERM's
        /// patience); the display stops when it goes.
        deinit {
            dunst.stop(with: SIGKILL)
        }
    }

    @Test func notifyActOnAndCloseThroughDunst() throws {
        let session = try Session()
        let client = try session.bus.connect()
        let notifications = NotificationsClient()
        // dunst owns its name a moment after it starts: only asking can tell.
        #expect(eventually { (try? notifications.serverInformation(on: client)) != nil })
        #expect(try notifications.serverInformation(on: client).name == "dunst")
        #expect(try notifications.capabilities(on: client).contains("actions"))

        var signals: [NotificationSignal] = []
        try notifications.subscribe(on: client) { signal, _ in signals.append(signal) }

        let first = try notifications.notify(
            DesktopNotification(appName: "Reminders", summary: "Stand-up", body: "in 5 minutes",
                                actions: [.init(key: "default", label: "Open")],
                                hints: ["urgency": .byte(1), "category": .string("reminder")], expireTimeout: 0),
            on: client)
        #expect(eventually { (try? session.dunstctl("count", "displayed"))?.contains("1") == true })
        _ = try session.dunstctl("action", "0")
        #expect(try client.run(until: { signals.contains(.actionInvoked(id: first, actionKey: "default")) },
                               seconds: patience))

        let second = try notifications.notify(
            DesktopNotification(appName: "Reminders", summary: "Lunch", expireTimeout: 0), on: client)
        #expect(second != first)
        try notifications.closeNotification(second, on: client)
        #expect(try client.run(until: { signals.contains(.closed(id: second, reason: .closedByCall)) },
                               seconds: patience))

        // dunst keeps what it closed in its history, with the summaries it was sent.
        let history = try session.dunstctl("history")
        let json = try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [String: Any]
        let entries = ((json?["data"] as? [[Any]])?.first as? [[String: Any]]) ?? []
        let summaries = entries.compactMap { ($0["summary"] as? [String: Any])?["data"] as? String }
        #expect(summaries.contains("Lunch"))
    }
}
