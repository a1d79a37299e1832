import Foundation
import Testing
import TestSupport

/// `tidings push` against a real `tidings serve`: a registration made from
/// the command line is the one the server keeps (the same token and keys at
/// every register), a front end's report is what `status` says, and
/// unregistering deletes it. Enabled once the server has the push methods
/// (its protocol reference names `push.register`); before, `PushCommandTests`
/// test the command line against a scripted host.
@Suite
struct PushCommandServerTests {
    let tidings = Tidings()
    let directory = TemporaryDirectory("push-server")
    static let app = "com.example.chat"

    /// The JSON object `result` printed.
    func object(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
                     "\(result.standardOutput)\n\(result.standardError)")
    }

    @Test func registerListStatusAndUnregisterOnTheServer() throws {
        let (server, socket) = try tidings.serve(in: directory)
        defer { server.stop() }
        let status = try tidings.run(["push", "status", "--socket", socket])
        #expect(status.status == 0 && status.standardOutput.contains("no tidings desktop has reported"), "\(status.standardOutput)")

        let first = try object(try tidings.run(["push", "register", "--app", Self.app, "--socket", socket, "--json"]))
        #expect(first["app"] as? String == Self.app && first["status"] as? String == "noFrontEnd" && first["endpoint"] is NSNull)
        let again = try object(try tidings.run(["push", "register", "--app", Self.app, "--socket", socket, "--json"]))
        for key in ["token", "publicKey", "auth"] {
            #expect(again[key] as? String == first[key] as? String, "register is idempotent: \(key)")
        }
        let listed = try tidings.run(["push", "list", "--socket", socket])
        #expect(listed.status == 0 && listed.standardOutput.contains("\n\(Self.app)  "), "\(listed.standardOutput)")

        let gone = try tidings.run(["push", "unregister", "--app", Self.app, "--socket", socket])
        #expect(gone.status == 0 && gone.standardOutput.hasPrefix("\(Self.app): unregistered"), "\(gone.standardOutput)")
        let nothing = try tidings.run(["push", "unregister", "--app", Self.app, "--socket", socket])
        #expect(nothing.standardOutput == "\(Self.app) was not registered for remote notifications.\n")
        let empty = try tidings.run(["push", "list", "--socket", socket])
        #expect(empty.standardOutput.hasSuffix("No app is registered for remote notifications.\n"), "\(empty.standardOutput)")
    }
}
