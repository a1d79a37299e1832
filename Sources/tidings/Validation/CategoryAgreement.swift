import TidingsBase
import TidingsManifest
import TidingsRegistry
import TidingsRuntime

/// `tidings validate`'s categories check: the categories an app registers
/// (`--categories` files) and the notifications it sends (`--payload`
/// files) name the manifest's categories exactly, case included, as routing
/// matches them; a near miss is an error with the did-you-mean `deliver`
/// gives, naming the file, the key path and the fix.
enum CategoryAgreement {
    /// A payload file `--payload` gives, read.
    struct PayloadFile {
        var path: String
        var json: JSON

        /// The category the payload names, with its key path: `aps.category`, or a request's `content.categoryIdentifier`.
        var category: (name: String, keyPath: String)? {
            if let name = json["aps"]?["category"]?.stringValue { return (name, "aps.category") }
            if let name = json["content"]?["categoryIdentifier"]?.stringValue { return (name, "content.categoryIdentifier") }
            return nil
        }
    }

    /// The problems of `manifest`'s categories against `files` (those of its app) and `payloads`.
    static func problems(of manifest: Manifest, manifestFile: String, files: [(path: String, file: CategoryFile)],
                         payloads: [PayloadFile]) -> [Diagnostic] {
        let declared = manifest.categories
        // A service extension without categories rewrites all of its app's notifications.
        if manifest.point == .service && declared.isEmpty { return [] }
        var named: [(category: String, file: String, keyPath: String, sent: Bool)] = []
        for (path, file) in files where file.app == manifest.appIdentifier {
            for (position, category) in file.categories.enumerated() {
                named.append((category.identifier, path, "categories.\(position).identifier", false))
            }
        }
        for payload in payloads {
            if let (name, keyPath) = payload.category { named.append((name, payload.path, keyPath, true)) }
        }
        var problems: [Diagnostic] = []
        let key = ManifestKey.attributePath(ManifestKey.category)
        for (category, file, keyPath, sent) in named where !declared.contains(category) {
            let place = Diagnostic.Location(file: file, path: keyPath)
            var message = "\(file) names category \"\(category)\" at \(keyPath), which \(manifest.bundleIdentifier) does not declare"
            if let near = Suggestion.closest(to: category, among: declared) {
                // The commonest slip: the same name in another case, which routing tells apart.
                message += "; did you mean \"\(near)\"? (Categories match exactly, case included.) Write the same name in both: \(key) in \(manifestFile), or \(keyPath) here."
                problems.append(.error(.routeNoExtension, message, at: place))
            } else if sent {
                message += " (it declares \(declared.map { "\"\($0)\"" }.joined(separator: ", "))): no content extension of the app draws it. Name one of those at \(keyPath), or add it to \(key) in \(manifestFile)."
                problems.append(.error(.routeNoExtension, message, at: place))
            } else if manifest.point == .content {
                // An app may register categories no extension draws.
                problems.append(.note(.routeNoExtension, message + "; its notifications show the default content.", at: place))
            }
        }
        return problems
    }
}
