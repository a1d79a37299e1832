import Glibc
import Testing
import TestSupport
import TidingsDesktop

/// The errors a front end shows when D-Bus is not there, or a call fails.
@Suite struct BusErrorTests {
    @Test func aMissingLibraryIsNoLibrary() {
        #expect { try SDBusLibrary(path: "/nonexistent/libsystemd.so.0") } throws: { error in
            (error as? BusError)?.code == BusError.noLibrary
        }
    }

    @Test func aLibraryWithoutSdBusIsNoLibraryNamingTheFunction() throws {
        // libm is on every glibc system and has no sd-bus.
        let error = try #require(throws: BusError.self) { try SDBusLibrary(path: "libm.so.6") }
        #expect(error.code == BusError.noLibrary)
        #expect(error.message.contains("sd_bus_new"))
    }

    @Test func anEmptyEnvironmentHasNoSessionBus() {
        let error = #expect(throws: BusError.self) { try BusConnection.sessionAddress { _ in nil } }
        #expect(error?.code == BusError.noSessionBus)
    }

    @Test func aRuntimeDirectoryWithoutABusSocketHasNoSessionBus() {
        let runtime = TemporaryDirectory("tidings-runtime")
        let error = #expect(throws: BusError.self) {
            try BusConnection.sessionAddress { $0 == "XDG_RUNTIME_DIR" ? runtime.path : nil }
        }
        #expect(error?.code == BusError.noSessionBus)
    }

    @Test func theAddressVariableWinsOverTheRuntimeDirectory() throws {
        let address = try BusConnection.sessionAddress {
            ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/x/bus", "XDG_RUNTIME_DIR": "/nonexistent"][$0]
        }
        #expect(address == "unix:path=/run/x/bus")
    }

    @Test(.enabled(if: canStartBus, "needs libsystemd.so.0 and dbus-daemon"))
    func theSocketInTheRuntimeDirectoryIsTheSessionBus() throws {
        let bus = try PrivateBus()
        // The private bus listens on `bus` in its directory, as a session bus does in $XDG_RUNTIME_DIR.
        let environment: (String) -> String? = { $0 == "XDG_RUNTIME_DIR" ? bus.directory.path : nil }
        #expect(try BusConnection.sessionAddress(environment: environment) == bus.address)
        let connection = try BusConnection(sessionBusWith: sdBus!, environment: environment)
        #expect(try connection.uniqueName.hasPrefix(":"))
        #expect(connection.descriptor >= 0)
        #expect(connection.events & Int16(POLLIN) != 0)
    }

    @Test(.enabled(if: sdBus != nil, "needs libsystemd.so.0"))
    func aBusThatIsNotListeningIsNoSessionBus() throws {
        let directory = TemporaryDirectory("tidings-nobus")
        let error = #expect(throws: BusError.self) {
            _ = try BusConnection(address: "unix:path=" + directory.file("bus"), library: sdBus!)
        }
        #expect(error?.code == BusError.noSessionBus)
    }

    @Test(.enabled(if: canStartBus, "needs libsystemd.so.0 and dbus-daemon"))
    func aCallToANameNobodyOwnsFailsWithTheDBusErrorName() throws {
        let bus = try PrivateBus()
        let connection = try bus.connect()
        let error = #expect(throws: BusError.self) {
            _ = try NotificationsClient().capabilities(on: connection)
        }
        #expect(error?.code == BusError.callFailed)
        #expect(error?.name == "org.freedesktop.DBus.Error.ServiceUnknown")
    }
}
