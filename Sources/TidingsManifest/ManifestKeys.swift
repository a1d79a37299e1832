/// The Info.plist keys Tidings reads, spelled as Apple spells them.
package enum ManifestKey {
    package static let bundleIdentifier = "CFBundleIdentifier"
    package static let executable = "CFBundleExecutable"
    package static let displayName = "CFBundleDisplayName"
    package static let bundleName = "CFBundleName"
    package static let shortVersion = "CFBundleShortVersionString"
    package static let `extension` = "NSExtension"
    package static let pointIdentifier = "NSExtensionPointIdentifier"
    package static let mainStoryboard = "NSExtensionMainStoryboard"
    package static let principalClass = "NSExtensionPrincipalClass"
    package static let attributes = "NSExtensionAttributes"
    package static let category = "UNNotificationExtensionCategory"
    package static let initialContentSizeRatio = "UNNotificationExtensionInitialContentSizeRatio"
    package static let defaultContentHidden = "UNNotificationExtensionDefaultContentHidden"
    package static let overridesDefaultTitle = "UNNotificationExtensionOverridesDefaultTitle"
    package static let userInteractionEnabled = "UNNotificationExtensionUserInteractionEnabled"
    /// Tidings's own: the bundle's opened interfaces share one worker process.
    package static let sharedWorker = "TidingsSharedWorker"

    /// Every `UNNotificationExtension…` attribute Apple defines.
    package static let knownAttributes: [String] = [
        category, initialContentSizeRatio, defaultContentHidden, overridesDefaultTitle, userInteractionEnabled,
    ]

    /// The attributes Tidings adds to Apple's, read from the same dictionary.
    package static let tidingsAttributes: [String] = [sharedWorker]

    /// The key path of an attribute inside the manifest.
    package static func attributePath(_ key: String) -> String {
        "\(`extension`).\(attributes).\(key)"
    }
}
