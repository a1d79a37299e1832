import TidingsBase

/// The front end's connection to the session bus and the notification
/// server on it: the one owner of the `BusConnection`, the server's
/// capabilities, and the signals it sent that wait to be handled.
///
/// Signals and the answers to Notify and CloseNotification are queued
/// inside `processPending`, in the order they came, and handled after it
/// returns (`takeArrivals`), so that no call is made from inside sd-bus's
/// dispatch. Notify and CloseNotification are asynchronous and never given
/// up (a notification server that answers late still shows what it was
/// sent, and its id must be known): the front end says when one is late
/// (its `--call-deadline`) and goes on meanwhile. The calls made while
/// connecting wait at most that deadline.
package final class DesktopBus {
    /// The connection.
    package let connection: BusConnection
    /// The notification server's client.
    package let notifications: NotificationsClient
    /// What the notification server can show.
    package let capabilities: ServerCapabilities
    /// Its name and version, for the log.
    package let information: NotificationsClient.ServerInformation
    /// The bus's id (`GetId`): with `owner`, which notification server the desktop ids are of.
    package let busID: String
    /// The unique name (`:1.42`) of the notification server's connection:
    /// only its signals are handled.
    package let owner: String
    private let queue = SignalQueue()
    /// The well-known name the front end owns on the bus: one per session,
    /// and the sender apps accept `tidings.response` from.
    package static let busName = "org.tidings.Desktop"

    /// What came from the notification server: a signal, or the answer to a call (what to do with it).
    package enum Arrival {
        case signal(NotificationSignal)
        case answer(() -> Void)
    }

    /// The signals and answers received, in order, waiting to be handled.
    private final class SignalQueue {
        var arrivals: [Arrival] = []
        /// The notification server's unique name, once known: signals of others are dropped.
        var owner: String?
        /// True once the notification server's name changed owner (it quit, or another took its place).
        var ownerChanged = false
    }

    /// Connects to the bus at `address` and asks the notification server
    /// `name` what it can show, subscribing to its signals first. Only the
    /// signals of the connection that owns `name` once it answered are
    /// handled: any other connection can send a signal that looks like its
    /// (sd-bus lets a match on a well-known sender through from any unique
    /// name), and must not answer or dismiss in the user's place.
    /// - Throws: `dbus.no-session-bus` when the bus cannot be reached;
    ///   `dbus.call-failed` when no notification server answers.
    /// - Parameter deadline: how long each call made while connecting may take, in microseconds.
    package init(address: String, notificationsName name: String, deadline: UInt64, library: SDBusLibrary) throws(BusError) {
        connection = try BusConnection(address: address, description: "tidings-desktop", library: library)
        // One front end per session: a second would show every notification twice. Apps
        // check that a response comes from this name's owner (Docs/reference/desktop-activation.md).
        do throws(BusError) {
            try connection.requestName(Self.busName)
        } catch {
            guard error.code == BusError.nameTaken else { throw error }
            throw BusError(BusError.nameTaken, "another tidings desktop runs on this session bus (it owns \(Self.busName)): "
                           + "one front end shows a session's notifications")
        }
        notifications = NotificationsClient(destination: name)
        try notifications.subscribe(on: connection) { [queue] signal, sender in
            // Before the owner is known nothing is dispatched: signals wait inside sd-bus until `processPending`.
            if let owner = queue.owner, sender == owner { queue.arrivals.append(.signal(signal)) }
        }
        // Only a change away from the owner recorded (a D-Bus activation that
        // started the server while it was asked has no old owner).
        try BusDaemonClient.followOwner(of: name, on: connection) { [queue] old, _ in
            if let owner = queue.owner, old == owner { queue.ownerChanged = true }
        }
        // Asking may start the server (D-Bus activation): its owner is asked for after.
        information = try notifications.serverInformation(on: connection, timeout: deadline)
        owner = try BusDaemonClient.nameOwner(name, on: connection)
        busID = try BusDaemonClient.busID(on: connection)
        queue.owner = owner
        capabilities = ServerCapabilities(try notifications.capabilities(on: connection, timeout: deadline))
        // The portal's backend is a part of the front end that may be missing (another backend owns its name).
        do throws(BusError) {
            portal = try PortalBackend(on: connection)
            portalProblem = nil
        } catch {
            portal = nil
            portalProblem = error.message
        }
    }

    /// The notification portal's backend on this connection; nil when it could not be set up.
    let portal: PortalBackend?
    /// Why `portal` is nil.
    let portalProblem: String?

    /// Reads and dispatches what the bus sent; the signals among it wait in `takeSignals`.
    /// At most `Self.messagesPerTurn`, so that a flood on the bus does not
    /// starve the server's connection: `busy` then says more may be ready.
    package func processPending() throws(BusError) {
        busy = try connection.processPending(maximum: Self.messagesPerTurn)
    }

    /// The most messages `processPending` handles at once.
    static let messagesPerTurn = 64
    /// True when `processPending` stopped at `messagesPerTurn`: the loop comes back without waiting.
    package private(set) var busy = false

    /// The signals and answers received since the last call, in order.
    package func takeArrivals() -> [Arrival] {
        defer { queue.arrivals = [] }
        return queue.arrivals
    }

    /// True when the notification server's name changed owner since the bus
    /// was connected: the ids it gave belong to a server that is gone.
    package var ownerChanged: Bool { queue.ownerChanged }

    /// Shows `notification`, replacing `replacing` when given, without
    /// waiting: `completion` gets the server's id for it, from `takeArrivals`.
    /// It never runs when the connection goes first.
    package func notify(_ notification: DesktopNotification, replacing: UInt32?,
                        completion: @escaping (Result<UInt32, BusError>) -> Void) throws(BusError) {
        var sent = notification
        sent.replacesID = replacing ?? 0
        try notifications.notify(sent, timeout: UInt64.max, on: connection) { [queue] _, result in
            queue.arrivals.append(.answer { completion(result) })
        }
    }

    /// Closes the notification `desktopID` (the server answers with
    /// NotificationClosed, reason 3) without waiting: `completion` runs from `takeArrivals`.
    package func close(_ desktopID: UInt32, completion: @escaping (Result<Void, BusError>) -> Void) throws(BusError) {
        try notifications.closeNotification(desktopID, timeout: UInt64.max, on: connection) { [queue] _, result in
            queue.arrivals.append(.answer { completion(result) })
        }
    }
}
