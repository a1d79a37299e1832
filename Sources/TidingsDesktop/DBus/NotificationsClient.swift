/// A typed client of the desktop notification server
/// (`org.freedesktop.Notifications`, the Desktop Notifications Specification),
/// over a connection the caller owns.
package struct NotificationsClient: Sendable {
    /// The server's bus name.
    package var destination = "org.freedesktop.Notifications"
    /// The server's object.
    package static let path = "/org/freedesktop/Notifications"
    /// The server's interface.
    package static let interface = "org.freedesktop.Notifications"

    /// A client of the server at `destination`.
    package init(destination: String = "org.freedesktop.Notifications") {
        self.destination = destination
    }

    /// What GetServerInformation answers.
    package struct ServerInformation: Hashable, Sendable {
        /// The product (`dunst`, `gnome-shell`).
        package var name: String
        /// Who makes it.
        package var vendor: String
        /// The product's version.
        package var version: String
        /// The Desktop Notifications Specification's version it implements (`1.2`).
        package var specificationVersion: String

        /// The four strings, in GetServerInformation's order.
        package init(name: String, vendor: String, version: String, specificationVersion: String) {
            self.name = name
            self.vendor = vendor
            self.version = version
            self.specificationVersion = specificationVersion
        }
    }

    /// The server's name, vendor, version and the specification's version it implements.
    /// - Parameter timeout: microseconds; 0 is sd-bus's default (25 s).
    package func serverInformation(on bus: borrowing BusConnection, timeout: UInt64 = 0) throws(BusError) -> ServerInformation {
        try bus.call(destination, Self.path, Self.interface, "GetServerInformation", timeout: timeout) {
            (reply: borrowing MessageReader) throws(BusError) in
            ServerInformation(name: try reply.readString(), vendor: try reply.readString(),
                              version: try reply.readString(), specificationVersion: try reply.readString())
        }
    }

    /// The optional features the server supports (`actions`, `body-markup`, `inline-reply`, …).
    /// - Parameter timeout: microseconds; 0 is sd-bus's default (25 s).
    package func capabilities(on bus: borrowing BusConnection, timeout: UInt64 = 0) throws(BusError) -> [String] {
        try bus.call(destination, Self.path, Self.interface, "GetCapabilities", timeout: timeout) {
            (reply: borrowing MessageReader) throws(BusError) in try reply.readStrings()
        }
    }

    /// Shows `notification` (or replaces the one it names).
    /// - Returns: the server's id of the notification.
    package func notify(_ notification: DesktopNotification, on bus: borrowing BusConnection) throws(BusError) -> UInt32 {
        try bus.call(destination, Self.path, Self.interface, "Notify", arguments: Self.notifyArguments(notification),
                     reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readUInt32() })
    }

    /// Closes the notification `id`; the server then emits NotificationClosed with reason 3.
    package func closeNotification(_ id: UInt32, on bus: borrowing BusConnection) throws(BusError) {
        try bus.call(destination, Self.path, Self.interface, "CloseNotification", arguments: Self.closeArguments(id),
                     reply: { (_: borrowing MessageReader) in })
    }

    /// `notify` without waiting: `completion` gets the server's id later,
    /// inside `processPending` (see `BusConnection.callAsync`).
    /// - Parameter timeout: microseconds; 0 is sd-bus's default (25 s), `UInt64.max` none.
    package func notify(_ notification: DesktopNotification, timeout: UInt64, on bus: borrowing BusConnection,
                        completion: @escaping (borrowing BusConnection, Result<UInt32, BusError>) -> Void) throws(BusError) {
        try bus.callAsync(destination, Self.path, Self.interface, "Notify", timeout: timeout,
                          arguments: Self.notifyArguments(notification),
                          reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readUInt32() },
                          completion: completion)
    }

    /// `closeNotification` without waiting: `completion` runs later, inside
    /// `processPending` (see `BusConnection.callAsync`).
    /// - Parameter timeout: microseconds; 0 is sd-bus's default (25 s), `UInt64.max` none.
    package func closeNotification(_ id: UInt32, timeout: UInt64, on bus: borrowing BusConnection,
                                   completion: @escaping (borrowing BusConnection, Result<Void, BusError>) -> Void)
        throws(BusError) {
        try bus.callAsync(destination, Self.path, Self.interface, "CloseNotification", timeout: timeout,
                          arguments: Self.closeArguments(id), reply: { (_: borrowing MessageReader) in },
                          completion: completion)
    }

    /// Notify's arguments: `susssasa{sv}i`.
    private static func notifyArguments(_ notification: DesktopNotification)
        -> (borrowing MessageWriter) throws(BusError) -> Void {
        { (message: borrowing MessageWriter) throws(BusError) in
            try message.append(notification.appName)
            try message.append(notification.replacesID)
            try message.append(notification.appIcon)
            try message.append(notification.summary)
            try message.append(notification.body)
            try message.append(notification.actions.flatMap { [$0.key, $0.label] })
            try message.append(dictionary: notification.hints)
            try message.append(notification.expireTimeout)
        }
    }

    /// CloseNotification's argument: `u` the id.
    private static func closeArguments(_ id: UInt32) -> (borrowing MessageWriter) throws(BusError) -> Void {
        { (message: borrowing MessageWriter) throws(BusError) in try message.append(id) }
    }

    /// Calls `handler` with each ActionInvoked, NotificationClosed and
    /// NotificationReplied signal on the server's object and interface, and
    /// its sender's unique name, on the connection's thread (inside
    /// `processPending`/`run`). Signals whose arguments do not have the
    /// specification's types are ignored. The sender is not checked: sd-bus
    /// lets a match on a well-known sender through from any unique name, so
    /// any connection can send these (to this one's unique name). A caller
    /// that acts on them compares the sender with the name's owner
    /// (`BusDaemonClient.nameOwner`).
    package func subscribe(on bus: borrowing BusConnection,
                           _ handler: @escaping (NotificationSignal, _ sender: String?) -> Void) throws(BusError) {
        try bus.subscribe(sender: destination, path: Self.path, interface: Self.interface) { (message: borrowing MessageReader) in
            if let signal = try? NotificationSignal(message) { handler(signal, message.sender) }
        }
    }
}

/// A notification to show: Notify's arguments.
package struct DesktopNotification: Hashable, Sendable {
    /// An action: the key the server reports back, and the label it shows.
    package struct Action: Hashable, Sendable {
        /// What ActionInvoked reports; `default` is the notification itself.
        package var key: String
        /// What the server shows.
        package var label: String
        /// The action `key`, shown as `label`.
        package init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    /// The sending app's name, as the server shows it.
    package var appName: String
    /// The id of a notification to replace; 0 for a new one.
    package var replacesID: UInt32 = 0
    /// An icon name or `file://` URI; empty for none.
    package var appIcon: String = ""
    /// The one-line title.
    package var summary: String
    /// The text under it (some servers take a little markup).
    package var body: String = ""
    /// The actions, in order (Notify sends them flat: key, label, key, label, …).
    package var actions: [Action] = []
    /// Hints such as `urgency` (byte), `category`, `desktop-entry` (string), `x-kde-reply-placeholder-text`.
    package var hints: [String: BusValue] = [:]
    /// Milliseconds; -1 lets the server decide, 0 never expires.
    package var expireTimeout: Int32 = -1

    /// A notification of `appName` with `summary` and the defaults for the rest.
    package init(appName: String, summary: String, body: String = "", actions: [Action] = [],
                 hints: [String: BusValue] = [:], expireTimeout: Int32 = -1) {
        self.appName = appName
        self.summary = summary
        self.body = body
        self.actions = actions
        self.hints = hints
        self.expireTimeout = expireTimeout
    }
}

/// What the notification server reports about a notification it showed.
package enum NotificationSignal: Hashable, Sendable {
    /// The user chose the action `actionKey` ("default" for the notification itself).
    case actionInvoked(id: UInt32, actionKey: String)
    /// The notification went away, for `reason`.
    case closed(id: UInt32, reason: CloseReason)
    /// The user answered with `text` (the `inline-reply` capability).
    case replied(id: UInt32, text: String)

    /// NotificationClosed's reason.
    package struct CloseReason: RawRepresentable, Hashable, Sendable {
        /// The number the server sent.
        package var rawValue: UInt32
        /// The reason numbered `rawValue`.
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        /// It timed out.
        package static let expired = CloseReason(rawValue: 1)
        /// The user dismissed it.
        package static let dismissed = CloseReason(rawValue: 2)
        /// CloseNotification closed it.
        package static let closedByCall = CloseReason(rawValue: 3)
        /// The server gave no reason.
        package static let undefined = CloseReason(rawValue: 4)
    }

    /// The signal in `message`; nil for another member of the interface.
    init?(_ message: borrowing MessageReader) throws(BusError) {
        switch message.member {
        case "ActionInvoked": self = .actionInvoked(id: try message.readUInt32(), actionKey: try message.readString())
        case "NotificationClosed":
            self = .closed(id: try message.readUInt32(), reason: CloseReason(rawValue: try message.readUInt32()))
        case "NotificationReplied": self = .replied(id: try message.readUInt32(), text: try message.readString())
        default: return nil
        }
    }
}
