import Foundation
import TestSupport
import Testing

/// `tidings new`'s checks and `tidings validate` on a Swift project (the
/// flows themselves: ScaffoldFlowTests).
@Suite struct ScaffoldTests {
    let tidings = Tidings()
    let scratch = TemporaryDirectory("scaffold")

    @Test func namesAndPlacesAreChecked() throws {
        #expect(try tidings.run("new", "9lives").status == 64)
        #expect(try tidings.run("new", "Two Words").status == 64)
        #expect(try tidings.run("new", "Digest", "--kind", "widget").status == 64)
        #expect(try tidings.run("new", "Digest", "--kind", "service", "--categories", "a").status == 64)
        #expect(try tidings.run("new", "Taken", "--into", scratch.path).status == 0)
        let again = try tidings.run("new", "Taken", "--into", scratch.path)
        #expect(again.status == 73 && again.standardError.contains("exists already"))
    }

    @Test func validateOnAnUnbuiltSwiftPackageSaysToBuildIt() throws {
        #expect(try tidings.run("new", "Unbuilt", "--into", scratch.path).status == 0)
        let validated = try tidings.run(["validate", "."], environment: [:], directory: scratch.file("Unbuilt"))
        #expect(validated.status == 66)
        #expect(validated.standardError.contains("neither .build/debug/libUnbuilt.so nor .build/release/libUnbuilt.so is built"))
        #expect(validated.standardError.contains("run swift build"))
    }

    /// Of .build/debug and .build/release, validate takes the newest build, and says so.
    @Test func validateTakesAPackagesNewestBuild() throws {
        // A C project's library stands for a Swift build: only the files' places and times matter.
        #expect(try tidings.run("new", "Twice", "--language", "c", "--into", scratch.path).status == 0)
        let project = scratch.file("Twice")
        #expect(try ProcessRunner.run("/bin/sh", ["-c", "make -s"], directory: project).status == 0)
        let files = FileManager.default
        try "// swift-tools-version: 6.0\n".write(toFile: project + "/Package.swift", atomically: true, encoding: .utf8)
        for build in ["debug", "release"] {
            try files.createDirectory(atPath: project + "/.build/\(build)", withIntermediateDirectories: true)
            try files.copyItem(atPath: project + "/libTwice.so", toPath: project + "/.build/\(build)/libTwice.so")
        }
        try files.removeItem(atPath: project + "/libTwice.so")
        try files.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: project + "/.build/debug/libTwice.so")
        let validated = try tidings.run(["validate", ".", "--categories", "categories.json"], directory: project)
        #expect(validated.status == 0, "\(validated.standardOutput)")
        #expect(validated.standardError.contains("Validating .build/release/libTwice.so, the package's newest build of libTwice.so (newer than the other build's)"),
                "\(validated.standardError)")
        // The report is the project's, under the path given, not the staged bundle's.
        #expect(validated.standardOutput.hasPrefix(".\n") && validated.standardOutput.contains("pass  library"))
    }

    /// An install with the header but not the SDK package (an older one): C finds the header; Swift
    /// is refused with the places looked in and --tidings as the fix, never a checkout's package in its place.
    @Test func aPrefixWithoutTheSDKPackageNamesWhereItLooked() throws {
        let prefix = scratch.file("old-prefix")
        let files = FileManager.default
        for directory in ["bin", "include/tidings"] {
            try files.createDirectory(atPath: "\(prefix)/\(directory)", withIntermediateDirectories: true)
        }
        try files.copyItem(atPath: Locations.product("tidings"), toPath: prefix + "/bin/tidings")
        try files.copyItem(atPath: Locations.headerDirectory + "/tidings.h", toPath: prefix + "/include/tidings/tidings.h")
        var installed = tidings
        installed.executable = prefix + "/bin/tidings"

        #expect(try installed.run("new", "Plain", "--language", "c", "--into", scratch.path).status == 0)
        let makefile = try String(contentsOfFile: scratch.file("Plain/Makefile"), encoding: .utf8)
        #expect(makefile.contains("TIDINGS_CFLAGS ?= -I") && makefile.contains("old-prefix/include/tidings\n"))

        let swift = try installed.run("new", "Swifty", "--into", scratch.path)
        #expect(swift.status == 66)
        #expect(swift.standardError.contains("Cannot find the Tidings Swift package from this tidings"), "\(swift.standardError)")
        #expect(swift.standardError.contains(
            "old-prefix (include/tidings/tidings.h, share/tidings/TidingsSDK/Package.swift, share/tidings/TidingsApp/Package.swift)"))
        #expect(swift.standardError.contains("with --tidings"))
        #expect(!files.fileExists(atPath: scratch.file("Swifty")))

        // Nor an app without the app library's package.
        let app = try installed.run("new", "Appy", "--kind", "app", "--into", scratch.path)
        #expect(app.status == 66)
        #expect(app.standardError.contains("Cannot find the app library's package (TidingsApp) from this tidings"), "\(app.standardError)")
        #expect(!files.fileExists(atPath: scratch.file("Appy")))
    }

    /// An app from a checkout's tidings: a package with one executable on the
    /// checkout's TidingsApp, named by the checkout's identity; `--kind app`
    /// takes neither C nor categories.
    @Test func anAppDependsOnTheCheckoutsTidingsApp() throws {
        #expect(try tidings.run("new", "Pills", "--kind", "app", "--language", "c").status == 64)
        #expect(try tidings.run("new", "Pills", "--kind", "app", "--categories", "a").status == 64)
        // A package without TidingsApp (an installed SDK's, say): refused, nothing made.
        let sdk = scratch.file("TidingsSDK")
        try FileManager.default.createDirectory(atPath: sdk + "/Sources/TidingsSDK", withIntermediateDirectories: true)
        try "// swift-tools-version: 6.0\n".write(toFile: sdk + "/Package.swift", atomically: true, encoding: .utf8)
        let wrong = try tidings.run("new", "Wrong", "--kind", "app", "--tidings", sdk, "--into", scratch.path)
        #expect(wrong.status == 66 && wrong.standardError.contains("holds no TidingsApp"), "\(wrong.standardError)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("Wrong")))
        let made = try tidings.run("new", "Pills", "--kind", "app", "--app", "org.example.pills", "--into", scratch.path, "--json")
        #expect(made.status == 0, "\(made.standardError)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(made.standardOutput.utf8)) as? [String: Any])
        #expect(plan["build"] as? String == "swift build" && plan["run"] as? String == ".build/debug/Pills", "\(plan)")
        let manifest = try String(contentsOfFile: scratch.file("Pills/Package.swift"), encoding: .utf8)
        let checkout = Locations.repository.replacingOccurrences(of: "//", with: "/")
        let identity = (checkout as NSString).lastPathComponent.lowercased()
        #expect(manifest.contains(".package(path: \"\(checkout)\")"), "\(manifest)")
        #expect(manifest.contains(".product(name: \"TidingsApp\", package: \"\(identity)\")"), "\(manifest)")
        let main = try String(contentsOfFile: scratch.file("Pills/Sources/Pills/main.swift"), encoding: .utf8)
        #expect(main.contains("UserNotificationCenter(app: \"org.example.pills\"") && main.contains("requestAuthorization"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("Pills/Info.plist")))
    }
}
