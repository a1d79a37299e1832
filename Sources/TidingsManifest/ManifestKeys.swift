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

    /// Every `UNNotificationExtension…` attribute Apple defines.
    package static let knownAttributes: [String] = [
        category, initialContentSizeRatio, defaultContentHidden, overridesDefaultTitle, userInteractionEnabled,
    ]

    /// The key path of an attribute inside the manifest.
    package static func attributePath(_ key: String) -> String {
        "\(`extension`).\(attributes).\(key)"
    }
}
