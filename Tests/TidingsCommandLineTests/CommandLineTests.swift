import Foundation
import TestSupport
import Testing

/// `tidings list`, `tidings install`, help and exit codes.
@Suite struct CommandLineTests {
    let tidings = Tidings()
    let extensions = TemporaryDirectory("cli-extensions")

    @Test(arguments: ["list", "deliver", "install"])
    func everyCommandHasHelp(_ command: String) throws {
        let result = try tidings.run(command, "--help")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Usage: tidings \(command)"))
        #expect(result.standardOutput.contains("Examples:"))
    }

    @Test func overviewAndUnknownCommands() throws {
        #expect(try tidings.run("--help").standardOutput.contains("Commands:"))
        #expect(try tidings.run().status == 64)
        let unknown = try tidings.run("lsit")
        #expect(unknown.status == 64)
        #expect(unknown.standardError.contains("Did you mean list?"))
        #expect(try tidings.run("--version").standardOutput.hasPrefix("tidings "))
    }

    @Test func listShowsEachBundleAndItsFlags() throws {
        try tidings.installSamples(into: extensions.path)
        let result = try tidings.run("list", "--extensions", extensions.path)
        #expect(result.status == 0)
        let rows = result.standardOutput.split(separator: "\n").map(String.init)
        let invite = try #require(rows.first { $0.contains("EventInvite.appex") })
        #expect(invite.contains("com.example.events") && invite.contains("event-invite") && invite.contains("hidden,touch,view")
                    && invite.contains("0.75") && invite.hasSuffix("ok"))
        let status = try #require(rows.first { $0.contains("BuildStatus.appex") })
        #expect(status.contains("title,view") && status.contains(" 1 "))
    }

    @Test func listJSONCarriesTheManifest() throws {
        try tidings.installSamples(into: extensions.path)
        let (status, value) = try tidings.json("list", "--extensions", extensions.path, "--json")
        let bundles = try #require((value as? [String: Any])?["bundles"] as? [[String: Any]])
        #expect(status == 0)
        let invite = try #require(bundles.first { $0["name"] as? String == "EventInvite.appex" })
        #expect(invite["point"] as? String == "com.apple.usernotifications.content-extension")
        #expect(invite["initialContentSizeRatio"] as? Double == 0.75)
        #expect(invite["defaultContentHidden"] as? Bool == true)
        #expect(invite["usable"] as? Bool == true)
    }

    @Test func listShowsProblemsWithoutHidingGoodBundles() throws {
        try tidings.installSamples(into: extensions.path)
        try BrokenLibrary.wrongArchitecture.make(in: extensions.path)
        try BundleMaker.make("Foreign", in: extensions.path, manifest: BundleMaker.contentManifest(
            identifier: "com.example.x.foreign", executable: "libwrong-architecture.so", categories: ["x"]),
            library: extensions.file("libwrong-architecture.so"))
        try BundleMaker.make("NoManifest", in: extensions.path, manifest: "")
        let result = try tidings.run("list", "--extensions", extensions.path)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("[load.wrong-architecture]"))
        #expect(result.standardOutput.contains("[plist.unknown-format]"))
        #expect(result.standardOutput.contains("EventInvite.appex"))
    }

    @Test func searchPathComesFromTheEnvironment() throws {
        try tidings.installSamples(into: tidings.home.file("data/tidings/extensions"))
        let result = try tidings.run("list")
        #expect(result.standardOutput.contains("XDG data directories"))
        #expect(result.standardOutput.contains("EventInvite.appex"))
    }

    @Test func listAndDeliverKeepTheIndexCacheUnlessToldNot() throws {
        try tidings.installSamples(into: extensions.path)
        let cache = tidings.home.file(".cache/tidings/index.v2")
        let uncached = try tidings.run("list", "--extensions", extensions.path, "--json", "--no-cache")
        #expect(uncached.status == 0)
        #expect(!FileManager.default.fileExists(atPath: cache))
        let first = try tidings.run("list", "--extensions", extensions.path, "--json")
        #expect(FileManager.default.fileExists(atPath: cache))
        let second = try tidings.run("list", "--extensions", extensions.path, "--json")
        #expect(first.standardOutput == uncached.standardOutput)
        #expect(second.standardOutput == uncached.standardOutput)
        #expect(try tidings.run("deliver", "--help").standardOutput.contains("--no-cache"))
    }

    @Test func missingExtensionDirectoryIsNoInput() throws {
        #expect(try tidings.run("list", "--extensions", "/nonexistent").status == 66)
    }

    @Test func installRefusesAnInvalidManifestAndWritesNothing() throws {
        let directory = TemporaryDirectory("install")
        let manifest = try directory.write(BundleMaker.contentManifest(identifier: "com.example.app.ext",
                                                                       executable: "$(EXECUTABLE_NAME)", categories: ["c"]),
                                           to: "Info.plist")
        let result = try tidings.run("install", manifest, Locations.product("libNoOp.so"), "--into", extensions.path)
        #expect(result.status == 65)
        #expect(result.standardError.contains("[manifest.unresolved-variable]"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: extensions.path).isEmpty)
    }

    @Test func installReplacesABundleWhole() throws {
        try tidings.installSamples(into: extensions.path)
        try tidings.installSamples(into: extensions.path)
        let names = try FileManager.default.contentsOfDirectory(atPath: extensions.path).sorted()
        #expect(names == ["BuildStatus.appex", "EventInvite.appex", "NoOp.appex"])
    }

    @Test func cExtensionBuiltAgainstTheInstalledHeaderAloneIsDeliveredTo() throws {
        // As an author would: the installed header, cc -shared, tidings install, tidings deliver.
        let include = TemporaryDirectory("include")
        try FileManager.default.copyItem(atPath: Locations.headerDirectory + "/tidings.h", toPath: include.file("tidings.h"))
        let build = TemporaryDirectory("author")
        let result = try ProcessRunner.run(CCompiler.compiler, [
            "-shared", "-fPIC", "-I", include.path, Locations.repositoryFile("Plugins/BuildStatus/BuildStatus.c"),
            "-o", build.file("libBuildStatus.so"),
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try tidings.run("install", Locations.repositoryFile("Manifests/BuildStatus.plist"), build.file("libBuildStatus.so"),
                                Locations.repositoryFile("Plugins/BuildStatus/MainInterface.json"),
                                "--into", extensions.path).status == 0)
        let delivered = try tidings.run("deliver", Locations.repositoryFile("Plugins/BuildStatus/Payloads/build-failed.json"),
                                        "--extensions", extensions.path, "--open", "--respond", "retry")
        #expect(delivered.status == 0, "\(delivered.standardError)")
        #expect(delivered.standardOutput.contains("Header        CI · tidings"))
        #expect(delivered.standardOutput.contains("label status \"Build failed\" #FF3B30"))
        #expect(delivered.standardOutput.contains("App           received retry"))
    }
}
