import Foundation
import Testing
import TestSupport

/// `tidings apps allow|deny|reset` against a real `tidings serve` on a socket
/// of the test's own: the user's decision reaches the server and is what the
/// app's next authorization request and `apps.list` say.
@Suite struct AppsCommandTests {
    let tidings = Tidings()
    let directory = TemporaryDirectory("apps")
    static let app = "com.example.reminders"

    /// Starts `tidings serve` with no extension, its state and socket in the test's directory.
    func serve() throws -> (BackgroundProcess, String) {
        try tidings.serve(in: directory)
    }

    var log: String { (try? String(contentsOfFile: directory.file("serve.log"), encoding: .utf8)) ?? "" }

    @Test func allowAndDenyReachTheServer() throws {
        let (server, socket) = try serve()
        defer { server.stop() }
        let allowed = try tidings.run(["apps", "allow", Self.app, "--socket", socket])
        #expect(allowed.status == 0, "\(allowed.standardError)\nserver: \(log)")
        #expect(allowed.standardOutput == "\(Self.app): authorized\n")

        let denied = try tidings.run(["apps", "deny", Self.app, "--socket", socket, "--json"])
        #expect(denied.status == 0, "\(denied.standardError)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(denied.standardOutput.utf8)) as? [String: Any])
        #expect(answer["app"] as? String == Self.app && answer["status"] as? String == "denied")

        let reset = try tidings.run(["apps", "reset", Self.app, "--socket", socket])
        #expect(reset.standardOutput == "\(Self.app): notDetermined\n", "\(reset.standardError)")
    }

    @Test func theCommandLineIsCheckedBeforeAnyServerIsAsked() throws {
        let socket = directory.file("none.sock")
        #expect(try tidings.run(["apps", "permit", Self.app, "--socket", socket]).status == 64)
        #expect(try tidings.run(["apps", "allow", "--socket", socket]).status == 64)
        let unserved = try tidings.run(["apps", "allow", Self.app, "--socket", socket])
        #expect(unserved.status == 75 && unserved.standardError.contains("start one with"), "\(unserved.standardError)")
        let serving = try tidings.run(["serve", "--unasked-apps", "maybe", "--socket", socket])
        #expect(serving.status == 64 && serving.standardError.contains("--unasked-apps takes deliver or deny"), "\(serving.standardError)")
    }
}
