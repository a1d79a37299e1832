import Testing
import TestSupport
import TidingsDesktop

/// The Notifications and Application clients against services exported
/// through the wrapper itself, on a private bus: every argument's type and
/// order, and the signals delivered to the callback from the loop.
@Suite(.enabled(if: canStartBus, "needs libsystemd.so.0 and dbus-daemon"))
struct FakeServerTests {
    @Test func notifyCarriesEveryArgumentAndTheSignalsComeBack() throws {
        let bus = try PrivateBus()
        let services = try FakeServices(on: bus)
        let client = try bus.connect()
        defer { try? services.stop(through: client) }
        let notifications = NotificationsClient()
        #expect(try client.uniqueName.hasPrefix(":"))

        let information = try notifications.serverInformation(on: client)
        #expect(information == .init(name: "fake", vendor: "Tidings tests", version: "1.0", specificationVersion: "1.2"))
        #expect(try notifications.capabilities(on: client) == ["actions", "body", "inline-reply"])

        var signals: [NotificationSignal] = []
        try notifications.subscribe(on: client) { signal, _ in signals.append(signal) }
        var sent = DesktopNotification(
            appName: "Reminders", summary: "Stand-up", body: "in 5 minutes",
            actions: [.init(key: "done", label: "Done"), .init(key: "snooze", label: "Snooze")],
            hints: ["urgency": .byte(2), "category": .string("im.received"), "resident": .bool(true),
                    "x-tidings-count": .int32(-3), "x-tidings-bytes": .bytes([0, 1, 255])],
            expireTimeout: 0)
        sent.appIcon = "appointment-soon"
        let id = try notifications.notify(sent, on: client)
        #expect(id == 1)
        #expect(services.recorded { $0.notifications } == [sent])

        #expect(try client.run(until: { signals.count == 2 }, seconds: patience))
        #expect(signals == [.actionInvoked(id: id, actionKey: "done"), .replied(id: id, text: "on my way")])

        try notifications.closeNotification(id, on: client)
        #expect(try client.run(until: { signals.count == 3 }, seconds: patience))
        #expect(signals.last == .closed(id: id, reason: .closedByCall))
    }

    @Test func applicationActivateAndActivateAction() throws {
        let bus = try PrivateBus()
        let services = try FakeServices(on: bus)
        let client = try bus.connect()
        defer { try? services.stop(through: client) }
        let app = ApplicationClient(busName: FakeServices.appName)
        #expect(app.path == "/org/example/Reminders")

        try app.activate(platformData: ["activation-token": .string("t-1")], on: client)
        try app.activateAction("snooze", parameter: .string("reminder-7"),
                               platformData: ["activation-token": .string("t-2")], on: client)
        try app.activateAction("done", on: client)

        #expect(services.recorded { $0.activations } == [["activation-token": .string("t-1")]])
        let actions = services.recorded { $0.actions }
        #expect(actions.map(\.name) == ["snooze", "done"])
        #expect(actions.map(\.parameter) == [[.string("reminder-7")], []])
        #expect(actions.map(\.platformData) == [["activation-token": .string("t-2")], [:]])
    }

    @Test func anErrorAnExportedObjectThrowsReachesTheCallerWithItsName() throws {
        let bus = try PrivateBus()
        let services = try FakeServices(on: bus)
        let client = try bus.connect()
        defer { try? services.stop(through: client) }
        let error = #expect(throws: BusError.self) {
            try ApplicationClient(busName: FakeServices.appName).activateAction("refuse", on: client)
        }
        #expect(error?.code == BusError.callFailed)
        #expect(error?.name == "org.example.Error.Refused")
        #expect(error?.message.contains("not now") == true)
    }

    @Test func aNotifyTheServerRefusesLeavesTheConnectionUp() throws {
        let bus = try PrivateBus()
        let services = try FakeServices(on: bus)
        let client = try bus.connect()
        defer { try? services.stop(through: client) }
        let notifications = NotificationsClient()
        let refusal = #expect(throws: BusError.self) {
            _ = try notifications.notify(DesktopNotification(appName: "a", summary: "refuse"), on: client)
        }
        #expect(refusal?.name == "org.example.Error.Refused")
        #expect(refusal?.closedConnection == false, "a refusal is taken for the bus going away")
        let id = try notifications.notify(DesktopNotification(appName: "a", summary: "shown"), on: client)
        #expect(id > 0)
    }

    @Test func notificationSignalsFromAnotherConnectionAreIgnored() throws {
        let bus = try PrivateBus()
        let services = try FakeServices(on: bus)
        let client = try bus.connect()
        defer { try? services.stop(through: client) }
        let notifications = NotificationsClient()
        var signals: [NotificationSignal] = []
        try notifications.subscribe(on: client) { signal, _ in signals.append(signal) }

        let forger = try bus.connect()
        try forger.emitSignal(NotificationsClient.path, NotificationsClient.interface, "NotificationClosed") {
            (m: borrowing MessageWriter) throws(BusError) in
            try m.append(UInt32(99))
            try m.append(UInt32(2))
        }
        // A round trip to the bus after the signal: the bus has routed it before answering.
        _ = try forger.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId") {
            (reply: borrowing MessageReader) throws(BusError) in try reply.readString()
        }
        // The server's own signal comes after the forged one; only it is delivered.
        try notifications.closeNotification(5, on: client)
        #expect(try client.run(until: { !signals.isEmpty }, seconds: patience))
        try client.processPending()
        #expect(signals == [.closed(id: 5, reason: .closedByCall)])
    }

    @Test func anUnknownMethodOfAnExportedObjectFailsWithItsName() throws {
        let bus = try PrivateBus()
        let services = try FakeServices(on: bus)
        let client = try bus.connect()
        defer { try? services.stop(through: client) }
        let error = #expect(throws: BusError.self) {
            try client.call(NotificationsClient().destination, NotificationsClient.path,
                            NotificationsClient.interface, "Nonexistent") { (_: borrowing MessageReader) in }
        }
        #expect(error?.code == BusError.callFailed)
        #expect(error?.name == "org.freedesktop.DBus.Error.UnknownMethod")
    }
}
