import TidingsBase

/// The front end's connection to the session bus and the notification
/// server on it: the one owner of the `BusConnection`, the server's
/// capabilities, and the signals it sent that wait to be handled.
///
/// Signals are queued inside `processPending` and handled after it returns
/// (`takeSignals`), so that no Notify call is made from inside sd-bus's
/// dispatch. Notify and CloseNotification are synchronous calls: the
/// notification server is a local process that answers at once, and the
/// front end has nothing else to do meanwhile that cannot wait that long
/// (the server's socket buffers its events); sd-bus times them out (25 s).
package final class DesktopBus {
    /// The connection.
    package let connection: BusConnection
    /// The notification server's client.
    package let notifications: NotificationsClient
    /// What the notification server can show.
    package let capabilities: ServerCapabilities
    /// Its name and version, for the log.
    package let information: NotificationsClient.ServerInformation
    private let queue = SignalQueue()

    /// The signals received, in order, waiting to be handled.
    private final class SignalQueue {
        var signals: [NotificationSignal] = []
        /// True once the notification server's name changed owner (it quit, or another took its place).
        var ownerChanged = false
    }

    /// Connects to the bus at `address` and asks the notification server
    /// `name` what it can show, subscribing to its signals first.
    /// - Throws: `dbus.no-session-bus` when the bus cannot be reached;
    ///   `dbus.call-failed` when no notification server answers.
    package init(address: String, notificationsName name: String, library: SDBusLibrary) throws(BusError) {
        connection = try BusConnection(address: address, description: "tidings-desktop", library: library)
        notifications = NotificationsClient(destination: name)
        try notifications.subscribe(on: connection) { [queue] in queue.signals.append($0) }
        try connection.subscribe(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                 interface: "org.freedesktop.DBus", member: "NameOwnerChanged") {
            [queue] (message: borrowing MessageReader) in
            if (try? message.readString()) == name { queue.ownerChanged = true }
        }
        information = try notifications.serverInformation(on: connection)
        capabilities = ServerCapabilities(try notifications.capabilities(on: connection))
    }

    /// Reads and dispatches what the bus sent; the signals among it wait in `takeSignals`.
    package func processPending() throws(BusError) {
        try connection.processPending()
    }

    /// The signals received since the last call, in order.
    package func takeSignals() -> [NotificationSignal] {
        defer { queue.signals = [] }
        return queue.signals
    }

    /// True when the notification server's name changed owner since the bus
    /// was connected: the ids it gave belong to a server that is gone.
    package var ownerChanged: Bool { queue.ownerChanged }

    /// Shows `notification`, replacing `replacing` when given; the server's id for it.
    package func notify(_ notification: DesktopNotification, replacing: UInt32?) throws(BusError) -> UInt32 {
        var sent = notification
        sent.replacesID = replacing ?? 0
        return try notifications.notify(sent, on: connection)
    }

    /// Closes the notification `desktopID` (the server answers with NotificationClosed, reason 3).
    package func close(_ desktopID: UInt32) throws(BusError) {
        try notifications.closeNotification(desktopID, on: connection)
    }
}
