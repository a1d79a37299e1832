import Foundation
import Testing
import TestSupport

/// `tidings manifest` on real manifests in each format: every edit keeps the
/// format and the key order, a refused edit leaves the file byte for byte,
/// and conversion round-trips.
@Suite struct ManifestCommandTests {
    let tidings = Tidings()
    let directory = TemporaryDirectory("manifest")
    static let formats = ["xml", "binary", "json"]

    /// The EventInvite manifest as `format`, at a fresh path.
    func manifest(_ format: String) throws -> String {
        let path = directory.file("\(format)/Info.plist")
        try FileManager.default.createDirectory(atPath: directory.file(format), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Locations.repositoryFile("Manifests/EventInvite.plist"), toPath: path)
        if format != "xml" { try tidings.run("manifest", "convert", path, "--to", format) }
        return path
    }

    /// The manifest as JSON: its format and its value, keys in order.
    func read(_ path: String) throws -> (format: String, value: [String: Any], keys: [String], attributeKeys: [String]) {
        let result = try tidings.run("manifest", "print", path, "--json")
        try #require(result.status == 0, "\(result.standardError)")
        let text = result.standardOutput
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let value = try #require(json["value"] as? [String: Any])
        // JSONSerialization forgets the order: read it from the text, which keeps it.
        func order(of keys: some Collection<String>) -> [String] {
            keys.sorted { text.range(of: "\"\($0)\":")!.lowerBound < text.range(of: "\"\($1)\":")!.lowerBound }
        }
        let attributes = (value["NSExtension"] as? [String: Any])?["NSExtensionAttributes"] as? [String: Any] ?? [:]
        return (json["format"] as? String ?? "", value, order(of: value.keys), order(of: attributes.keys))
    }

    func attributes(_ value: [String: Any]) -> [String: Any] {
        (value["NSExtension"] as? [String: Any])?["NSExtensionAttributes"] as? [String: Any] ?? [:]
    }

    @Test(arguments: formats)
    func everyEditKeepsTheFormatAndTheKeyOrder(format: String) throws {
        let path = try manifest(format)
        let before = try read(path)
        #expect(before.format == format)
        let edits: [[String]] = [
            ["add-category", path, "event-update"],
            ["set-ratio", path, "0.5"],
            ["show-default-content", path],
            ["set", path, "CFBundleDisplayName", "string", "Invites"],
            ["set", path, "NSExtension.NSExtensionAttributes.UNNotificationExtensionOverridesDefaultTitle", "bool", "true"],
            ["insert", path, "NSExtension.NSExtensionAttributes.UNNotificationExtensionCategory.0", "string", "event-first"],
            ["remove", path, "CFBundleVersion"],
            ["remove-category", path, "event-first"],
        ]
        for edit in edits {
            let result = try tidings.run(["manifest"] + edit)
            #expect(result.status == 0, "\(edit): \(result.standardError)")
        }
        let after = try read(path)
        #expect(after.format == format)
        #expect(after.keys == before.keys.filter { $0 != "CFBundleVersion" })
        #expect(after.attributeKeys == before.attributeKeys + ["UNNotificationExtensionOverridesDefaultTitle"])
        let changed = attributes(after.value)
        #expect(changed["UNNotificationExtensionCategory"] as? [String] == ["event-invite", "event-update"])
        #expect(changed["UNNotificationExtensionInitialContentSizeRatio"] as? Double == 0.5)
        #expect(changed["UNNotificationExtensionDefaultContentHidden"] as? Bool == false)
        #expect(after.value["CFBundleDisplayName"] as? String == "Invites")
    }

    @Test(arguments: formats)
    func aRefusedEditLeavesTheFileByteForByte(format: String) throws {
        let path = try manifest(format)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        for edit in [["remove", path, "CFBundleExecutable"], ["remove-category", path, "event-invite"],
                     ["set", path, "NSExtension.NSExtensionPointIdentifier", "string", "com.example.nothing"],
                     ["set", path, "Missing.Key", "bool", "true"], ["set-ratio", path, "0"]] {
            let result = try tidings.run(["manifest"] + edit)
            #expect(result.status == 65, "\(edit)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original, "\(edit) changed the file")
        }
        let forced = try tidings.run("manifest", "remove", path, "CFBundleExecutable", "--force")
        #expect(forced.status == 0)
        #expect(try read(path).value["CFBundleExecutable"] == nil)
    }

    @Test func conversionRoundTripsThroughEveryFormat() throws {
        let path = try manifest("xml")
        let original = try read(path)
        for format in ["binary", "json", "xml", "json", "binary", "xml"] {
            #expect(try tidings.run("manifest", "convert", path, "--to", format).status == 0)
            let converted = try read(path)
            #expect(converted.format == format)
            #expect(converted.keys == original.keys)
            #expect(converted.attributeKeys == original.attributeKeys)
            #expect(NSDictionary(dictionary: converted.value).isEqual(to: original.value))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == String(contentsOfFile: Locations.repositoryFile("Manifests/EventInvite.plist"), encoding: .utf8),
                "XML back from binary and JSON is the text it started as")
    }

    @Test func aTargetIsAFileABundleOrABundleOnTheSearchPath() throws {
        let extensions = directory.file("extensions")
        try tidings.installSamples(into: extensions)
        let byDirectory = try tidings.run("manifest", "get", extensions + "/EventInvite.appex", "CFBundleIdentifier")
        #expect(byDirectory.standardOutput == "com.example.events.invite\n")
        let byName = try tidings.run("manifest", "get", "EventInvite", "CFBundleIdentifier", "--extensions", extensions)
        #expect(byName.standardOutput == "com.example.events.invite\n")
        let byIdentifier = try tidings.run("manifest", "get", "com.example.ci.build-status", ":CFBundleExecutable",
                                           "--extensions", extensions)
        #expect(byIdentifier.standardOutput == "libBuildStatus.so\n")
        let missing = try tidings.run("manifest", "print", "Nowhere", "--extensions", extensions)
        #expect(missing.status == 66)
    }

    @Test func lintListsEveryProblemAndQueriesSayWhatIsMissing() throws {
        let broken = try directory.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>CFBundleIdentifier</key><string>com.example.x.y</string>
              <key>NSExtension</key><dict>
                <key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.content-extension</string>
                <key>NSExtensionAttributes</key><dict><key>UNNotificationExtensionCategry</key><string>c</string></dict>
              </dict>
            </dict></plist>
            """, to: "broken/Info.plist")
        let lint = try tidings.run("manifest", "lint", broken)
        #expect(lint.status == 65)
        #expect(lint.standardOutput.contains("[manifest.executable-missing]"))
        #expect(lint.standardOutput.contains("did you mean"))
        let missing = try tidings.run("manifest", "get", broken, "NSExtension.Nothing")
        #expect(missing.status == 65)
        #expect(missing.standardError.contains("NSExtension.Nothing does not exist"))
        let unknown = try tidings.run("manifest", "lnt", broken)
        #expect(unknown.status == 64)
        #expect(unknown.standardError.contains("Did you mean lint?"))
    }
}
