import Foundation
import TestSupport
import Testing

/// Every diagnostic code a bundle on disk can produce — its manifest, its
/// interface file, its library, its place among other bundles — through
/// every tool that judges one: `install`, `list`, `manifest lint`,
/// `validate`'s file checks and `deliver --explain` give the same codes at the
/// same severities, and `install`, `lint` and `validate` fail alike.
extension CommonMistakesTests {
    /// A way to break a good bundle, and the code it must produce.
    struct Breakage: CustomTestStringConvertible, Sendable {
        var code: String
        /// Changes the files made by `make` (the manifest's text, the interface's, the library).
        var change: @Sendable (inout Files, _ directory: String) throws -> Void
        var testDescription: String { code }
    }

    /// `files`' manifest with `old` replaced by `new`.
    static func editManifest(_ files: Files, _ old: String, _ new: String) throws {
        let text = try String(contentsOfFile: files.manifest, encoding: .utf8)
        guard text.contains(old) else { throw CCompiler.Failure(description: "the manifest has no \(old)") }
        try text.replacing(old, with: new).write(toFile: files.manifest, atomically: true, encoding: .utf8)
    }

    static func interface(_ files: Files, _ text: String) throws {
        try text.write(toFile: files.interface, atomically: true, encoding: .utf8)
    }

    /// The directory holding `path`.
    static func directory(of path: String) -> String { (path as NSString).deletingLastPathComponent }

    static let category = "<key>UNNotificationExtensionCategory</key><string>chat</string>"

    static let breakages: [Breakage] = [
        Breakage(code: "manifest.category-missing") { files, _ in try editManifest(files, category, "") },
        Breakage(code: "manifest.category-empty") { files, _ in try editManifest(files, category, "<key>UNNotificationExtensionCategory</key><string></string>") },
        Breakage(code: "manifest.category-whitespace") { files, _ in try editManifest(files, category, "<key>UNNotificationExtensionCategory</key><string>chat </string>") },
        Breakage(code: "manifest.category-duplicate") { files, _ in
            try editManifest(files, category, "<key>UNNotificationExtensionCategory</key><array><string>chat</string><string>chat</string></array>")
        },
        Breakage(code: "manifest.unknown-attribute") { files, _ in
            try editManifest(files, category, category + "<key>UNNotificationExtensionDefaultContentHiden</key><true/>")
        },
        Breakage(code: "manifest.ratio-invalid") { files, _ in try editManifest(files, "<real>0.5</real>", "<real>-1</real>") },
        Breakage(code: "manifest.boolean-as-string") { files, _ in
            try editManifest(files, "<key>UNNotificationExtensionDefaultContentHidden</key><false/>",
                             "<key>UNNotificationExtensionDefaultContentHidden</key><string>NO</string>")
        },
        Breakage(code: "manifest.bundle-identifier-invalid") { files, _ in
            try editManifest(files, "<string>com.example.mistake.matrix", "<string>com.example.mistake.matrix bad!")
        },
        Breakage(code: "manifest.extension-point-unknown") { files, _ in
            try editManifest(files, "com.apple.usernotifications.content-extension", "com.apple.usernotifications.contents-extension")
        },
        Breakage(code: "plist.syntax") { files, _ in try editManifest(files, "</dict>\n</plist>", "</dict>") },
        Breakage(code: "interface.unknown-type") { files, _ in
            try interface(files, #"{"version": 1, "root": {"type": "lable", "id": "state"}}"#)
        },
        Breakage(code: "interface.duplicate-identifier") { files, _ in
            try interface(files, #"{"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "state"}, {"type": "label", "id": "state"}]}}"#)
        },
        Breakage(code: "interface.unknown-member") { files, _ in
            try interface(files, #"{"version": 1, "root": {"type": "label", "id": "state", "colour": "red"}}"#)
        },
        Breakage(code: "interface.unsupported-version") { files, _ in
            try interface(files, #"{"version": 99, "root": {"type": "label", "id": "state"}}"#)
        },
        Breakage(code: "interface.invalid") { files, _ in try interface(files, #"{"version": 1}"#) },
        Breakage(code: "json.syntax") { files, _ in try interface(files, #"{"version": 1, "root": "#) },
        Breakage(code: "bundle.interface-missing") { files, _ in
            try editManifest(files, "<string>MainInterface</string>", "<string>OtherInterface</string>")
        },
        Breakage(code: "bundle.interaction-disabled") { files, _ in
            try interface(files, #"{"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "state"}, {"type": "button", "id": "go", "title": "Go"}]}}"#)
        },
        Breakage(code: "load.entry-missing") { files, directory in
            files.library = try CCompiler.fixture("Faulty", into: directory, output: "libMistake.so",
                                                  extraFlags: ["-Dtidings_extension_entry=tidings_extension_entri"])
        },
        Breakage(code: "load.unresolved-symbol") { files, directory in
            try "int missing_everywhere(void); int use(void) { return missing_everywhere(); }\n"
                .write(toFile: directory + "/extra.c", atomically: true, encoding: .utf8)
            files.library = try CCompiler.fixture("Faulty", into: directory, output: "libMistake.so",
                                                  extraFlags: [directory + "/extra.c"])
        },
        Breakage(code: "load.not-elf") { files, _ in
            try "not a library\n".write(toFile: files.library, atomically: true, encoding: .utf8)
        },
        Breakage(code: "registry.identifier-shadowed") { files, _ in
            // Another bundle with the same identifier, whose name sorts first, installed beside it beforehand.
            let extensions = directory(of: directory(of: files.manifest)) + "/extensions-matrix-registry.identifier-shadowed"
            try FileManager.default.createDirectory(atPath: extensions + "/Aardvark.appex", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: files.library, toPath: extensions + "/Aardvark.appex/libMistake.so")
            try FileManager.default.copyItem(atPath: files.manifest, toPath: extensions + "/Aardvark.appex/Info.plist")
            try FileManager.default.copyItem(atPath: files.interface, toPath: extensions + "/Aardvark.appex/MainInterface.json")
        },
    ]

    @Test(arguments: breakages)
    func everyToolGivesTheSameVerdictOnEveryCode(_ breakage: Breakage) throws {
        let name = "matrix-\(breakage.code)"
        var files = try make(name, identifier: "com.example.mistake.matrix")
        try breakage.change(&files, Self.directory(of: files.manifest))
        let results = try everyVerdict(files, name: name)
        let expected = try #require(results["list"]).verdicts
        #expect(expected.contains { $0.hasSuffix(" " + breakage.code) }, "list: \(expected)")
        for (tool, result) in results.sorted(by: { $0.key < $1.key }) {
            #expect(Self.fileVerdicts(result.verdicts) == Self.fileVerdicts(expected), "\(tool): \(result.output)")
        }
        // An error fails each tool that judges the bundle alone; a warning fails none.
        let failing = expected.contains { $0.hasPrefix("error ") }
        for tool in ["install", "manifest lint", "validate"] {
            #expect(results[tool]?.status == (failing ? 65 : 0), "\(tool): \(results[tool]?.output ?? "")")
        }
    }
}
