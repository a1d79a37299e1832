import Glibc
import ServerTestSupport
import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsCrypto
import TidingsServer

/// What the push tests share: a server with its push registrations kept in
/// the fixture's directory, a clock the test moves for the rate limit, the
/// server's log, and Web Push messages encrypted for a registration.
final class PushFixture: @unchecked Sendable {
    let server = ServerFixture()
    /// The seconds the rate limit counts by: moved by the test alone.
    let clock = Mutex(1_000.0)
    /// What the server logged.
    let logged = Mutex<[Diagnostic]>([])

    /// The push directory (`STATE/push`).
    var directory: String { server.directory.file("state/push") }

    /// Starts (or starts again, after `stop`) the server, `burst` pushes at once and `rate` a second.
    func start(burst: Int = 60, rate: Double = 1) throws {
        try server.start { configuration in
            configuration.push.directory = self.directory
            configuration.push.burst = burst
            configuration.push.rate = rate
            configuration.push.clock = { [self] in self.clock.withLock { $0 } }
            configuration.log = { [self] diagnostic in self.logged.withLock { $0.append(diagnostic) } }
        }
    }

    /// Stops the server, as a restart does: once its socket takes no more connections.
    func stop() {
        server.server?.stop()
        let stopped = eventually { !BackgroundProcess.wait(forListener: server.socketPath, seconds: 0) }
        #expect(stopped, "the server still listens")
        unlink(server.socketPath)
    }

    /// Moves the clock `seconds` on.
    func advance(_ seconds: Double) {
        clock.withLock { $0 += seconds }
    }

    /// The codes the server logged.
    var loggedCodes: [String] { logged.withLock { $0.map(\.code.rawValue) } }

    /// A front end's connection (one that says nothing is a front end).
    func frontEnd() throws -> RPCClient { try server.client() }

    /// A connection that said hello as `app`.
    func app(_ app: String) throws -> RPCClient {
        let client = try server.client()
        _ = try client.call("server.hello", .object([("role", .string("app")), ("app", .string(app)), ("client", .string("PushTests"))]))
        return client
    }

    /// `text` as JSON.
    static func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    /// `plaintext` encrypted for `registration` (a `push.register` answer), base64 as `push.receive` takes it.
    static func message(_ plaintext: String, for registration: JSON) throws -> String {
        let publicKey = try #require(registration["publicKey"]?.stringValue.flatMap(Base64.decodeURL))
        let auth = try #require(registration["auth"]?.stringValue.flatMap(Base64.decodeURL))
        return Base64.encode(try WebPushSender.encrypt(Array(plaintext.utf8), to: publicKey, authSecret: auth))
    }

    /// The `push.receive` parameters of `message` for `registration`, with `id` when given.
    static func receive(_ message: String, for registration: JSON, id: String? = nil) -> JSON {
        var params: [(String, JSON)] = [("token", registration["token"] ?? .null), ("message", .string(message))]
        if let id { params.append(("id", .string(id))) }
        return .object(params)
    }

    /// The code and `data.code` of the error `call` threw; nil when it answered.
    static func refusal(_ call: () throws -> JSON) -> (code: Int64, reason: String?)? {
        do {
            _ = try call()
            return nil
        } catch let error as RPCErrorReply {
            return (error.code, error.data?["code"]?.stringValue)
        } catch {
            return (0, "\(error)")
        }
    }
}
