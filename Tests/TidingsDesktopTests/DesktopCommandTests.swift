import Foundation
import Testing
import TestSupport

/// `tidings desktop` as a command: its help, and the exit codes of what it
/// cannot do without (a bus, a server with --no-wait).
@Suite struct DesktopCommandTests {
    let directory = TemporaryDirectory("desktop-command")

    private func desktop(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(Locations.product("tidings"), ["desktop"] + arguments,
                              environment: ["HOME": directory.path, "NO_COLOR": "1"], deadline: patience)
    }

    @Test func helpNamesEveryOptionAndTheLogEvents() throws {
        let help = try desktop(["--help"]).standardOutput
        for option in ["--socket", "--bus", "--notifications-name", "--state", "--no-wait", "--json", "--verbose"] {
            #expect(help.contains(option), "--help does not name \(option)")
        }
        for event in ["shown", "closed", "responded", "reconnected", "degraded"] { #expect(help.contains(event)) }
    }

    @Test func withoutABusItSaysSoAndExits71() throws {
        let result = try desktop(["--socket", directory.file("run/tidings.sock"), "--bus", "unix:path=" + directory.file("no-bus")])
        #expect(result.status == 71)
        #expect(result.standardError.contains("dbus."), "\(result.standardError)")
    }

    @Test(.enabled(if: canStartBus, "needs dbus-daemon and libsystemd"))
    func withNoWaitAndNoServerItExits75() throws {
        let bus = try PrivateBus()
        let result = try desktop(["--socket", directory.file("run/tidings.sock"), "--bus", bus.address, "--no-wait"])
        #expect(result.status == 75)
        #expect(result.standardError.contains("No server listens at \(directory.file("run/tidings.sock"))"))
    }
}
