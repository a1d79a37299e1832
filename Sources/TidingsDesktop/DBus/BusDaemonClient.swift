/// A typed client of the bus itself (`org.freedesktop.DBus`, which the bus
/// daemon answers): who owns a name, which names D-Bus activation can start.
/// The calls with a completion are asynchronous (it runs inside
/// `processPending`); `nameOwner` and `busID` block, for connecting.
package enum BusDaemonClient {
    /// The bus's own name, which is also its interface's.
    package static let name = "org.freedesktop.DBus"
    /// The bus's object.
    package static let path = "/org/freedesktop/DBus"

    /// Whether some connection owns `busName` now (`NameHasOwner`).
    package static func nameHasOwner(_ busName: String, on bus: borrowing BusConnection,
                                     completion: @escaping (borrowing BusConnection, Result<Bool, BusError>) -> Void)
        throws(BusError) {
        try bus.callAsync(name, path, name, "NameHasOwner", arguments: {
            (message: borrowing MessageWriter) throws(BusError) in try message.append(busName)
        }, reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readBool() }, completion: completion)
    }

    /// The names D-Bus activation can start: those of the bus's service
    /// files (`ListActivatableNames`).
    package static func activatableNames(on bus: borrowing BusConnection,
                                         completion: @escaping (borrowing BusConnection, Result<[String], BusError>) -> Void)
        throws(BusError) {
        try bus.callAsync(name, path, name, "ListActivatableNames",
                          reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readStrings() },
                          completion: completion)
    }

    /// A round trip to the bus (`GetId`): `completion` runs once the bus
    /// answered, inside `processPending`. For work that must happen later,
    /// on the loop, rather than inside the caller.
    package static func roundTrip(on bus: borrowing BusConnection,
                                  completion: @escaping (borrowing BusConnection, Result<Void, BusError>) -> Void)
        throws(BusError) {
        try bus.callAsync(name, path, name, "GetId", reply: { (_: borrowing MessageReader) in }, completion: completion)
    }

    /// The unique name (`:1.42`) of the connection that owns `busName` now (`GetNameOwner`).
    /// - Throws: `dbus.call-failed` (`org.freedesktop.DBus.Error.NameHasNoOwner`) when none does.
    package static func nameOwner(_ busName: String, on bus: borrowing BusConnection) throws(BusError) -> String {
        try bus.call(name, path, name, "GetNameOwner", arguments: {
            (message: borrowing MessageWriter) throws(BusError) in try message.append(busName)
        }, reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readString() })
    }

    /// Calls `handler` with the old and new owner (unique names; "" for
    /// none) each time `busName` changes owner (`NameOwnerChanged`), on the
    /// connection's thread. Only the bus itself is believed: the same signal
    /// sent by any other connection is ignored.
    package static func followOwner(of busName: String, on bus: borrowing BusConnection,
                                    _ handler: @escaping (_ old: String, _ new: String) -> Void) throws(BusError) {
        try bus.subscribe(sender: name, path: path, interface: name, member: "NameOwnerChanged") {
            (message: borrowing MessageReader) in
            guard message.sender == name, (try? message.readString()) == busName,
                  let old = try? message.readString(), let new = try? message.readString() else { return }
            handler(old, new)
        }
    }

    /// The bus's id (`GetId`): another bus (the next login's) has another.
    package static func busID(on bus: borrowing BusConnection) throws(BusError) -> String {
        try bus.call(name, path, name, "GetId", reply: { (reply: borrowing MessageReader) throws(BusError) in
            try reply.readString()
        })
    }
}

extension BusDaemonClient {
    /// `nameOwner` without waiting: `completion` gets the unique name, or
    /// `dbus.call-failed` (`NameHasNoOwner`), inside `processPending`.
    package static func nameOwner(_ busName: String, on bus: borrowing BusConnection,
                                  completion: @escaping (borrowing BusConnection, Result<String, BusError>) -> Void)
        throws(BusError) {
        try bus.callAsync(name, path, name, "GetNameOwner", arguments: {
            (message: borrowing MessageWriter) throws(BusError) in try message.append(busName)
        }, reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readString() }, completion: completion)
    }
}

extension BusDaemonClient {
    /// The names connections own on the bus now, well-known and unique (`ListNames`).
    package static func listNames(on bus: borrowing BusConnection,
                                  completion: @escaping (borrowing BusConnection, Result<[String], BusError>) -> Void)
        throws(BusError) {
        try bus.callAsync(name, path, name, "ListNames",
                          reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readStrings() },
                          completion: completion)
    }

    /// Calls `handler` with the name, old and new owner ("" for none) each
    /// time a name beginning with `prefix` changes owner (`NameOwnerChanged`),
    /// on the connection's thread. Only the bus itself is believed, as in `followOwner`.
    package static func followOwners(prefix: String, on bus: borrowing BusConnection,
                                     _ handler: @escaping (_ busName: String, _ old: String, _ new: String) -> Void)
        throws(BusError) {
        try bus.subscribe(sender: name, path: path, interface: name, member: "NameOwnerChanged") {
            (message: borrowing MessageReader) in
            guard message.sender == name, let busName = try? message.readString(), busName.hasPrefix(prefix),
                  let old = try? message.readString(), let new = try? message.readString() else { return }
            handler(busName, old, new)
        }
    }
}
