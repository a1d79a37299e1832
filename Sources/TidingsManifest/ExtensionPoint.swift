/// The kind of notification extension a bundle provides, spelled exactly as
/// in Apple's `NSExtensionPointIdentifier`, so real manifests read as they are.
package enum ExtensionPoint: String, Sendable, CaseIterable {
    /// A content extension draws a custom view for notifications of its categories.
    case content = "com.apple.usernotifications.content-extension"
    /// A service extension rewrites incoming content before it is shown.
    case service = "com.apple.usernotifications.service"

    /// A short name for tables: `content` or `service`.
    package var shortName: String {
        switch self {
        case .content: "content"
        case .service: "service"
        }
    }
}
