import TidingsBase
import TidingsManifest

/// Every bundle found on a search path, which content extension serves each
/// (app, category) pair, and which service extension rewrites it.
///
/// Built from manifests alone: no extension code runs to build it.
package struct ExtensionIndex: Sendable {
    /// The key a notification is routed by.
    package struct Route: Hashable, Sendable {
        package var app: String
        package var category: String

        package init(app: String, category: String) {
            self.app = app
            self.category = category
        }
    }

    /// The search path the bundles were found on.
    package var searchPath: SearchPath
    /// Every bundle found, broken ones included, in search order.
    package private(set) var bundles: [ExtensionBundle]
    /// Problems with the search path itself (an unreadable directory, say).
    package private(set) var diagnostics: [Diagnostic]
    /// How many bundles came from the index cache and how many were read.
    package var counts = DiscoveryCounts()
    private var routes: [Route: Int] = [:]
    /// Service extensions by (app, category); category "" for one that
    /// serves all of its app's notifications.
    private var serviceRoutes: [Route: Int] = [:]

    /// Indexes `bundles`, given in search order. Of two bundles with one
    /// identifier, the first serves; of two extensions of one app claiming
    /// one category, the first serves; the others are told why not.
    package init(searchPath: SearchPath, bundles: [ExtensionBundle], diagnostics: [Diagnostic] = []) {
        self.searchPath = searchPath
        self.bundles = bundles
        self.diagnostics = diagnostics
        var owners: [String: Int] = [:]
        for position in self.bundles.indices {
            guard let manifest = self.bundles[position].manifest else { continue }
            if let first = owners[manifest.bundleIdentifier] {
                shadow(position, by: first)
                continue
            }
            owners[manifest.bundleIdentifier] = position
            switch manifest.point {
            case .content:
                for category in manifest.categories {
                    claim(Route(app: manifest.appIdentifier, category: category), for: position, in: \.routes)
                }
            case .service:
                // Without categories, a service extension serves all of its app's notifications.
                for category in manifest.categories.isEmpty ? [""] : manifest.categories {
                    claim(Route(app: manifest.appIdentifier, category: category), for: position, in: \.serviceRoutes)
                }
            }
        }
    }

    /// The service extension that rewrites `app`'s notifications of
    /// `category`: one that declares the category, else one that serves all
    /// of the app's notifications.
    package func serviceExtension(forApp app: String, category: String) -> ExtensionBundle? {
        (serviceRoutes[Route(app: app, category: category)] ?? serviceRoutes[Route(app: app, category: "")])
            .map { bundles[$0] }
    }

    /// The content extension that serves notifications of `category` for `app`, if any.
    package func contentExtension(forApp app: String, category: String) -> ExtensionBundle? {
        routes[Route(app: app, category: category)].map { bundles[$0] }
    }

    /// The apps that have a content extension for `category`, sorted.
    package func apps(servingCategory category: String) -> [String] {
        Set(routes.keys.filter { $0.category == category }.map(\.app)).sorted()
    }

    /// The categories `app`'s content extensions serve, sorted.
    package func categories(ofApp app: String) -> [String] {
        routes.keys.filter { $0.app == app }.map(\.category).sorted()
    }

    /// The usable bundles of `app`'s extensions, in search order.
    package func bundles(ofApp app: String) -> [ExtensionBundle] {
        bundles.filter { $0.manifest?.appIdentifier == app }
    }

    /// The bundle whose directory name or identifier is `name`, if any.
    package func bundle(named name: String) -> ExtensionBundle? {
        bundles.first { $0.name == name || $0.name == "\(name).\(BundleReader.bundleExtension)" }
            ?? bundles.first { $0.manifest?.bundleIdentifier == name }
    }

    /// Changes each bundle in place (to add diagnostics found later); routes are kept.
    package mutating func updateBundles(_ change: (inout ExtensionBundle) -> Void) {
        for position in bundles.indices { change(&bundles[position]) }
    }

    private mutating func shadow(_ position: Int, by first: Int) {
        let winner = bundles[first]
        let sameDirectory = winner.searchRank == bundles[position].searchRank
        bundles[position].diagnostics.append(Diagnostic(
            sameDirectory ? .warning : .note, .identifierShadowed,
            "\(winner.path) has the same identifier \(winner.manifest!.bundleIdentifier) and comes first on the search path, so this bundle is not used.",
            at: .init(file: Path.join(bundles[position].path, BundleReader.manifestName), path: ManifestKey.bundleIdentifier)))
        // The one that serves is told too, so that every tool judging it names what it shadows.
        bundles[first].diagnostics.append(.note(
            .identifierShadowed,
            "This bundle serves \(winner.manifest!.bundleIdentifier); \(bundles[position].path), later on the search path, has the same identifier and is not used (remove it, or give it an identifier of its own).",
            at: .init(file: Path.join(winner.path, BundleReader.manifestName), path: ManifestKey.bundleIdentifier)))
    }

    /// Gives `route` to the bundle at `position` unless an earlier one has it.
    private mutating func claim(_ route: Route, for position: Int, in table: WritableKeyPath<Self, [Route: Int]>) {
        if let winner = self[keyPath: table][route] {
            reportConflict(on: route, winner: winner, loser: position)
        } else {
            self[keyPath: table][route] = position
        }
    }

    private mutating func reportConflict(on route: Route, winner: Int, loser: Int) {
        let first = bundles[winner]
        let second = bundles[loser]
        let what = route.category.isEmpty ? "all notifications" : "category \"\(route.category)\""
        let kind = first.manifest!.point == .service ? "service extensions" : "extensions"
        bundles[loser].diagnostics.append(.warning(
            .categoryConflict,
            "\(first.manifest!.bundleIdentifier) (\(first.path)) and \(second.manifest!.bundleIdentifier) (\(second.path)) are both \(kind) claiming \(what) of app \(route.app); the first serves it.",
            at: .init(file: Path.join(second.path, BundleReader.manifestName),
                      path: ManifestKey.attributePath(ManifestKey.category))))
        // The one that serves is told which one it shadows.
        bundles[winner].diagnostics.append(.note(
            .categoryConflict,
            "This bundle serves \(what) of app \(route.app); \(second.manifest!.bundleIdentifier) (\(second.path)) claims it too and is shadowed (uninstall the one not meant to serve).",
            at: .init(file: Path.join(first.path, BundleReader.manifestName),
                      path: ManifestKey.attributePath(ManifestKey.category))))
    }
}

extension Diagnostic.Code {
    /// Two bundles share an identifier; the first on the search path wins.
    package static let identifierShadowed = Self("registry.identifier-shadowed")
    /// Two extensions of one app claim one category; the first on the search path wins.
    package static let categoryConflict = Self("registry.category-conflict")
    /// A search-path directory could not be read.
    package static let directoryUnreadable = Self("registry.directory-unreadable")
    /// A search-path directory named explicitly does not exist.
    package static let directoryMissing = Self("registry.directory-missing")
}
