import Foundation

/// Assembles NAME.appex bundles on disk for tests.
public enum BundleMaker {
    /// A content-extension Info.plist (XML) with the usual keys.
    public static func contentManifest(identifier: String, executable: String, categories: [String],
                                       ratio: String = "<real>0.5</real>", hidden: Bool = false,
                                       overridesTitle: Bool = false, interface: String? = nil,
                                       sharedWorker: Bool = false, userInteraction: Bool = false) -> String {
        let categoryXML = categories.count == 1
            ? "<string>\(categories[0])</string>"
            : "<array>" + categories.map { "<string>\($0)</string>" }.joined() + "</array>"
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
              <key>CFBundleIdentifier</key><string>\(identifier)</string>
              <key>CFBundleExecutable</key><string>\(executable)</string>
              <key>NSExtension</key>
              <dict>
                <key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.content-extension</string>
                \(interface.map { "<key>NSExtensionMainStoryboard</key><string>\($0)</string>" } ?? "")
                <key>NSExtensionAttributes</key>
                <dict>
                  <key>UNNotificationExtensionCategory</key>\(categoryXML)
                  <key>UNNotificationExtensionInitialContentSizeRatio</key>\(ratio)
                  <key>UNNotificationExtensionDefaultContentHidden</key><\(hidden)/>
                  <key>UNNotificationExtensionOverridesDefaultTitle</key><\(overridesTitle)/>
                  \(sharedWorker ? "<key>TidingsSharedWorker</key><true/>" : "")
                  <key>UNNotificationExtensionUserInteractionEnabled</key><\(userInteraction)/>
                </dict>
              </dict>
            </dict>
            </plist>
            """
    }

    /// A service-extension Info.plist (XML); without categories it serves all of its app's notifications.
    public static func serviceManifest(identifier: String, executable: String, categories: [String] = []) -> String {
        let categoryXML = categories.isEmpty ? "" : "<key>NSExtensionAttributes</key><dict>"
            + "<key>UNNotificationExtensionCategory</key><array>"
            + categories.map { "<string>\($0)</string>" }.joined() + "</array></dict>"
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
              <key>CFBundleIdentifier</key><string>\(identifier)</string>
              <key>CFBundleExecutable</key><string>\(executable)</string>
              <key>NSExtension</key>
              <dict>
                <key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.service</string>
                <key>NSExtensionPrincipalClass</key><string>NotificationService</string>
                \(categoryXML)
              </dict>
            </dict>
            </plist>
            """
    }

    /// Creates `directory/NAME.appex` with `manifest` as Info.plist, and copies
    /// `library` (when given) under its own name and each resource beside it.
    @discardableResult
    public static func make(_ name: String, in directory: String, manifest: String, library: String? = nil,
                            resources: [String] = []) throws -> String {
        let bundle = "\(directory)/\(name).appex"
        let files = FileManager.default
        try files.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try manifest.write(toFile: bundle + "/Info.plist", atomically: true, encoding: .utf8)
        for file in (library.map { [$0] } ?? []) + resources {
            let destination = bundle + "/" + (file as NSString).lastPathComponent
            try? files.removeItem(atPath: destination)
            try files.copyItem(atPath: file, toPath: destination)
        }
        return bundle
    }

    /// Installs the shipped sample `name` (EventInvite, BuildStatus, NoOp) into `directory`
    /// from the build products, as `tidings install` would.
    @discardableResult
    public static func installSample(_ name: String, in directory: String) throws -> String {
        let manifest = try String(contentsOfFile: Locations.repositoryFile("Manifests/\(name).plist"), encoding: .utf8)
        let interface = Locations.repositoryFile("Plugins/\(name)/MainInterface.json")
        let resources = FileManager.default.fileExists(atPath: interface) ? [interface] : []
        return try make(name, in: directory, manifest: manifest, library: Locations.product("lib\(name).so"),
                        resources: resources)
    }
}
