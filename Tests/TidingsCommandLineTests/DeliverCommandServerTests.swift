import Foundation
import Testing
import TestSupport

/// `tidings deliver --socket PATH` (and `--server`): the payload handed to a
/// real `tidings serve` on a socket of the test's own, which keeps it
/// delivered; what it prints, and its errors when no server listens.
@Suite struct DeliverCommandServerTests {
    let tidings = Tidings()
    let directory = TemporaryDirectory("deliver-server")
    static let app = "com.example.todo"

    /// Starts `tidings serve` with no extension, its state and socket in the test's directory.
    func serve() throws -> (BackgroundProcess, String) {
        try tidings.serve(in: directory)
    }

    var log: String { (try? String(contentsOfFile: directory.file("serve.log"), encoding: .utf8)) ?? "" }

    /// A request file titled `title`.
    func request(_ title: String) throws -> String {
        try directory.write(#"{"content": {"title": "\#(title)", "body": "Now."}}"#, to: "\(title).json")
    }

    @Test func aPayloadHandedToTheServerStaysDeliveredThere() throws {
        let (server, socket) = try serve()
        defer { server.stop() }
        let delivered = try tidings.run(["deliver", try request("Tea"), "--app", Self.app, "--id", "tea", "--socket", socket])
        #expect(delivered.status == 0, "\(delivered.standardError)\nserver: \(log)")
        #expect(delivered.standardOutput.contains("Notification  tea"), "\(delivered.standardOutput)")
        #expect(delivered.standardOutput.contains("Tea"), "\(delivered.standardOutput)")
        #expect(delivered.standardOutput.contains("presented"), "\(delivered.standardOutput)")
        // With --json, the server's answer as it gave it.
        let again = try tidings.run(["deliver", try request("Coffee"), "--app", Self.app, "--id", "coffee",
                                     "--socket", socket, "--json"])
        #expect(again.status == 0, "\(again.standardError)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(again.standardOutput.utf8)) as? [String: Any])
        #expect(answer["display"] as? String == "presented", "\(answer)")
        let presentation = try #require(answer["presentation"] as? [String: Any], "\(answer)")
        #expect(presentation["notification"] as? String == "coffee", "\(presentation)")
    }

    /// The server routes nothing by category; the command line keeps its
    /// default: without `--app`, the one app that registered the category.
    @Test func withoutAppTheCommandLineNamesTheAppThatRegisteredTheCategory() throws {
        let (server, socket) = try serve()
        defer { server.stop() }
        let categories = try directory.write(#"{"app": "\#(Self.app)", "categories": [{"identifier": "task", "actions": []}]}"#,
                                             to: "categories.json")
        let due = try directory.write(#"{"content": {"title": "Due", "categoryIdentifier": "task"}}"#, to: "due.json")
        let registered = try tidings.run(["deliver", due, "--categories", categories, "--id", "first", "--socket", socket])
        #expect(registered.status == 0, "\(registered.standardError)\nserver: \(log)")
        let defaulted = try tidings.run(["deliver", due, "--id", "second", "--socket", socket, "--json"])
        #expect(defaulted.status == 0, "\(defaulted.standardError)\nserver: \(log)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(defaulted.standardOutput.utf8)) as? [String: Any])
        #expect(answer["app"] as? String == Self.app, "\(answer)")
        let unknown = try tidings.run(["deliver", try request("Tea"), "--socket", socket])
        #expect(unknown.status == 64 && unknown.standardError.contains("--app"), "\(unknown.standardError)")
    }

    @Test func withoutARunningServerItSaysHowToStartOne() throws {
        let socket = directory.file("run/tidings.sock")
        let result = try tidings.run(["deliver", try request("Tea"), "--app", Self.app, "--socket", socket])
        #expect(result.status == 75, "\(result.standardError)")
        #expect(result.standardError.contains("No server listens at \(socket)"), "\(result.standardError)")
        #expect(result.standardError.contains("tidings serve --socket \(socket)"), "\(result.standardError)")
    }

    @Test func theOptionsOfItsOwnHostAreRefusedWithTheServer() throws {
        let result = try tidings.run(["deliver", try request("Tea"), "--socket", directory.file("run/tidings.sock"),
                                      "--respond", "default"])
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains("--respond works with the host"), "\(result.standardError)")
    }
}
