import Foundation
import TestSupport
import TidingsDesktop

/// libsystemd's sd-bus, opened once for every test; nil (and the tests that
/// need it skip, loudly) where the machine lacks libsystemd.so.0.
let sdBus: SDBusLibrary? = {
    do {
        return try SDBusLibrary()
    } catch {
        print("SKIPPING D-Bus tests: \(error) (apt-get install libsystemd0; .ci/run installs it)")
        return nil
    }
}()

/// True when the tests can start a private bus: libsystemd and dbus-daemon are there.
let canStartBus: Bool = {
    guard sdBus != nil else { return false }
    guard ProcessRunner.which("dbus-daemon") != nil else {
        print("SKIPPING D-Bus tests: no dbus-daemon (apt-get install dbus-daemon; .ci/run installs it)")
        return false
    }
    return true
}()

/// A private session bus: `dbus-daemon --nofork` listening on a socket in a
/// temporary directory, stopped (by pid) when the value goes away. Its
/// configuration has no service directory but one of its own, holding only
/// the service files the test gives, so that no other name is auto-started
/// (the machine's dunst would be, for the notification server's).
final class PrivateBus: @unchecked Sendable {
    let directory = TemporaryDirectory("tidings-dbus")
    let daemon: BackgroundProcess
    /// The bus's D-Bus address.
    let address: String

    /// Starts the bus; D-Bus activation starts `services` (bus name → the
    /// service file's `Exec` line) when a name of theirs is called. With
    /// `everyUser`, any user may connect (a daemon run as root otherwise
    /// accepts only root): for a notification server run as `nobody`.
    init(services: [String: String] = [:], everyUser: Bool = false) throws {
        let socket = directory.file("bus")
        address = "unix:path=" + socket
        for (name, exec) in services {
            try directory.write("[D-BUS Service]\nName=\(name)\nExec=\(exec)\n", to: "services/\(name).service")
        }
        let serviceDirectory = services.isEmpty ? "" : "<servicedir>\(directory.file("services"))</servicedir>"
        if everyUser { chmod(directory.path, 0o755) }
        let configuration = try directory.write("""
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              \(serviceDirectory)
              <policy context="default">
                \(everyUser ? "<allow user=\"*\"/>" : "")
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """, to: "session.conf")
        daemon = try BackgroundProcess(ProcessRunner.which("dbus-daemon")!,
                                       ["--config-file=" + configuration, "--nofork"],
                                       environment: [:], log: directory.file("dbus-daemon.log"))
        guard BackgroundProcess.wait(forListener: socket) else { throw PrivateBusError.notListening }
    }

    /// A new connection to the bus.
    func connect() throws(BusError) -> BusConnection {
        try BusConnection(address: address, library: sdBus!)
    }

    enum PrivateBusError: Error { case notListening }
}
