import Foundation
import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// Push registrations across restarts: the token, the keys, the endpoint
/// and the ids of the messages accepted are kept, in a file the user's
/// alone (0600 in a 0700 directory, never through a link).
@Suite struct PushStateTests {
    let push = PushFixture()
    static let app = "org.example.pushed"

    /// The permission bits of `path`, not following a link.
    func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    @Test func aRestartKeepsRegistrationsKeysAndTheIdsSeen() throws {
        try push.start()
        let registration = try push.app(Self.app).call("push.register", nil)
        let frontEnd = try push.frontEnd()
        _ = try frontEnd.call("push.endpoint", .object([("token", registration["token"] ?? .null), ("endpoint", .string("https://push.example.org/1"))]))
        let message = try PushFixture.message(#"{"aps": {"alert": "Before"}}"#, for: registration)
        #expect(try frontEnd.call("push.receive", PushFixture.receive(message, for: registration, id: "m-1"))["display"] == .string("presented"))
        push.stop()

        try push.start()
        let app = try push.app(Self.app)
        let kept = try app.call("push.register", nil)
        #expect(kept["token"] == registration["token"] && kept["publicKey"] == registration["publicKey"] && kept["auth"] == registration["auth"])
        #expect(kept["endpoint"] == .string("https://push.example.org/1") && kept["status"] == .string("registered"), "\(kept)")
        let restarted = try push.frontEnd()
        // The replay is refused across the restart; a new message for the kept keys decrypts.
        let replay = try restarted.call("push.receive", PushFixture.receive(message, for: registration, id: "m-1"))
        #expect(replay["duplicate"] == .bool(true), "\(replay)")
        let after = try PushFixture.message(#"{"aps": {"alert": "After"}}"#, for: kept)
        #expect(try restarted.call("push.receive", PushFixture.receive(after, for: kept, id: "m-2"))["display"] == .string("presented"))
    }

    @Test func theRegistrationsFileIsTheUsersAlone() throws {
        try push.start()
        _ = try push.app(Self.app).call("push.register", nil)
        let file = push.directory + "/registrations.json"
        #expect(mode(file) == 0o600)
        #expect(mode(push.directory) == 0o700)
        let stored = try JSON.parse(Array(try #require(FileManager.default.contents(atPath: file))))
        #expect(stored["registrations"]?.arrayValue?.first?["privateKey"]?.stringValue.flatMap(Base64.decodeURL)?.count == 32)
        push.stop()
        // A link in its place is refused, never followed: push is unavailable, nothing is written through it.
        let elsewhere = push.server.directory.file("elsewhere.json")
        try FileManager.default.moveItem(atPath: file, toPath: elsewhere)
        #expect(symlink(elsewhere, file) == 0)
        try push.start()
        let refused = PushFixture.refusal { try push.app(Self.app).call("push.register", nil) }
        #expect(refused?.code == -32013 && refused?.reason == "push.unavailable", "\(String(describing: refused))")
        let receive = PushFixture.refusal {
            try push.frontEnd().call("push.receive", try PushFixture.json(#"{"token": "0123456789abcdef0123456789abcdef", "message": "AAAA"}"#))
        }
        #expect(receive?.code == -32013 && receive?.reason == "push.unavailable")
        #expect(push.logged.withLock { $0 }.contains { $0.message.contains("Remote notifications are refused") })
        var info = stat()
        #expect(lstat(file, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
    }

    @Test func serveKeepsThemInItsStateDirectory() throws {
        let server = try push.server.startProcess(.inProcess, options: ["--push-burst", "5", "--push-rate", "2/s"])
        let client = try push.server.client()
        _ = try client.call("server.hello", .object([("role", .string("app")), ("app", .string(Self.app))]))
        let registration = try client.call("push.register", nil)
        let limits = try push.server.client().call("server.describe", nil)["limits"]
        #expect(limits?["pushBurst"] == .integer(5) && limits?["pushRate"]?.doubleValue == 2, "\(String(describing: limits))")
        #expect(limits?["pushMessageSize"] == .integer(4_096) && limits?["pushMessageIDs"] == .integer(1_024))
        server.stop()
        let file = push.server.directory.file("state/push/registrations.json")
        #expect(mode(file) == 0o600)
        #expect(mode(push.server.directory.file("state/push")) == 0o700)
        let restarted = try push.server.startProcess(.inProcess)
        defer { restarted.stop() }
        let again = try push.server.client()
        _ = try again.call("server.hello", .object([("role", .string("app")), ("app", .string(Self.app))]))
        let kept = try again.call("push.register", nil)
        #expect(kept["token"] == registration["token"] && kept["publicKey"] == registration["publicKey"])
    }
}
