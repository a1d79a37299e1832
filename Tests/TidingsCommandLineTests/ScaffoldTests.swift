import Foundation
import TestSupport
import Testing

/// `tidings new`: each kind of project builds with its one command, installs
/// with the next, and is delivered to.
@Suite struct ScaffoldTests {
    let tidings = Tidings()
    let scratch = TemporaryDirectory("scaffold")

    struct Project: CustomTestStringConvertible, Sendable {
        var name: String
        var kind: String
        var language: String
        var testDescription: String { "\(kind) in \(language)" }
    }

    static let projects = [Project(name: "Greeter", kind: "content", language: "swift"),
                           Project(name: "Hello", kind: "content", language: "c"),
                           Project(name: "Stamp", kind: "service", language: "c"),
                           Project(name: "Stamper", kind: "service", language: "swift")]

    @Test(arguments: projects)
    func aNewProjectBuildsInstallsAndIsDelivered(_ project: Project) throws {
        let app = "com.example.\(project.name.lowercased())"
        let made = try tidings.run("new", project.name, "--kind", project.kind, "--language", project.language,
                                   "--app", app, "--into", scratch.path, "--json")
        #expect(made.status == 0, "\(made.standardError)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(made.standardOutput.utf8)) as? [String: Any])
        let directory = try #require(plan["directory"] as? String)

        // The one build command the project names.
        let build = try #require(plan["build"] as? String)
        let built = try ProcessRunner.run("/bin/sh", ["-c", build], directory: directory)
        #expect(built.status == 0, "\(build): \(built.standardError)")

        // The one install command, with the test's extension directory.
        let extensions = scratch.file("extensions-\(project.name)")
        let install = try #require(plan["install"] as? String).split(separator: " ").dropFirst().map(String.init)
        let installed = try tidings.run(install.map { $0 == "Info.plist" || $0.hasSuffix(".so") || $0.hasSuffix(".json")
                                                      ? directory + "/" + $0 : $0 } + ["--into", extensions])
        #expect(installed.status == 0, "\(installed.standardError)")

        // Delivered: the content extension draws the sample and answers "done"; the service extension rewrites the title.
        var deliver = ["deliver", directory + "/payload.json", "--app", app, "--extensions", extensions, "--json"]
        if project.kind == "content" { deliver += ["--categories", directory + "/categories.json", "--respond", "done"] }
        let delivered = try tidings.run(deliver)
        #expect(delivered.status == 0, "\(delivered.standardError)")
        let output = delivered.standardOutput
        if project.kind == "content" {
            #expect(output.contains("\"com.example.\(project.name.lowercased()).\(project.name.lowercased())\""))
            #expect(output.contains("\"Done.\""))
        } else {
            #expect(output.contains("[\(project.name)] Hello from \(project.name)"))
        }
    }

    @Test func namesAndPlacesAreChecked() throws {
        #expect(try tidings.run("new", "9lives").status == 64)
        #expect(try tidings.run("new", "Two Words").status == 64)
        #expect(try tidings.run("new", "Digest", "--kind", "widget").status == 64)
        #expect(try tidings.run("new", "Digest", "--kind", "service", "--categories", "a").status == 64)
        #expect(try tidings.run("new", "Taken", "--into", scratch.path).status == 0)
        let again = try tidings.run("new", "Taken", "--into", scratch.path)
        #expect(again.status == 73 && again.standardError.contains("exists already"))
    }
}
