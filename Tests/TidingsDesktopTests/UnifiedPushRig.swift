import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase

/// True when the UnifiedPush tests can run: a private bus, and Debian's python3 with gi for the distributor.
let canRunUnifiedPush: Bool = {
    guard canStartBus else { return false }
    guard (try? ProcessRunner.run(debianPython, ["-c", "from gi.repository import Gio"]))?.status == 0 else {
        print("SKIPPING the UnifiedPush tests: no python3-gi at \(debianPython) (apt-get install python3-gi; .ci/run installs it)")
        return false
    }
    return true
}()

/// What a UnifiedPush test of the front end runs: a private session bus, a
/// scripted Tidings server (`tidings-server-double.py`, the protocol peer,
/// recording every call), the distributor double
/// (`unifiedpush-distributor.py`) when asked for, and `tidings desktop
/// --json` between them. No notification server: the connector does not need one.
final class UnifiedPushRig: @unchecked Sendable {
    let directory = TemporaryDirectory("tidings-push")
    let bus: PrivateBus
    let server: ScriptedDouble
    private(set) var distributor: ScriptedDouble?
    private(set) var desktop: BackgroundProcess?
    var socket: String { directory.file("tidings.sock") }
    var desktopLogPath: String { directory.file("desktop.log") }
    /// The distributor's bus name.
    static let distributorName = "org.unifiedpush.Distributor.test"

    /// The log of the distributor D-Bus activation starts (`activatable`).
    var activatedLog: String { directory.file("activated.log") }

    /// The bus and the server double, its push.list answering `registrations`.
    /// With `activatable`, the bus has a service file for the distributor
    /// double: D-Bus activation starts it when its name is called, logging to `activatedLog`.
    init(registrations: [JSON] = [], activatable: Bool = false) throws {
        var services: [String: String] = [:]
        if activatable {
            let fifo = directory.file("activated.fifo")
            try #require(mkfifo(fifo, 0o600) == 0)
            let script = Locations.repositoryFile("Tests/Fixtures/UnifiedPush/unifiedpush-distributor.py")
            services[Self.distributorName] = "/bin/sh -c 'exec \(debianPython) \(script) \"$DBUS_STARTER_ADDRESS\" \(fifo) "
                + "\(directory.file("activated.json")) >> \(directory.file("activated.log")) 2>&1'"
        }
        bus = try PrivateBus(services: services)
        server = try ScriptedDouble("tidings-server-double.py", [directory.file("tidings.sock"), ScriptedDouble.fifoArgument],
                                    label: "server", in: directory)
        try server.waitFor("ready")
        if !registrations.isEmpty { try setRegistrations(registrations) }
    }

    deinit {
        desktop?.stop(with: SIGKILL)
    }

    /// A registration as push.list answers it.
    static func registration(_ token: String, app: String = "org.example.chat") -> JSON {
        .object([("app", .string(app)), ("token", .string(token)), ("endpoint", .null), ("publicKey", .string("")),
                 ("auth", .string("")), ("status", .string("pending")), ("distributor", .null), ("message", .string(""))])
    }

    /// What push.list answers from now on.
    func setRegistrations(_ registrations: [JSON]) throws {
        try server.send("registrations " + JSON.array(registrations).serialized())
        // The FIFO is read in order: a later event comes after the change.
    }

    /// Starts the distributor double speaking `interface` ("2" or "1"); returns once it owns its name.
    @discardableResult
    func startDistributor(interface: String = "2") throws -> ScriptedDouble {
        let double = try ScriptedDouble("unifiedpush-distributor.py",
                                        [bus.address, ScriptedDouble.fifoArgument, directory.file("distributor.json"),
                                         "--interface", interface], label: "distributor", in: directory)
        try double.waitFor("ready")
        distributor = double
        return double
    }

    /// What the activated distributor logged.
    var activatedLines: [JSON] {
        ((try? String(contentsOfFile: activatedLog, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            line.hasPrefix("{") ? try? JSON.parse(Array(line.utf8)) : nil
        }
    }

    /// Starts `tidings desktop --json` on the server double and the bus.
    func startDesktop(_ options: [String] = []) throws {
        desktop = try BackgroundProcess(Locations.product("tidings"),
                                        ["desktop", "--socket", socket, "--bus", bus.address, "--state", directory.file("desktop.json"),
                                         "--geoclue-bus", "off", "--json", "--verbose"] + options,
                                        environment: ["HOME": directory.path, "NO_COLOR": "1"], log: desktopLogPath)
    }

    /// What the front end logged.
    var desktopLog: String { (try? String(contentsOfFile: desktopLogPath, encoding: .utf8)) ?? "" }

    /// The front end's `push` events whose `step` is `step`.
    func pushEvents(_ step: String) -> [JSON] {
        desktopLog.split(separator: "\n").compactMap { line -> JSON? in
            line.hasPrefix("{") ? try? JSON.parse(Array(line.utf8)) : nil
        }.filter { $0["event"] == .string("push") && $0["step"] == .string(step) }
    }

    /// Waits for the front end's `count`-th `push` event of `step` for which `condition` holds.
    @discardableResult
    func waitForPush(_ step: String, count: Int = 1, _ condition: (JSON) -> Bool = { _ in true }) throws -> JSON {
        var found: JSON?
        _ = eventually {
            let matching = pushEvents(step).filter(condition)
            found = matching.count >= count ? matching[count - 1] : nil
            return found != nil || desktop?.isRunning == false
        }
        return try #require(found, "the front end logged no push \(step) #\(count):\n\(desktopLog)")
    }

    /// The calls of `method` the server double received, in order.
    func serverCalls(_ method: String) -> [JSON] {
        server.lines("call") { $0["call"] == .string(method) }
    }

    /// Waits for the `count`-th call of `method` to the server whose params satisfy `condition`; its params.
    @discardableResult
    func waitForServerCall(_ method: String, count: Int = 1, _ condition: (JSON) -> Bool = { _ in true }) throws -> JSON {
        try server.waitFor("call", count: count) { $0["call"] == .string(method) && condition($0["params"] ?? .null) }["params"]
            ?? .null
    }

    /// Sends the event `method` with `params` from the server.
    func serverEvent(_ method: String, _ params: JSON) throws {
        try server.send("event \(method) " + params.serialized())
    }

    /// POSTs `body` to `endpoint` as an app server would (HTTP, as the double's push server takes it).
    func post(_ body: [UInt8], to endpoint: String) throws {
        let file = directory.file("body-\(UUID().uuidString)")
        try Data(body).write(to: URL(fileURLWithPath: file))
        let result = try ProcessRunner.run(debianPython, [Locations.repositoryFile("Tests/Fixtures/UnifiedPush/unifiedpush-distributor.py"),
                                                          "--post", endpoint, file], deadline: patience)
        #expect(result.standardOutput.contains("201"), "the push server answered: \(result.standardOutput) \(result.standardError)")
    }
}
