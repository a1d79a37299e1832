import Foundation
import TestSupport
import Testing

/// `tidings new` → build → `tidings validate .` → install → deliver, with
/// the commands the project names, from wherever `tidings` is: a checkout's
/// build, a build copied out of the checkout, an installed prefix. No
/// `--tidings`: each finds the header and the SDK package itself.
@Suite struct ScaffoldFlowTests {
    let tidings = Tidings()
    let scratch = TemporaryDirectory("scaffold-flow")

    /// Where the `tidings` that runs the flow is.
    enum Place: String, Sendable {
        case checkout, copied, installed
    }

    struct Flow: CustomTestStringConvertible, Sendable {
        var name: String
        var kind: String
        var language: String
        var place: Place
        var testDescription: String { "\(kind) in \(language), from \(place.rawValue)" }
    }

    // Building a Swift project is slow: one per place.
    static let flows = [Flow(name: "Greeter", kind: "content", language: "swift", place: .checkout),
                        Flow(name: "Hello", kind: "content", language: "c", place: .checkout),
                        Flow(name: "Stamp", kind: "service", language: "c", place: .checkout),
                        Flow(name: "Stamper", kind: "service", language: "swift", place: .copied),
                        Flow(name: "Hello", kind: "content", language: "c", place: .copied),
                        Flow(name: "Chat", kind: "content", language: "swift", place: .installed),
                        Flow(name: "Stamp", kind: "service", language: "c", place: .installed)]

    /// The `tidings` executable at `place`: the build's own, a copy of it in a
    /// directory of its own, or the one Scripts/install.sh installs under a prefix.
    func executable(at place: Place) throws -> String {
        switch place {
        case .checkout:
            return Locations.product("tidings")
        case .copied:
            let directory = scratch.file("elsewhere")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Locations.product("tidings"), toPath: directory + "/tidings")
            return directory + "/tidings"
        case .installed:
            let prefix = scratch.file("prefix")
            let install = try ProcessRunner.run("/bin/bash", [Locations.repositoryFile("Scripts/install.sh"), "--prefix", prefix,
                                                              "--binary", Locations.product("tidings")])
            #expect(install.status == 0, "\(install.standardError)")
            return prefix + "/bin/tidings"
        }
    }

    @Test(arguments: flows)
    func theProjectsFlowWorksWhereverTidingsIs(_ flow: Flow) throws {
        var tidings = tidings
        tidings.executable = try executable(at: flow.place)
        let app = "com.example.\(flow.name.lowercased())"
        let made = try tidings.run(["new", flow.name, "--kind", flow.kind, "--language", flow.language,
                                     "--app", app, "--into", scratch.path, "--json"])
        #expect(made.status == 0, "\(made.standardError)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(made.standardOutput.utf8)) as? [String: Any])
        let directory = try #require(plan["directory"] as? String)
        if flow.language == "swift" {
            let manifest = try String(contentsOfFile: directory + "/Package.swift", encoding: .utf8)
            let expected = (flow.place == .installed ? scratch.file("prefix") + "/share/tidings/TidingsSDK" : Locations.repository)
                .replacingOccurrences(of: "//", with: "/")
            #expect(manifest.contains(".package(path: \"\(expected)\")"), "\(manifest)")
        }

        // Each command as the project names it, run in its directory; `tidings` is the one at the place.
        func command(_ key: String) throws -> [String] {
            try #require(plan[key] as? String).split(separator: " ").map(String.init)
        }
        let build = try ProcessRunner.run("/bin/sh", ["-c", try #require(plan["build"] as? String)], directory: directory)
        #expect(build.status == 0, "\(build.standardError)")

        let validated = try tidings.run(Array(try command("validate").dropFirst()), directory: directory)
        #expect(validated.status == 0, "\(validated.standardOutput)\(validated.standardError)")
        if flow.language == "swift" {
            #expect(validated.standardError.contains("Validating .build/debug/lib\(flow.name).so"), "\(validated.standardError)")
        }

        let extensions = scratch.file("extensions-\(flow.name)-\(flow.place.rawValue)")
        let installed = try tidings.run(Array(try command("install").dropFirst()) + ["--into", extensions], directory: directory)
        #expect(installed.status == 0, "\(installed.standardError)")

        // Delivered: the content extension draws the sample and answers "done"; the service extension rewrites the title.
        var deliver = ["deliver", "payload.json", "--app", app, "--extensions", extensions, "--json"]
        if flow.kind == "content" { deliver += ["--categories", "categories.json", "--respond", "done"] }
        let delivered = try tidings.run(deliver, directory: directory)
        #expect(delivered.status == 0, "\(delivered.standardError)")
        if flow.kind == "content" {
            #expect(delivered.standardOutput.contains("\"\(app).\(flow.name.lowercased())\""))
            #expect(delivered.standardOutput.contains("\"Done.\""))
        } else {
            #expect(delivered.standardOutput.contains("[\(flow.name)] Hello from \(flow.name)"))
        }
    }

    @Test func anInstallSaysHowPkgConfigFindsIt() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pkg-config") else {
            Issue.record("pkg-config is missing: .ci/run installs it (apt-get install pkg-config)")
            return
        }
        let prefix = scratch.file("pc-prefix").replacingOccurrences(of: "//", with: "/")
        let install = try ProcessRunner.run("/bin/bash", [Locations.repositoryFile("Scripts/install.sh"), "--prefix", prefix,
                                                          "--binary", Locations.product("tidings")])
        #expect(install.status == 0, "\(install.standardError)")
        // The line it prints, run as given, makes pkg-config find the installed header.
        let line = try #require(install.standardOutput.split(separator: "\n").first { $0.contains("export PKG_CONFIG_PATH=") })
        #expect(line.contains("\(prefix)/lib/pkgconfig"))
        let flags = try ProcessRunner.run("/bin/sh", ["-c", "unset PKG_CONFIG_PATH; \(line); pkg-config --cflags tidings"])
        #expect(flags.status == 0, "\(flags.standardError)")
        #expect(flags.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "-I\(prefix)/include/tidings")
    }
}
