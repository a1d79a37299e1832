import TidingsBase
import TidingsProtocol

/// A typed client of GeoClue2 (`org.freedesktop.GeoClue2`, on the system
/// bus), over a connection the caller owns; every call asynchronous (see
/// `BusConnection.callAsync`). The Manager hands this connection its client
/// (`GetClient`); the client is told who asks (`DesktopId`), how precisely
/// (`RequestedAccuracyLevel`) and how far the device must move before it
/// says so again (`DistanceThreshold`), then `Start`ed and `Stop`ped; each
/// position is a Location object whose path `LocationUpdated` names.
package struct GeoClueClient: Sendable {
    /// GeoClue's bus name.
    package var destination = "org.freedesktop.GeoClue2"
    /// The Manager's object.
    package static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    /// The Manager's interface.
    package static let managerInterface = "org.freedesktop.GeoClue2.Manager"
    /// A client's interface.
    package static let clientInterface = "org.freedesktop.GeoClue2.Client"
    /// A Location's interface.
    package static let locationInterface = "org.freedesktop.GeoClue2.Location"
    /// The standard properties interface.
    private static let properties = "org.freedesktop.DBus.Properties"

    /// GeoClue's accuracy levels (`GClueAccuracyLevel`).
    package enum AccuracyLevel: UInt32, Sendable {
        /// Country.
        case country = 1
        /// City.
        case city = 4
        /// Neighbourhood.
        case neighborhood = 5
        /// Street.
        case street = 6
        /// As exact as the device can tell (GPS).
        case exact = 8
    }

    /// A client of GeoClue at `destination`.
    package init(destination: String = "org.freedesktop.GeoClue2") {
        self.destination = destination
    }

    /// `Manager.GetClient`: the path of this connection's client (GeoClue makes one per connection).
    package func getClient(on bus: borrowing BusConnection,
                           completion: @escaping (borrowing BusConnection, Result<String, BusError>) -> Void) throws(BusError) {
        try bus.callAsync(destination, Self.managerPath, Self.managerInterface, "GetClient",
                          reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readString("o") },
                          completion: completion)
    }

    /// Sets the property `name` of the client at `client` to `value` (`Properties.Set`).
    package func set(_ name: String, to value: BusValue, client: String, on bus: borrowing BusConnection,
                     completion: @escaping (borrowing BusConnection, Result<Void, BusError>) -> Void) throws(BusError) {
        try bus.callAsync(destination, client, Self.properties, "Set", arguments: {
            (message: borrowing MessageWriter) throws(BusError) in
            try message.append(Self.clientInterface)
            try message.append(name)
            try message.append(variant: value)
        }, reply: { (_: borrowing MessageReader) in }, completion: completion)
    }

    /// `Client.Start` (`start` true) or `Client.Stop` of the client at `client`.
    package func run(_ start: Bool, client: String, on bus: borrowing BusConnection,
                     completion: @escaping (borrowing BusConnection, Result<Void, BusError>) -> Void) throws(BusError) {
        try bus.callAsync(destination, client, Self.clientInterface, start ? "Start" : "Stop",
                          reply: { (_: borrowing MessageReader) in }, completion: completion)
    }

    /// The Location object at `path`, read from GeoClue (`Properties.GetAll`)
    /// and checked (`location(from:)`).
    package func location(at path: String, on bus: borrowing BusConnection,
                          completion: @escaping (borrowing BusConnection, Result<LocationUpdate, BusError>) -> Void)
        throws(BusError) {
        try bus.callAsync(destination, path, Self.properties, "GetAll", arguments: {
            (message: borrowing MessageWriter) throws(BusError) in try message.append(Self.locationInterface)
        }, reply: { (reply: borrowing MessageReader) throws(BusError) in
            try Self.location(from: try reply.readDictionary())
        }, completion: completion)
    }

    /// The position a Location's properties say: `Latitude`, `Longitude` and
    /// `Accuracy` (metres), each a double, in range (`LocationUpdate`).
    /// - Throws: `dbus.unexpected-reply` when one is missing, not a double, or out of range.
    package static func location(from properties: [String: BusValue]) throws(BusError) -> LocationUpdate {
        guard case .double(let latitude)? = properties["Latitude"], case .double(let longitude)? = properties["Longitude"],
              case .double(let accuracy)? = properties["Accuracy"] else {
            throw BusError(BusError.unexpectedReply, "GeoClue's location lacks a Latitude, Longitude or Accuracy (doubles)")
        }
        do throws(Diagnostic) {
            return try LocationUpdate(latitude: latitude, longitude: longitude, accuracy: accuracy)
        } catch {
            throw BusError(BusError.unexpectedReply, "GeoClue's location is refused: \(error.message)")
        }
    }

    /// Calls `handler` with the new Location's path of each `LocationUpdated(o old, o new)`
    /// of the client at `client`, and the signal's sender. The sender is not
    /// checked (any connection can send it): the position is read from
    /// GeoClue itself (`location(at:)`, a call to its name), never taken from the signal.
    package func subscribe(client: String, on bus: borrowing BusConnection,
                           _ handler: @escaping (_ location: String, _ sender: String?) -> Void) throws(BusError) {
        try bus.subscribe(sender: destination, path: client, interface: Self.clientInterface, member: "LocationUpdated") {
            (message: borrowing MessageReader) in
            guard (try? message.readString("o")) != nil, let new = try? message.readString("o") else { return }
            handler(new, message.sender)
        }
    }
}
