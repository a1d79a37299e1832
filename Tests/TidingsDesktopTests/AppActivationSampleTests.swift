import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsDesktop

/// The sample app tidings-events-app on its own: what it answers and
/// records, and that it leaves when idle, as D-Bus activatable apps do.
@Suite struct AppActivationSampleTests {
    static let sample = Locations.product("tidings-events-app")

    @Test func helpNamesEveryOptionAndAWrongArgumentIsAUsageError() throws {
        let help = try ProcessRunner.run(Self.sample, ["--help"])
        #expect(help.status == 0)
        for option in ["--bus", "--record", "--idle", "--json", "com.example.events", "/com/example/events"] {
            #expect(help.standardOutput.contains(option), "--help lacks \(option)")
        }
        let wrong = try ProcessRunner.run(Self.sample, ["--idle", "soon"])
        #expect(wrong.status == 64)
        #expect(wrong.standardError.contains("--idle"))
    }

    @Test(.enabled(if: canStartBus, "needs libsystemd.so.0 and dbus-daemon"))
    func itAcceptsResponsesFromTheDesktopFrontEndOnly() throws {
        let scratch = TemporaryDirectory("tidings-sample-app")
        let record = scratch.file("calls.jsonl")
        let bus = try PrivateBus(services: ["com.example.events": "\(Self.sample) --record \(record) --idle \(Int(patience))"])
        let app = ApplicationClient(busName: "com.example.events")
        let response = BusValue.dictionary(["notification": .string("invite-offsite-2026"), "action": .string("accept")])
        // Another process on the bus makes up a response: refused, not recorded.
        let stranger = try bus.connect()
        let refused = #expect(throws: BusError.self) {
            try app.activateAction("tidings.response", parameter: response, on: stranger)
        }
        #expect(refused?.name == "org.freedesktop.DBus.Error.AccessDenied")
        let recorded = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
        #expect(recorded.isEmpty, "\(recorded)")
        // The front end (the owner of org.tidings.Desktop) is heard, though it came after the app started.
        let frontEnd = try bus.connect()
        try frontEnd.requestName("org.tidings.Desktop")
        try app.activateAction("tidings.response", parameter: response, on: frontEnd)
        let calls = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").map { try JSON.parse(Array($0.utf8)) }
        #expect(calls.count == 1)
        #expect(calls.first?["parameter"]?["action"] == .string("accept"))
    }

    @Test(.enabled(if: canStartBus, "needs libsystemd.so.0 and dbus-daemon"))
    func itRecordsEachCallOfTheApplicationInterfaceAndLeavesWhenIdle() throws {
        let scratch = TemporaryDirectory("tidings-sample-app")
        let record = scratch.file("calls.jsonl")
        let bus = try PrivateBus(services: ["com.example.events": "\(Self.sample) --record \(record) --idle 1"])
        let client = try bus.connect()
        let app = ApplicationClient(busName: "com.example.events")
        #expect(app.path == "/com/example/events")

        // Each call starts it again if it left meanwhile: the record keeps every call.
        try app.activate(platformData: ["activation-token": .string("token-1")], on: client)
        try client.call(app.busName, app.path, ApplicationClient.interface, "Open", arguments: {
            (message: borrowing MessageWriter) throws(BusError) in
            try message.append(["file:///tmp/invite.ics"])
            try message.append(dictionary: [:])
        }, reply: { (_: borrowing MessageReader) in })
        try app.activateAction("show-calendar", on: client)
        let calls = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
            .map { try JSON.parse(Array($0.utf8)) }
        #expect(calls.map { $0["method"] } == [.string("Activate"), .string("Open"), .string("ActivateAction")])
        #expect(calls[0]["platformData"]?["activation-token"] == .string("token-1"))
        #expect(calls[1]["uris"] == .array([.string("file:///tmp/invite.ics")]))
        #expect(calls[2]["action"] == .string("show-calendar"))
        #expect(calls[2]["parameter"] == .null)

        // Another interface's method is not its: UnknownMethod.
        let error = #expect(throws: BusError.self) {
            try client.call(app.busName, app.path, "org.example.Other", "Activate", arguments: {
                (message: borrowing MessageWriter) throws(BusError) in try message.append(dictionary: [:])
            }, reply: { (_: borrowing MessageReader) in })
        }
        #expect(error?.name == "org.freedesktop.DBus.Error.UnknownMethod")

        // A second without calls, and it has left: the name has no owner.
        #expect(eventually {
            (try? client.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                              arguments: { (message: borrowing MessageWriter) throws(BusError) in
                                  try message.append("com.example.events")
                              }, reply: { (reply: borrowing MessageReader) throws(BusError) in try reply.readBool() }))
                == false
        })
    }
}
