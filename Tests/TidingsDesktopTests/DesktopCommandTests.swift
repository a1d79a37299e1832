import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase

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

    @Test(.enabled(if: canStartBus, "needs dbus-daemon and libsystemd"))
    func aSecondFrontEndOnTheSessionSaysSoAndExits75() throws {
        let bus = try PrivateBus()
        // The first front end of the session holds the name.
        let first = try bus.connect()
        try first.requestName("org.tidings.Desktop")
        let result = try desktop(["--socket", directory.file("run/tidings.sock"), "--bus", bus.address, "--no-wait"])
        #expect(result.status == 75)
        #expect(result.standardError.contains("another tidings desktop runs on this session bus"), "\(result.standardError)")
        #expect(result.standardError.contains("dbus.name-taken"), "\(result.standardError)")
    }

    @Test(.enabled(if: canStartBus, "needs dbus-daemon and libsystemd"))
    func aServerOfProtocolVersion1IsRefusedWithExit76() throws {
        let bus = try PrivateBus()
        let socket = directory.file("old/tidings.sock")
        let listener = try UnixSocket.listen(at: socket)
        // A server of before events carried seq (and before server.hello, which it answers -32601,
        // as it answers every method it lacks): it answers server.describe, and nothing else matters.
        let answering = Thread { [descriptor = listener.rawValue] in
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var byte: UInt8 = 0
            while true {
                var line: [UInt8] = []
                while read(client, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
                guard !line.isEmpty else { return }
                let request = try? JSON.parse(line)
                let id = request?["id"] ?? .null
                let answer = request?["method"] == .string("server.describe")
                    ? JSON.object([("jsonrpc", .string("2.0")), ("id", id), ("result", .object([
                        ("name", .string("tidings")), ("protocol", .object([("version", .integer(1)), ("capabilities", .array([]))])),
                    ]))])
                    : JSON.object([("jsonrpc", .string("2.0")), ("id", id), ("error", .object([
                        ("code", .integer(-32601)), ("message", .string("There is no such method.")),
                    ]))])
                _ = (answer.serialized() + "\n").withCString { write(client, $0, strlen($0)) }
            }
        }
        answering.start()
        let result = try desktop(["--socket", socket, "--bus", bus.address, "--no-wait"])
        #expect(result.status == 76)
        #expect(result.standardError.contains("protocol version 1"), "\(result.standardError)")
        withExtendedLifetime(listener) {}
    }
}
