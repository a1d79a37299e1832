import TestSupport
import Testing
import TidingsBase
import TidingsRegistry

extension Finding {
    init(_ diagnostic: Diagnostic) {
        self.init(severity: diagnostic.severity.rawValue, code: diagnostic.code.rawValue, path: diagnostic.location.path)
    }
}

/// The diagnostics as findings, in order.
func findings(_ diagnostics: [Diagnostic]) -> [Finding] {
    diagnostics.map(Finding.init)
}

let categoryPath = "NSExtension.NSExtensionAttributes.UNNotificationExtensionCategory"

/// Search-path directories in a temporary directory, and bundles in them.
/// No shared library is needed: discovery reads manifests only.
final class ExtensionTree: Sendable {
    let temporary = TemporaryDirectory("registry")

    /// The directory `name` inside the tree, created.
    func directory(_ name: String = "extensions") throws -> String {
        let path = temporary.file(name)
        try FileSystem.createDirectory(path)
        return path
    }

    /// A content extension `NAME.appex` in `directory`.
    @discardableResult
    func content(_ name: String, in directory: String, identifier: String, categories: [String],
                 interface: String? = nil) throws -> String {
        try BundleMaker.make(name, in: directory, manifest: BundleMaker.contentManifest(
            identifier: identifier, executable: "lib\(name).so", categories: categories, interface: interface))
    }

    /// A service extension `NAME.appex` in `directory`, optionally (and uselessly) declaring categories.
    @discardableResult
    func service(_ name: String, in directory: String, identifier: String, categories: [String] = []) throws -> String {
        let attributes = categories.isEmpty ? "" : """
            <key>NSExtensionAttributes</key>
            <dict><key>UNNotificationExtensionCategory</key><array>\(
                categories.map { "<string>\($0)</string>" }.joined())</array></dict>
            """
        return try BundleMaker.make(name, in: directory, manifest: """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
              <key>CFBundleIdentifier</key><string>\(identifier)</string>
              <key>CFBundleExecutable</key><string>lib\(name).so</string>
              <key>NSExtension</key>
              <dict>
                <key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.service</string>
                \(attributes)
              </dict>
            </dict>
            </plist>
            """)
    }

    /// Writes `text` to the file at `path`.
    func write(_ text: String, to path: String) throws {
        try FileSystem.writeFileAtomically(path, Array(text.utf8))
    }

    /// Scans `directories` as a search path given with `--extensions`.
    func scan(_ directories: [String], origin: SearchPath.Origin = .option) -> ExtensionIndex {
        Discovery.scan(SearchPath(directories: directories, origin: origin))
    }
}
