/// A typed client of an application's `org.freedesktop.Application`
/// interface (the freedesktop Desktop Entry Specification's D-Bus
/// activation): what a notification's action starts in its app.
package struct ApplicationClient: Sendable {
    /// The interface an app exports at `path`.
    package static let interface = "org.freedesktop.Application"
    /// The app's bus name, its desktop file id (`org.example.Reminders`).
    package var busName: String
    /// The object path: the bus name with `.` as `/` and `-` as `_`.
    package var path: String { "/" + busName.replacing(".", with: "/").replacing("-", with: "_") }

    /// A client of the app that owns `busName`.
    package init(busName: String) {
        self.busName = busName
    }

    /// Activates the app (brings it up), with `platformData` such as
    /// `activation-token` and `desktop-startup-id`.
    package func activate(platformData: [String: BusValue] = [:], on bus: borrowing BusConnection) throws(BusError) {
        try bus.call(busName, path, Self.interface, "Activate", arguments: Self.activateArguments(platformData),
                     reply: { (_: borrowing MessageReader) in })
    }

    /// Runs the app's action `name` with an optional `parameter`.
    package func activateAction(_ name: String, parameter: BusValue? = nil, platformData: [String: BusValue] = [:],
                                on bus: borrowing BusConnection) throws(BusError) {
        try bus.call(busName, path, Self.interface, "ActivateAction",
                     arguments: Self.actionArguments(name, parameter, platformData),
                     reply: { (_: borrowing MessageReader) in })
    }

    /// `activate` without waiting: `completion` runs later, inside
    /// `processPending` (see `BusConnection.callAsync`). D-Bus activation may
    /// be starting the app meanwhile.
    /// - Parameter timeout: microseconds; 0 is sd-bus's default (25 s).
    package func activate(platformData: [String: BusValue] = [:], timeout: UInt64 = 0, on bus: borrowing BusConnection,
                          completion: @escaping (borrowing BusConnection, Result<Void, BusError>) -> Void)
        throws(BusError) {
        try bus.callAsync(busName, path, Self.interface, "Activate", timeout: timeout,
                          arguments: Self.activateArguments(platformData),
                          reply: { (_: borrowing MessageReader) in }, completion: completion)
    }

    /// `activateAction` without waiting: `completion` runs later, inside
    /// `processPending` (see `BusConnection.callAsync`), with the unique name
    /// (`:1.42`) of the connection that answered: the one the action went to.
    /// D-Bus activation may be starting the app meanwhile.
    /// - Parameter timeout: microseconds; 0 is sd-bus's default (25 s).
    package func activateAction(_ name: String, parameter: BusValue? = nil, platformData: [String: BusValue] = [:],
                                timeout: UInt64 = 0, on bus: borrowing BusConnection,
                                completion: @escaping (borrowing BusConnection, Result<String, BusError>) -> Void)
        throws(BusError) {
        try bus.callAsync(busName, path, Self.interface, "ActivateAction", timeout: timeout,
                          arguments: Self.actionArguments(name, parameter, platformData),
                          reply: { (reply: borrowing MessageReader) in reply.sender ?? "" }, completion: completion)
    }

    /// Activate's arguments: `a{sv}` platform data.
    private static func activateArguments(_ platformData: [String: BusValue])
        -> (borrowing MessageWriter) throws(BusError) -> Void {
        { (message: borrowing MessageWriter) throws(BusError) in try message.append(dictionary: platformData) }
    }

    /// ActivateAction's arguments: `s` the action, `av` its parameter (none or one), `a{sv}` platform data.
    private static func actionArguments(_ name: String, _ parameter: BusValue?, _ platformData: [String: BusValue])
        -> (borrowing MessageWriter) throws(BusError) -> Void {
        { (message: borrowing MessageWriter) throws(BusError) in
            try message.append(name)
            try message.append(variants: parameter.map { [$0] } ?? [])
            try message.append(dictionary: platformData)
        }
    }
}
