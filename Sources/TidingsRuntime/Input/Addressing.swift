import TidingsBase
import TidingsRegistry

/// Who a notification is for, and the words its alert is translated with,
/// when a front end does not say: what `tidings deliver` and the server share.
package enum Addressing {
    /// The app a notification is addressed to: `given`, else the only app
    /// among `registering` (apps that registered its category), else the only
    /// app with a content extension for its category.
    /// - Throws: a sentence saying what to name instead, with the option or
    ///   parameter called `naming` ("--app", "\"app\"").
    package static func app(for notification: UserNotification, given: String?, registering: [String],
                            index: ExtensionIndex, naming: String) throws(Diagnostic) -> String {
        if let given { return given }
        let category = notification.content.categoryIdentifier
        guard !category.isEmpty else {
            throw .error(.addressUnknownApp, "Name the app with \(naming): the notification has no category to find it by.")
        }
        let declaring = Set(registering)
        if declaring.count == 1, let app = declaring.first { return app }
        let serving = index.apps(servingCategory: category)
        if serving.count == 1 { return serving[0] }
        if serving.isEmpty {
            throw .error(.addressUnknownApp,
                         "Name the app with \(naming): no content extension on the search path declares category \"\(category)\".")
        }
        throw .error(.addressUnknownApp,
                     "Name the app with \(naming): category \"\(category)\" is served for \(serving.joined(separator: ", ")).")
    }

    /// The strings of `app`'s bundles for `*-loc-key` (the first bundle that
    /// has a key wins), and warnings for tables that cannot be read, whose
    /// keys then stand for themselves.
    package static func strings(ofApp app: String, index: ExtensionIndex) -> (strings: [String: String], warnings: [Diagnostic]) {
        var strings: [String: String] = [:]
        var warnings: [Diagnostic] = []
        for bundle in index.bundles(ofApp: app) {
            do {
                strings.merge(try BundleReader.strings(ofBundle: bundle.path)) { first, _ in first }
            } catch {
                // A broken table costs the translation, not the notification.
                warnings.append(.warning(error.code, error.message + " Its keys stand for themselves.", at: error.location))
            }
        }
        return (strings, warnings)
    }
}

extension Diagnostic.Code {
    /// The app a notification is for cannot be told from it.
    package static let addressUnknownApp = Self("address.unknown-app")
}
