import Foundation
import TestSupport

/// Runs the built `tidings` executable with an empty XDG environment, so that
/// nothing installed on the machine leaks into a test.
struct Tidings {
    let home = TemporaryDirectory("cli-home")
    /// The executable run: the build's, unless a test runs one elsewhere (copied, installed).
    var executable = Locations.product("tidings")

    @discardableResult
    func run(_ arguments: String...) throws -> ProcessResult {
        try run(arguments)
    }

    /// Runs `tidings` with `arguments` (in `directory`, else the test's);
    /// `environment` adds to or overrides the test's; past `deadline` seconds it is killed (see `ProcessRunner`).
    func run(_ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
             deadline: Double? = nil) throws -> ProcessResult {
        try ProcessRunner.run(executable, arguments, environment: [
            "HOME": home.path, "XDG_DATA_HOME": home.file("data"), "XDG_DATA_DIRS": home.file("system"),
            "TIDINGS_EXTENSIONS_PATH": "", "NO_COLOR": "1",
        ].merging(environment) { _, given in given }, directory: directory, deadline: deadline)
    }

    /// Starts `tidings serve` with no extension and `options`, its state,
    /// socket (`run/tidings.sock`) and log (`serve.log`) in `directory`: the
    /// server, once it listens, and its socket.
    func serve(in directory: TemporaryDirectory, _ options: [String] = []) throws -> (BackgroundProcess, String) {
        let socket = directory.file("run/tidings.sock")
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        let server = try BackgroundProcess(Locations.product("tidings"), [
            "serve", "--socket", socket, "--state", directory.file("state"), "--extensions", directory.file("extensions"),
        ] + options, environment: ["HOME": home.path, "NO_COLOR": "1"], log: directory.file("serve.log"))
        guard BackgroundProcess.wait(forListener: socket) else {
            throw CCompiler.Failure(description: "the server did not start: "
                                    + ((try? String(contentsOfFile: directory.file("serve.log"), encoding: .utf8)) ?? ""))
        }
        return (server, socket)
    }

    /// Runs and parses standard output as JSON.
    func json(_ arguments: String...) throws -> (status: Int32, value: Any) {
        let result = try run(arguments)
        let value = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        return (result.status, value)
    }

    /// Installs the three samples with `tidings install` into `directory`.
    func installSamples(into directory: String) throws {
        for (name, resources) in [("EventInvite", ["Plugins/EventInvite/MainInterface.json"]),
                                  ("BuildStatus", ["Plugins/BuildStatus/MainInterface.json"]), ("NoOp", [])] {
            let result = try run(["install", Locations.repositoryFile("Manifests/\(name).plist"),
                                  Locations.product("lib\(name).so")] + resources.map(Locations.repositoryFile)
                                 + ["--into", directory])
            guard result.status == 0 else { throw CCompiler.Failure(description: result.standardError) }
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The value at a path of keys, for reading JSON output.
    subscript(path path: String...) -> Any? {
        var value: Any? = self
        for key in path { value = (value as? [String: Any])?[key] }
        return value
    }
}
