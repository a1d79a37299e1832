import Foundation
import TestSupport
import Testing

/// Scripts/install.sh installs the Swift SDK package's sources, and the app
/// library's package's, and nothing a build or an editor left beside them:
/// git's files in a checkout, else the source files. Each case runs on a
/// copy of the tree, so nothing is planted in the checkout.
@Suite struct InstalledSDKTests {
    let scratch = TemporaryDirectory("installed-sdk")
    static let modules = ["TidingsABI", "TidingsBase", "TidingsSDK"]
    /// The app library's package's modules: TidingsApp and what it needs.
    static let appModules = ["TidingsABI", "TidingsBase", "TidingsProtocol", "TidingsApp"]

    /// A copy of what install.sh reads (the script, Packaging, both packages' modules), with stray files planted in it.
    func copyOfTheTree(_ name: String) throws -> String {
        let tree = scratch.file(name)
        let files = FileManager.default
        try files.createDirectory(atPath: tree + "/Sources", withIntermediateDirectories: true)
        for part in ["Scripts", "Packaging"] + Set(Self.modules + Self.appModules).sorted().map({ "Sources/\($0)" }) {
            try files.copyItem(atPath: Locations.repositoryFile(part), toPath: "\(tree)/\(part)")
        }
        return tree
    }

    /// Files left beside the sources: a build product, an editor's swap and backup files, a header's backup.
    static let strays = ["Sources/TidingsBase/Stray.o", "Sources/TidingsBase/Diagnostics/.Diagnostic.swift.swp",
                         "Sources/TidingsBase/JSON~", "Sources/TidingsSDK/.DS_Store"]

    func plantStrays(in tree: String) throws {
        for stray in Self.strays { try "stray\n".write(toFile: "\(tree)/\(stray)", atomically: true, encoding: .utf8) }
    }

    /// Installs from `tree` under a prefix of its own; the files of the installed SDK's Sources, relative to the SDK.
    func install(from tree: String) throws -> Set<String> {
        let prefix = tree + "-prefix"
        let install = try ProcessRunner.run("/bin/bash", [tree + "/Scripts/install.sh", "--prefix", prefix,
                                                          "--binary", Locations.product("tidings")])
        #expect(install.status == 0, "\(install.standardError)")
        return try installedSources(of: prefix + "/share/tidings/TidingsSDK")
    }

    /// The files of an installed package's Sources, relative to the package.
    func installedSources(of sdk: String) throws -> Set<String> {
        #expect(FileManager.default.fileExists(atPath: sdk + "/Package.swift"))
        let listed = try FileManager.default.subpathsOfDirectory(atPath: sdk + "/Sources")
        return Set(listed.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: "\(sdk)/Sources/\(path)", isDirectory: &isDirectory) && !isDirectory.boolValue
        }.map { "Sources/" + $0 })
    }

    /// The files under `modules` (the SDK's by default) in `tree`, not the documentation catalogue.
    func sources(in tree: String, modules: [String] = modules, where keep: (String) -> Bool) throws -> Set<String> {
        var found: Set<String> = []
        for module in modules {
            for path in try FileManager.default.subpathsOfDirectory(atPath: "\(tree)/Sources/\(module)") {
                let file = "Sources/\(module)/\(path)"
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: "\(tree)/\(file)", isDirectory: &isDirectory), !isDirectory.boolValue, !file.contains(".docc/"), keep(file) { found.insert(file) }
            }
        }
        return found
    }

    @Test func inACheckoutOnlyWhatGitTracksIsInstalled() throws {
        let tree = try copyOfTheTree("checkout")
        let git = try #require(ProcessRunner.which("git"), "git is missing: .ci/run installs it (apt-get install git)")
        #expect(try ProcessRunner.run(git, ["init", "-q"], directory: tree).status == 0)
        #expect(try ProcessRunner.run(git, ["add", "-A"], directory: tree).status == 0)
        let tracked = try sources(in: tree) { _ in true }
        // Untracked now: the strays, and a Swift file git was never told of.
        try plantStrays(in: tree)
        try "let untracked = 1\n".write(toFile: tree + "/Sources/TidingsBase/Untracked.swift", atomically: true, encoding: .utf8)

        let installed = try install(from: tree)
        #expect(installed == tracked, "installed but untracked: \(installed.subtracting(tracked)); tracked but missing: \(tracked.subtracting(installed))")
        #expect(installed.contains("Sources/TidingsABI/include/tidings.h") && installed.contains("Sources/TidingsABI/layout.c"))
        #expect(!installed.contains("Sources/TidingsBase/Untracked.swift"))
        #expect(installed.isDisjoint(with: Self.strays))
    }

    @Test func outsideACheckoutOnlySourceFilesAreInstalled() throws {
        let tree = try copyOfTheTree("tarball")
        try plantStrays(in: tree)
        let installed = try install(from: tree)
        let expected = try sources(in: tree) { file in
            file.hasSuffix(".swift") || file.hasSuffix(".h") || file.hasSuffix(".c") || file.hasSuffix("/module.modulemap")
                || file.contains("/include/")
        }
        #expect(installed == expected, "unexpected: \(installed.subtracting(expected)); missing: \(expected.subtracting(installed))")
        #expect(installed.contains("Sources/TidingsABI/include/tidings.h") && installed.contains("Sources/TidingsBase/Diagnostics/Diagnostic.swift"))
        #expect(installed.isDisjoint(with: Self.strays))
        #expect(!installed.contains { $0.contains(".docc/") })
    }

    @Test func theAppLibrarysPackageHoldsTidingsAppAndWhatItNeeds() throws {
        let tree = try copyOfTheTree("app")
        try plantStrays(in: tree)
        _ = try install(from: tree)
        let package = tree + "-prefix/share/tidings/TidingsApp"
        let installed = try installedSources(of: package)
        let expected = try sources(in: tree, modules: Self.appModules) { file in
            file.hasSuffix(".swift") || file.hasSuffix(".h") || file.hasSuffix(".c") || file.hasSuffix("/module.modulemap")
                || file.contains("/include/")
        }
        #expect(installed == expected, "unexpected: \(installed.subtracting(expected)); missing: \(expected.subtracting(installed))")
        #expect(installed.contains("Sources/TidingsApp/UserNotificationCenter.swift"))
        #expect(installed.isDisjoint(with: Self.strays))
        // Its manifest names each module it holds, and the product an app depends on.
        let manifest = try String(contentsOfFile: package + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains(".library(name: \"TidingsApp\", targets: [\"TidingsApp\"])"), "\(manifest)")
        for module in Self.appModules { #expect(manifest.contains(".target(name: \"\(module)\""), "\(module)") }
        #expect(!manifest.contains("@VERSION@"))
    }
}
