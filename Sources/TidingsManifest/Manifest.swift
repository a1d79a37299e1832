/// What a notification extension's Info.plist says, validated.
///
/// Built by `Manifest.validate(_:file:)`; a manifest exists only when its
/// property list had no errors, so every field here can be relied on.
package struct Manifest: Sendable, Equatable {
    /// `CFBundleIdentifier`, such as `com.example.events.invite`.
    package var bundleIdentifier: String
    /// `CFBundleExecutable`: the file name of the shared library inside the bundle.
    package var executable: String
    /// `CFBundleDisplayName`, else `CFBundleName`, when given.
    package var displayName: String?
    /// `CFBundleShortVersionString`, when given.
    package var version: String?
    /// `NSExtension.NSExtensionPointIdentifier`.
    package var point: ExtensionPoint
    /// `NSExtension.NSExtensionMainStoryboard`: the name of the interface file.
    package var interfaceName: String?
    /// `UNNotificationExtensionCategory`, as a list without repeats, in the order given.
    package var categories: [String]
    /// `UNNotificationExtensionInitialContentSizeRatio`: height ÷ width while loading.
    package var initialContentSizeRatio: Double?
    /// `UNNotificationExtensionDefaultContentHidden` (default false).
    package var defaultContentHidden: Bool
    /// `UNNotificationExtensionOverridesDefaultTitle` (default false).
    package var overridesDefaultTitle: Bool
    /// `UNNotificationExtensionUserInteractionEnabled` (absent: false, touches blocked).
    package var userInteractionEnabled: Bool
    /// `TidingsSharedWorker` (a Tidings key; absent: false): in isolated
    /// mode the instances of every opened interface share one worker
    /// process, and so its globals, instead of getting a worker each.
    package var sharedWorker = false

    /// The identifier of the app the extension belongs to: its own identifier
    /// without the last component (`com.example.events.invite` belongs to
    /// `com.example.events`), Apple's prefix rule in its usual form.
    package var appIdentifier: String {
        Manifest.appIdentifier(ofExtension: bundleIdentifier)
    }

    /// The app identifier an extension identifier implies; "" when it has a single component.
    package static func appIdentifier(ofExtension identifier: String) -> String {
        guard let dot = identifier.lastIndex(of: ".") else { return "" }
        return String(identifier[..<dot])
    }
}
