import Foundation
import TestSupport
import Testing

/// An app on TidingsApp from an installed prefix alone: Scripts/install.sh
/// installs the app library's package, the installed `tidings new --kind app`
/// scaffolds an app on it, and the app, copied away from any checkout, builds
/// with its one path dependency on the prefix and runs against a server of its own.
@Suite struct InstalledAppTests {
    let scratch = TemporaryDirectory("installed-app")

    @Test func anAppBuildsAndRunsFromAnInstalledPrefix() throws {
        let prefix = scratch.file("prefix").replacingOccurrences(of: "//", with: "/")
        let install = try ProcessRunner.run("/bin/bash", [Locations.repositoryFile("Scripts/install.sh"), "--prefix", prefix,
                                                          "--binary", Locations.product("tidings")])
        #expect(install.status == 0, "\(install.standardError)")
        var tidings = Tidings()
        tidings.executable = prefix + "/bin/tidings"
        let made = try tidings.run(["new", "Pillbox", "--kind", "app", "--app", "org.example.pillbox", "--into", scratch.file("made"), "--json"])
        #expect(made.status == 0, "\(made.standardError)")

        // Away from where it was made: its package names the prefix's TidingsApp and nothing of a checkout.
        let project = scratch.file("elsewhere/Pillbox")
        try FileManager.default.createDirectory(atPath: scratch.file("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: scratch.file("made/Pillbox"), toPath: project)
        let manifest = try String(contentsOfFile: project + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains(".package(path: \"\(prefix)/share/tidings/TidingsApp\")"), "\(manifest)")
        #expect(manifest.contains(".product(name: \"TidingsApp\", package: \"tidingsapp\")"), "\(manifest)")
        #expect(!manifest.contains(Locations.repository), "\(manifest)")
        // The guide's line for an installed prefix is the one made.
        let guide = try String(contentsOfFile: Locations.repositoryFile("Docs/app-library.md"), encoding: .utf8)
        let line = try #require(guide.split(separator: "\n").first { $0.contains(".package(path: \"PREFIX/share/tidings/TidingsApp\")") })
        let given = line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "PREFIX", with: prefix)
        #expect(manifest.contains(given.hasSuffix(",") ? String(given.dropLast()) : given), "\(given)\n\(manifest)")

        let build = try ProcessRunner.run("/bin/sh", ["-c", "swift build"], directory: project)
        try #require(build.status == 0, "\(build.standardOutput)\(build.standardError)")

        // Run as its README says, against a server on a private socket.
        let socket = scratch.file("tidings.sock")
        try FileManager.default.createDirectory(atPath: scratch.file("extensions"), withIntermediateDirectories: true)
        let server = try BackgroundProcess(prefix + "/bin/tidings", [
            "serve", "--socket", socket, "--state", scratch.file("state"), "--extensions", scratch.file("extensions"),
        ], environment: ["HOME": scratch.path, "NO_COLOR": "1"], log: scratch.file("server.log"))
        defer { server.stop() }
        try #require(BackgroundProcess.wait(forListener: socket), "the server did not start")
        let ran = try ProcessRunner.run(project + "/.build/debug/Pillbox", ["--socket", socket], deadline: patience)
        #expect(ran.status == 0, "\(ran.standardOutput)\(ran.standardError)")
        #expect(ran.standardOutput.contains("Authorization: allowed."), "\(ran.standardOutput)")
        #expect(ran.standardOutput.contains("Added the request hello"), "\(ran.standardOutput)")
        #expect(ran.standardOutput.contains("Pending: hello."), "\(ran.standardOutput)")
    }
}
