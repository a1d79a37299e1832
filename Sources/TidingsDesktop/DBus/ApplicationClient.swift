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
        try bus.call(busName, path, Self.interface, "Activate", arguments: {
            (message: borrowing MessageWriter) throws(BusError) in try message.append(dictionary: platformData)
        }, reply: { (_: borrowing MessageReader) in })
    }

    /// Runs the app's action `name` with an optional `parameter`.
    package func activateAction(_ name: String, parameter: BusValue? = nil, platformData: [String: BusValue] = [:],
                                on bus: borrowing BusConnection) throws(BusError) {
        try bus.call(busName, path, Self.interface, "ActivateAction", arguments: {
            (message: borrowing MessageWriter) throws(BusError) in
            try message.append(name)
            try message.append(variants: parameter.map { [$0] } ?? [])
            try message.append(dictionary: platformData)
        }, reply: { (_: borrowing MessageReader) in })
    }
}
