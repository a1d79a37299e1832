import Foundation
import TidingsDesktop

/// A notification server and an app, exported through the wrapper on their
/// own connection and thread (a connection is used from one thread): what
/// they were called with, and the signals a call makes them send.
final class FakeServices: @unchecked Sendable {
    static let appName = "org.example.Reminders"
    static let controlInterface = "org.example.Test"

    private let lock = NSCondition()
    private var ready: Result<Void, BusError>?
    private var stopped = false
    private(set) var notifications: [DesktopNotification] = []
    private(set) var actions: [(name: String, parameter: [BusValue], platformData: [String: BusValue])] = []
    private(set) var activations: [[String: BusValue]] = []

    /// What the notification server answers GetCapabilities with.
    private let capabilities: [String]
    /// The index of the action the user chooses of each notification.
    private let choice: Int

    /// Starts the services on a thread of their own, connected to `bus`, and
    /// returns once they own their names; the notification server advertises
    /// `capabilities`, and the user chooses the action at `choice` of each notification.
    init(on bus: PrivateBus, capabilities: [String] = ["actions", "body", "inline-reply"], choice: Int = 0) throws {
        self.capabilities = capabilities
        self.choice = choice
        // The thread ends when `stop` is called.
        Thread { [self] in serve(bus) }.start()
        let outcome = lock.withLock {
            while ready == nil { lock.wait() }
            return ready!
        }
        try outcome.get()
    }

    /// What was recorded, read under the lock.
    func recorded<T>(_ read: (FakeServices) -> T) -> T { lock.withLock { read(self) } }

    private func finish(_ outcome: Result<Void, BusError>) {
        lock.withLock {
            ready = outcome
            lock.broadcast()
        }
    }

    private func serve(_ bus: PrivateBus) {
        do {
            let server = try bus.connect()
            var pending: [(UInt32, NotificationSignal)] = []
            try server.exportObject(at: NotificationsClient.path) { (call: borrowing MethodCall) throws(BusError) in
                switch call.arguments.member {
                case "GetServerInformation":
                    try call.reply { (reply: borrowing MessageWriter) throws(BusError) in
                        for field in ["fake", "Tidings tests", "1.0", "1.2"] { try reply.append(field) }
                    }
                case "GetCapabilities":
                    try call.reply { (reply: borrowing MessageWriter) throws(BusError) in
                        try reply.append(self.capabilities)
                    }
                case "Notify":
                    var notification = DesktopNotification(appName: try call.arguments.readString(), summary: "")
                    notification.replacesID = try call.arguments.readUInt32()
                    notification.appIcon = try call.arguments.readString()
                    notification.summary = try call.arguments.readString()
                    notification.body = try call.arguments.readString()
                    let flat = try call.arguments.readStrings()
                    notification.actions = stride(from: 0, to: flat.count - 1, by: 2).map {
                        DesktopNotification.Action(key: flat[$0], label: flat[$0 + 1])
                    }
                    notification.hints = try call.arguments.readDictionary()
                    notification.expireTimeout = try call.arguments.readInt32()
                    if notification.summary == "refuse" {
                        throw BusError(BusError.callFailed, name: "org.example.Error.Refused", "not this one")
                    }
                    let id = UInt32(self.recorded { $0.notifications.count } + 1)
                    self.lock.withLock { self.notifications.append(notification) }
                    try call.reply { (reply: borrowing MessageWriter) throws(BusError) in try reply.append(id) }
                    // As if the user chose an action (the first by default), then answered.
                    if notification.actions.indices.contains(self.choice) {
                        pending.append((id, .actionInvoked(id: id, actionKey: notification.actions[self.choice].key)))
                    }
                    pending.append((id, .replied(id: id, text: "on my way")))
                case "CloseNotification":
                    let id = try call.arguments.readUInt32()
                    try call.reply()
                    pending.append((id, .closed(id: id, reason: .closedByCall)))
                default:
                    return
                }
            }
            let appPath = ApplicationClient(busName: Self.appName).path
            try server.exportObject(at: appPath) { (call: borrowing MethodCall) throws(BusError) in
                switch (call.arguments.interface, call.arguments.member) {
                case (ApplicationClient.interface, "Activate"):
                    let platformData = try call.arguments.readDictionary()
                    self.lock.withLock { self.activations.append(platformData) }
                    try call.reply()
                case (ApplicationClient.interface, "ActivateAction"):
                    let action = (try call.arguments.readString(), try call.arguments.readVariants(), try call.arguments.readDictionary())
                    if action.0 == "refuse" {
                        throw BusError(BusError.callFailed, name: "org.example.Error.Refused", "not now")
                    }
                    self.lock.withLock { self.actions.append(action) }
                    try call.reply()
                case (Self.controlInterface, "Stop"):
                    self.lock.withLock { self.stopped = true }
                    try call.reply()
                default:
                    return
                }
            }
            try server.requestName(NotificationsClient().destination)
            try server.requestName(Self.appName)
            finish(.success(()))
            while !recorded({ $0.stopped }) {
                _ = try server.run(until: { !pending.isEmpty || recorded { $0.stopped } }, seconds: 60)
                for (_, signal) in pending { try emit(signal, on: server) }
                pending.removeAll()
            }
        } catch {
            finish(.failure(error))
        }
    }

    private func emit(_ signal: NotificationSignal, on server: borrowing BusConnection) throws(BusError) {
        let path = NotificationsClient.path, interface = NotificationsClient.interface
        switch signal {
        case .actionInvoked(let id, let key):
            try server.emitSignal(path, interface, "ActionInvoked") { (m: borrowing MessageWriter) throws(BusError) in
                try m.append(id)
                try m.append(key)
            }
        case .closed(let id, let reason):
            try server.emitSignal(path, interface, "NotificationClosed") { (m: borrowing MessageWriter) throws(BusError) in
                try m.append(id)
                try m.append(reason.rawValue)
            }
        case .replied(let id, let text):
            try server.emitSignal(path, interface, "NotificationReplied") { (m: borrowing MessageWriter) throws(BusError) in
                try m.append(id)
                try m.append(text)
            }
        }
    }

    /// Stops the thread: a call it answers by leaving its loop.
    func stop(through client: borrowing BusConnection) throws {
        let path = ApplicationClient(busName: Self.appName).path
        try client.call(Self.appName, path, Self.controlInterface, "Stop") { (_: borrowing MessageReader) in }
    }
}
