import TidingsBase

/// What `tidings desktop` is told: where the server and the bus are, how it logs.
package struct FrontEndOptions: Sendable {
    /// The socket of `tidings serve`.
    package var socketPath: String
    /// The D-Bus address of the session bus.
    package var busAddress: String
    /// The bus name of the desktop's notification server.
    package var notificationsName = "org.freedesktop.Notifications"
    /// Where the front end keeps its last `seq` and the desktop ids of what it
    /// shows (`desktop.json`), so that a restart doubles nothing; nil: nowhere.
    package var statePath: String?
    /// Whether to wait for a server that is not there at the start (else fail).
    package var waitForServer = true
    /// One JSON object per line on standard output, beside the human log on standard error.
    package var json = false
    /// Log the details too (each event heard, each call made).
    package var verbose = false
    /// How long a call on the notification server may go unanswered before
    /// the front end says so, in seconds (the call still waits for its answer);
    /// also the longest each call made while connecting to it waits.
    package var callDeadline = 5.0
    /// The D-Bus address of the bus GeoClue2 is on (the system bus), whose
    /// positions feed the server's region requests; nil: the device's position is not followed.
    package var geoclueAddress: String? = nil
    /// GeoClue's bus name there (a test's double may take another).
    package var geoclueName = "org.freedesktop.GeoClue2"

    /// The D-Bus address of the bus the UnifiedPush distributor is on (the
    /// session bus), where the front end is Tidings' connector; nil: no remote notifications.
    package var pushAddress: String? = nil
    /// The distributor to register with when it is on the bus (a bus name, or
    /// what follows `org.unifiedpush.Distributor.`); nil: the one the server
    /// remembers, else the first by name.
    package var pushDistributor: String? = nil

    /// The system bus's address: `DBUS_SYSTEM_BUS_ADDRESS`, else D-Bus's standard socket.
    package static func systemBusAddress(environment: (String) -> String?) -> String {
        environment("DBUS_SYSTEM_BUS_ADDRESS").flatMap { $0.isEmpty ? nil : $0 } ?? "unix:path=/run/dbus/system_bus_socket"
    }

    /// Options for the server at `socketPath` and the bus at `busAddress`.
    package init(socketPath: String, busAddress: String) {
        self.socketPath = socketPath
        self.busAddress = busAddress
    }
}
