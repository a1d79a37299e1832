import Foundation
import TestSupport
import Testing

/// One verdict on a broken bundle from every command that judges one:
/// `manifest lint`, `install`, `list` and `deliver --explain` name the same
/// problem, and `install` refuses it unless forced.
@Suite struct VerdictTests {
    let tidings = Tidings()
    let scratch = TemporaryDirectory("verdict")

    /// A broken bundle: how to make its files, and the code every command must name.
    struct Breakage: CustomTestStringConvertible, Sendable {
        var name: String
        var code: String
        /// Makes the manifest, library and resources to install; returns them in `tidings install`'s order.
        var make: @Sendable (_ directory: String) throws -> [String]
        var testDescription: String { name }
    }

    static let manifest = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>com.example.verdict.viewer</string>
        <key>CFBundleExecutable</key><string>libViewer.so</string>
        <key>NSExtension</key><dict>
          <key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.content-extension</string>
          <key>NSExtensionMainStoryboard</key><string>MainInterface</string>
          <key>NSExtensionAttributes</key><dict>
            <key>UNNotificationExtensionCategory</key><string>verdict</string>
            <key>UNNotificationExtensionInitialContentSizeRatio</key><real>0.5</real>
          </dict>
        </dict>
        </dict></plist>
        """

    /// The manifest, a library built from Broken.c with `flags`, and a good interface file.
    static func broken(_ flags: [String], in directory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let manifest = directory + "/Viewer.plist"
        try Self.manifest.write(toFile: manifest, atomically: true, encoding: .utf8)
        let library = try CCompiler.fixture("Broken", into: directory, output: "libViewer.so", extraFlags: flags)
        let interface = directory + "/MainInterface.json"
        try #"{"version": 1, "root": {"type": "label", "id": "title"}}"#.write(toFile: interface, atomically: true, encoding: .utf8)
        return [manifest, library, interface]
    }

    static let breakages: [Breakage] = [
        Breakage(name: "no entry symbol", code: "load.entry-missing") { try broken(["-DNO_ENTRY"], in: $0) },
        Breakage(name: "a symbol nothing defines", code: "load.unresolved-symbol") { try broken(["-DUNRESOLVED"], in: $0) },
        Breakage(name: "a library that is not there", code: "load.needed-library-missing") { directory in
            // Linked against a library that is then removed.
            let ghost = directory + "/libghost.so"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "int ghost(void) { return 1; }\n".write(toFile: directory + "/ghost.c", atomically: true, encoding: .utf8)
            try CCompiler.sharedLibrary(directory + "/ghost.c", output: ghost)
            let files = try broken(["-Wl,--no-as-needed", "-L", directory, "-lghost"], in: directory)
            try FileManager.default.removeItem(atPath: ghost)
            return files
        },
        Breakage(name: "an interface file with errors", code: "interface.unknown-type") { directory in
            var files = try broken([], in: directory)
            try #"{"version": 1, "root": {"type": "lable", "id": "title"}}"#.write(toFile: files[2], atomically: true, encoding: .utf8)
            return files
        },
        Breakage(name: "a manifest with errors", code: "manifest.category-missing") { directory in
            let files = try broken([], in: directory)
            let text = Self.manifest.replacing("<key>UNNotificationExtensionCategory</key><string>verdict</string>", with: "")
            try text.write(toFile: files[0], atomically: true, encoding: .utf8)
            return files
        },
    ]

    @Test(arguments: breakages)
    func everyCommandGivesTheSameVerdict(_ breakage: Breakage) throws {
        let files = try breakage.make(scratch.file("inputs-\(breakage.code)"))
        let extensions = scratch.file("extensions-\(breakage.code)")

        // install refuses it, names the problem, installs nothing; --json says so on standard output.
        let refused = try tidings.run(["install"] + files + ["--into", extensions, "--json"])
        #expect(refused.status == 65)
        #expect(refused.standardError.contains("[\(breakage.code)]"))
        #expect(refused.standardOutput.contains("\"\(breakage.code)\"") && refused.standardOutput.contains("\"ok\": false"))
        #expect(!FileManager.default.fileExists(atPath: extensions + "/Viewer.appex"))

        // --force installs it anyway; then each command that reads it says the same.
        #expect(try tidings.run(["install"] + files + ["--into", extensions, "--force"]).status == 0)
        let bundle = extensions + "/Viewer.appex"
        let lint = try tidings.run("manifest", "lint", bundle)
        #expect(lint.status == 65)
        #expect(lint.standardOutput.contains("[\(breakage.code)]"))

        let list = try tidings.run("list", "--extensions", extensions, "--json")
        #expect(list.standardOutput.contains("\"\(breakage.code)\""))

        let payload = try scratch.write(#"{"aps": {"alert": {"title": "t", "body": "b"}, "category": "verdict"}}"#,
                                        to: "payload-\(breakage.code).json")
        let explained = try tidings.run("deliver", payload, "--app", "com.example.verdict", "--extensions", extensions,
                                        "--explain", "--isolation", "in-process")
        #expect(explained.standardOutput.contains("Viewer.appex"))
        #expect(explained.standardOutput.contains("[\(breakage.code)]"))
    }

    @Test func aGoodBundleIsJudgedGoodEverywhere() throws {
        let files = try Self.broken([], in: scratch.file("good"))
        let extensions = scratch.file("good-extensions")
        let installed = try tidings.run(["install"] + files + ["--into", extensions])
        #expect(installed.status == 0 && installed.standardError.isEmpty)
        let lint = try tidings.run("manifest", "lint", extensions + "/Viewer.appex")
        #expect(lint.status == 0 && lint.standardOutput.contains("valid"))
        #expect(try tidings.run("list", "--extensions", extensions).standardOutput.contains("Viewer.appex"))
        // The Swift sample too: its Swift runtime libraries are found, as the dynamic linker finds them.
        try tidings.installSamples(into: scratch.file("samples"))
        let samples = try tidings.run("list", "--extensions", scratch.file("samples"), "--json")
        #expect(!samples.standardOutput.contains("load."))
    }

    @Test func aManifestCalledInfoPlistNamesTheBundleAfterTheManifest() throws {
        let files = try Self.broken([], in: scratch.file("info"))
        let info = scratch.file("info") + "/Info.plist"
        try FileManager.default.moveItem(atPath: files[0], toPath: info)
        let extensions = scratch.file("info-extensions")
        #expect(try tidings.run(["install", info, files[1], files[2], "--into", extensions]).status == 0)
        #expect(FileManager.default.fileExists(atPath: extensions + "/com.example.verdict.viewer.appex"))
    }

    @Test func aMissingLibraryIsAMissingInput() throws {
        let files = try Self.broken([], in: scratch.file("missing"))
        let result = try tidings.run("install", files[0], scratch.file("nowhere.so"), "--into", scratch.file("x"))
        #expect(result.status == 66)
        #expect(result.standardError.contains("does not exist"))
    }
}

extension VerdictTests {
    @Test func uninstallRemovesWhatInstallMade() throws {
        let extensions = scratch.file("uninstall")
        try tidings.installSamples(into: extensions)
        let removed = try tidings.run("uninstall", "EventInvite", "com.example.ci.build-status", "--extensions", extensions)
        #expect(removed.status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: extensions)
        #expect(left == ["NoOp.appex"])
        let unknown = try tidings.run("uninstall", "NoOps", "--extensions", extensions)
        #expect(unknown.status == 66 && unknown.standardError.contains("Did you mean NoOp?"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: extensions) == ["NoOp.appex"])
    }
}
