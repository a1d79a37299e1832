import Foundation
import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsRegistry
import TidingsRuntime
import TidingsServer

/// A server in this process on a socket in a temporary directory, serving
/// the bundles a test installs, stopped when the fixture goes away.
final class ServerFixture: @unchecked Sendable {
    let directory = TemporaryDirectory("server")
    private(set) var server: Server?
    var socketPath: String { directory.file("tidings.sock") }

    /// Builds a C fixture and installs it as a content extension of `identifier` for `categories`.
    /// Builds C fixture `name` and installs it as `identifier` for
    /// `categories`, with `interface`; with `sharedWorker`, its opened
    /// interfaces share one worker.
    func installC(_ name: String, identifier: String, categories: [String], interface: String? = nil,
                  sharedWorker: Bool = false) throws {
        let library = try CCompiler.fixture(name, into: directory.path, extraFlags: ["-pthread"])
        var resources: [String] = []
        if let interface { resources.append(try directory.write(interface, to: "\(name)-interface/MainInterface.json")) }
        try BundleMaker.make(name, in: directory.file("extensions"), manifest: BundleMaker.contentManifest(
            identifier: identifier, executable: "lib\(name).so", categories: categories,
            interface: interface == nil ? nil : "MainInterface", sharedWorker: sharedWorker), library: library,
            resources: resources)
    }

    /// Installs a content extension of `identifier` for `categories` whose library is broken as `broken` says.
    func installBroken(_ broken: BrokenLibrary, identifier: String, categories: [String]) throws {
        let library = try broken.make(in: directory.path)
        try BundleMaker.make("Broken", in: directory.file("extensions"), manifest: BundleMaker.contentManifest(
            identifier: identifier, executable: "lib\(broken.rawValue).so", categories: categories), library: library)
    }

    /// Installs a shipped sample (EventInvite, NoOp, …).
    func installSample(_ name: String) throws {
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        try BundleMaker.installSample(name, in: directory.file("extensions"))
    }

    /// Starts the server over what is installed, keeping at most `kept`
    /// notifications, its configuration then changed as `configure` says.
    @discardableResult
    func start(limits: Server.Limits = Server.Limits(), responseDeadline: Double = 2,
               kept: Int = HostService.Configuration.defaultKept,
               configure: (inout HostService.Configuration) -> Void = { _ in }) throws -> Server {
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        var configuration = HostService.Configuration()
        configuration.host.responseDeadline = responseDeadline
        configuration.host.attachmentDirectory = directory.file("state/attachments")
        configuration.host.deliveredLimit = kept
        configure(&configuration)
        let index = Discovery.scan(SearchPath(directories: [directory.file("extensions")], origin: .option))
        let server = try Server(service: HostService(index: index, configuration: configuration), limits: limits)
        server.serveInBackground(try UnixSocket.listen(at: socketPath))
        self.server = server
        return server
    }

    /// A client connected to the server.
    func client() throws -> RPCClient {
        try RPCClient(path: socketPath)
    }

    /// The arguments of `tidings serve` over what is installed, with the
    /// state in the fixture's directory, running extensions as `isolation` says.
    func serveArguments(_ isolation: IsolationMode) -> [String] {
        ["serve", "--state", directory.file("state"), "--isolation", isolation.option,
         "--extensions", directory.file("extensions")]
    }

    /// Starts `tidings serve` as a process on the fixture's socket: the real
    /// server, extensions run as `isolation` says, with `options` besides.
    func startProcess(_ isolation: IsolationMode, options: [String] = []) throws -> BackgroundProcess {
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        let server = try BackgroundProcess(Locations.product("tidings"),
                                           serveArguments(isolation) + ["--socket", socketPath] + options,
                                           environment: ["HOME": directory.path, "NO_COLOR": "1"],
                                           log: directory.file("serve.log"))
        // The socket's file appears at bind, a moment before the server listens: wait for a connection.
        let listening = eventually { !server.isRunning || BackgroundProcess.wait(forListener: socketPath, seconds: 0) }
        try #require(listening && server.isRunning, "the server did not start: \(serveLog)")
        return server
    }

    /// What the server process wrote to its log.
    var serveLog: String { (try? String(contentsOfFile: directory.file("serve.log"), encoding: .utf8)) ?? "" }

    /// Runs `tidings serve --stdio` over what is installed with `lines` as
    /// its input, all written at once, until it has answered them all.
    func serveStandardIO(_ isolation: IsolationMode, lines: [String]) throws -> ProcessResult {
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        let input = try directory.write(lines.joined(separator: "\n") + "\n", to: "requests.jsonl")
        let command = ([Locations.product("tidings")] + serveArguments(isolation) + ["--stdio"])
            .map { "'\($0)'" }.joined(separator: " ")
        return try ProcessRunner.run("/bin/sh", ["-c", "\(command) < '\(input)'"], environment: ["HOME": directory.path])
    }

    deinit {
        server?.stop()
    }
}

extension ServerFixture {
    /// `tidings serve --socket socket --isolation in-process` run as user
    /// 65534 (through `setpriv`, which only root may use so) with `home` as
    /// its home, once it says it listens; its log in `name`.log of the fixture.
    func serveAsAnotherUser(socket: String, home: TemporaryDirectory, log name: String) throws -> BackgroundProcess {
        #expect(chown(home.path, 65534, 65534) == 0)
        let log = directory.file("\(name).log")
        let server = try BackgroundProcess(try #require(ProcessRunner.which("setpriv")),
                                           ["--reuid=65534", "--regid=65534", "--clear-groups", Locations.product("tidings"),
                                            "serve", "--socket", socket, "--isolation", "in-process"],
                                           environment: ["HOME": home.path], log: log)
        guard BackgroundProcess.wait(for: "listening on", inFile: log) else {
            server.stop(with: SIGKILL)
            throw Diagnostic.error(.init("test.not-listening"),
                                   "\(name) did not listen: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        return server
    }
}
