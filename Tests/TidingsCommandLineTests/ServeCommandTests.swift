import Foundation
import Testing
import TestSupport

/// `tidings serve` as a process, driven by a client that is not ours: a
/// front end in Python's standard library.
@Suite struct ServeCommandTests {
    let tidings = Tidings()
    let directory = TemporaryDirectory("serve")

    /// `--help` names every method and event of the protocol: made from the
    /// server's table, not a hand-kept list.
    @Test func helpListsEveryMethodAndEvent() throws {
        let help = try tidings.run("serve", "--help").standardOutput
        let description = try JSONSerialization.jsonObject(with: Data(try tidings.run("manual", "--protocol", "json").standardOutput.utf8))
        let table = try #require(description as? [String: Any])
        let names = [table["methods"], table["events"]].flatMap { ($0 as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        #expect(names.count > 30)
        for name in names { #expect(help.contains(name), "serve --help does not name \(name)") }
    }

    /// Installs the Later fixture (a content extension of com.example.news that updates its view after 30 ms).
    func installLater() throws -> String {
        let extensions = directory.file("extensions")
        let library = try CCompiler.fixture("Later", into: directory.path, extraFlags: ["-pthread"])
        let interface = try directory.write(
            #"{"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "status"}]}}"#,
            to: "MainInterface.json")
        try BundleMaker.make("Later", in: extensions, manifest: BundleMaker.contentManifest(
            identifier: "com.example.news.later", executable: "libLater.so", categories: ["story"],
            interface: "MainInterface"), library: library, resources: [interface])
        return extensions
    }

    /// Starts `tidings serve` on a socket in the test's directory.
    func serve(extensions: String) throws -> (BackgroundProcess, String) {
        let socket = directory.file("run/tidings.sock")
        let server = try BackgroundProcess(Locations.product("tidings"), ["serve", "--socket", socket, "--extensions", extensions],
                                           environment: ["HOME": tidings.home.path, "NO_COLOR": "1"],
                                           log: directory.file("serve.log"))
        try #require(BackgroundProcess.wait(forListener: socket), "the server did not start: \(log)")
        return (server, socket)
    }

    var log: String { (try? String(contentsOfFile: directory.file("serve.log"), encoding: .utf8)) ?? "" }

    @Test func aPythonFrontEndDrivesTheServerEndToEnd() throws {
        let python = try #require(ProcessRunner.which("python3"), "python3 is needed")
        let (server, socket) = try serve(extensions: try installLater())
        defer { server.stop() }
        let result = try ProcessRunner.run(python, [Locations.repositoryFile("Tests/Clients/front_end.py"), socket])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)\nserver: \(log)")
        #expect(result.standardOutput.contains("all steps passed"))
        #expect(log.contains("listening on \(socket)"))
    }

    /// A JSON Schema validator that is not ours (PyPI's jsonschema) checks
    /// the server's answers and events against the OpenRPC document it
    /// answers to `server.protocol`, and that params the document refuses
    /// the server refuses with -32602.
    @Test func theServersAnswersFitItsOpenRPCDocument() throws {
        let python = try #require(ProcessRunner.which("python3"), "python3 is needed")
        let validator = try ProcessRunner.run(python, ["-c", "import jsonschema"])
        try #require(validator.status == 0, "python3 lacks jsonschema (pip install jsonschema): \(validator.standardError)")
        let (server, socket) = try serve(extensions: try installLater())
        defer { server.stop() }
        let result = try ProcessRunner.run(python, [Locations.repositoryFile("Tests/Clients/schema_check.py"), socket,
                                                    Locations.repositoryFile("Docs/reference/openrpc.json")])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)\nserver: \(log)")
        #expect(result.standardOutput.contains("all checks passed"))
    }

    @Test func theSocketIsPrivateToItsUser() throws {
        let (server, socket) = try serve(extensions: try installLater())
        defer { server.stop() }
        let socketMode = try FileManager.default.attributesOfItem(atPath: socket)[.posixPermissions] as? Int
        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.file("run"))[.posixPermissions] as? Int
        #expect(socketMode == 0o600)
        #expect(directoryMode == 0o700)
    }

    @Test func aSecondServerOnTheSameSocketIsRefused() throws {
        let (server, socket) = try serve(extensions: try installLater())
        defer { server.stop() }
        let second = try tidings.run("serve", "--socket", socket)
        #expect(second.status == 73)
        #expect(second.standardError.contains("A server already listens at \(socket)"))
    }

    /// In this process (an isolated extension's output goes to a pipe of the
    /// host's and comes back as `worker.output` reports, see FaultContainmentTests).
    @Test func onStandardIOWhatAnExtensionPrintsStaysOutOfTheAnswers() throws {
        let extensions = directory.file("extensions")
        let library = try CCompiler.fixture("Chatty", into: directory.path)
        try BundleMaker.make("Chatty", in: extensions, manifest: BundleMaker.contentManifest(
            identifier: "com.example.chat.chatty", executable: "libChatty.so", categories: ["chat"]), library: library)
        let input = try directory.write("""
            {"jsonrpc": "2.0", "id": 1, "method": "notifications.deliver", "params": {"app": "com.example.chat", "open": true, "payload": {"identifier": "c1", "content": {"title": "Hi", "categoryIdentifier": "chat"}}}}
            {"jsonrpc": "2.0", "id": 2, "method": "notifications.list"}

            """, to: "requests.jsonl")
        let result = try ProcessRunner.run("/bin/sh", ["-c", "\"$0\" serve --stdio --isolation in-process --extensions \"$1\" < \"$2\"",
                                                      Locations.product("tidings"), extensions, input],
                                           environment: ["HOME": tidings.home.path])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"jsonrpc":"2.0","id":"#) }, "\(result.standardOutput)")
        #expect(result.standardError.contains("chatty: got c1"))
        #expect(result.standardError.contains("chatty: on standard error too"))
    }

    @Test func withoutARuntimeDirectoryTheSocketMustBeNamed() throws {
        let result = try tidings.run("serve")
        #expect(result.status == 64)
        #expect(result.standardError.contains("--socket PATH"))
    }
}
