import Foundation
import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// End to end with the real `tidings serve`: an app's `push.register`, the
/// front end registering its token with the distributor double, the
/// endpoint reaching the app as `push.new-endpoint`, a message encrypted by
/// pywebpush for the registration's keys POSTed to the endpoint and
/// delivered as a notification of the app; a tampered and an oversized one
/// refused with the server's reasons.
@Suite(.serialized, .enabled(if: canRunUnifiedPush && webPushPython != nil, "needs the D-Bus tests' tools and pywebpush"))
struct UnifiedPushServerTests {
    static let app = "org.example.pushed"

    @Test func aMessagePywebpushSentBecomesANotificationOfTheApp() throws {
        let directory = TemporaryDirectory("tidings-push-server")
        let bus = try PrivateBus()
        let socket = directory.file("run/tidings.sock")
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        let server = try BackgroundProcess(Locations.product("tidings"),
                                           ["serve", "--socket", socket, "--state", directory.file("state"),
                                            "--isolation", "in-process", "--extensions", directory.file("extensions")],
                                           environment: ["HOME": directory.path, "NO_COLOR": "1"], log: directory.file("serve.log"))
        defer { server.stop(with: SIGKILL) }
        try #require(eventually { !server.isRunning || BackgroundProcess.wait(forListener: socket, seconds: 0) } && server.isRunning)
        let distributor = try ScriptedDouble("unifiedpush-distributor.py",
                                             [bus.address, ScriptedDouble.fifoArgument, directory.file("distributor.json")],
                                             label: "distributor", in: directory)
        try distributor.waitFor("ready")
        let desktop = try BackgroundProcess(Locations.product("tidings"),
                                            ["desktop", "--socket", socket, "--bus", bus.address, "--state",
                                             directory.file("desktop.json"), "--geoclue-bus", "off", "--json", "--verbose"],
                                            environment: ["HOME": directory.path, "NO_COLOR": "1"], log: directory.file("desktop.log"))
        defer { desktop.stop(with: SIGKILL) }
        let log = { (try? String(contentsOfFile: directory.file("desktop.log"), encoding: .utf8)) ?? "" }
        try #require(eventually { log().contains("\"step\":\"distributor\"") || !desktop.isRunning }, "\(log())")

        let events = try RPCClient(path: socket)
        _ = try events.call("events.subscribe", .object([("apps", .string("all"))]))
        let registered = try RPCClient(path: socket).call("push.register", .object([("app", .string(Self.app))]))
        let token = try #require(registered["token"]?.stringValue, "\(registered)")
        let publicKey = try #require(registered["publicKey"]?.stringValue), auth = try #require(registered["auth"]?.stringValue)
        let new = try #require(try events.event("push.new-endpoint"), "no push.new-endpoint: \(log())")
        #expect(new["params"]?["token"] == .string(token) || new["token"] == .string(token), "\(new)")
        let register = try distributor.waitFor("call") { $0["call"] == .string("Register") }
        #expect(register["token"] == .string(token) && register["service"] == .string("org.tidings.Push"))
        let endpoint = try #require(distributor.lines("sent") { $0["sent"] == .string("NewEndpoint") }.last?["endpoint"]?.stringValue)

        let payload = #"{"aps":{"alert":{"title":"Pushed","body":"through UnifiedPush"}}}"#
        let sent = try JSON.parse(Array(try webPush("webpush-send.py", ["--endpoint", endpoint, "--public-key=" + publicKey,
                                                                        "--auth=" + auth, "--payload", payload]).utf8))
        #expect(sent["status"] == .integer(201), "\(sent)")
        let delivered = try #require(try events.event("notification.delivered"), "nothing delivered: \(log())")
        #expect("\(delivered)".contains("Pushed"), "\(delivered)")

        // Tampered: one byte of the ciphertext flipped. Oversized: beyond Web Push's 4,096 bytes.
        let body = directory.file("body.bin")
        _ = try webPush("webpush-send.py", ["--endpoint", endpoint, "--public-key=" + publicKey, "--auth=" + auth,
                                            "--payload", payload, "--encrypt-only", body])
        var tampered = [UInt8](try Data(contentsOf: URL(fileURLWithPath: body)))
        tampered[tampered.count - 1] ^= 0x01
        try postRaw(tampered, to: endpoint, in: directory)
        try #require(eventually { log().contains("push.undecryptable") || !desktop.isRunning }, "\(log())")
        try postRaw([UInt8](repeating: 7, count: 5_000), to: endpoint, in: directory)
        try #require(eventually { log().contains("push.too-large") || !desktop.isRunning }, "\(log())")
    }

    /// POSTs `bytes` to `endpoint` with the distributor double's sender.
    private func postRaw(_ bytes: [UInt8], to endpoint: String, in directory: TemporaryDirectory) throws {
        let file = directory.file("raw-\(bytes.count)-\(bytes.last ?? 0)")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        _ = try ProcessRunner.run(debianPython, [Locations.repositoryFile("Tests/Fixtures/UnifiedPush/unifiedpush-distributor.py"),
                                                 "--post", endpoint, file], deadline: patience)
    }
}
