import Synchronization
import TidingsBase
import TidingsManifest
import TidingsRegistry

/// The bundle each (app, category) routes to, looked up in the index once
/// and kept with its started extension, so that a delivery neither copies
/// the bundle out of the index nor finds its provider again by path.
///
/// Only routes the index serves are kept; the index never changes under a
/// host, so what is kept stays true.
final class RouteCache: Sendable {
    /// Where one route leads.
    final class Target: Sendable {
        /// The bundle the index routes to.
        let bundle: ExtensionBundle
        /// Its manifest.
        let manifest: Manifest
        /// The provider, once it has started.
        private let started = Mutex<StartedExtension?>(nil)

        /// A target for `bundle`; nil when it has no manifest (the index routes only bundles that do).
        init?(bundle: ExtensionBundle) {
            guard let manifest = bundle.manifest else { return nil }
            self.bundle = bundle
            self.manifest = manifest
        }

        /// The bundle's provider from `providers` (which launches each bundle
        /// at most once and keeps a failure), kept here once it has started.
        func provider(from providers: ProviderCache, launcher: any ExtensionLauncher) throws(Diagnostic)
            -> StartedExtension
        {
            if let provider = started.withLock({ $0 }) { return provider }
            let provider = StartedExtension(try providers.provider(for: bundle, launcher: launcher))
            started.withLock { $0 = provider }
            return provider
        }
    }

    /// The targets found so far, by route.
    private let targets = Mutex<[ExtensionIndex.Route: Target]>([:])

    /// Where `app`'s notifications of `category` go in `index`; nil when no content extension serves them.
    func target(app: String, category: String, in index: ExtensionIndex) -> Target? {
        let route = ExtensionIndex.Route(app: app, category: category)
        if let target = targets.withLock({ $0[route] }) { return target }
        guard let bundle = index.contentExtension(forApp: app, category: category),
              let made = Target(bundle: bundle)
        else { return nil }
        return targets.withLock { targets in
            if let target = targets[route] { return target }
            targets[route] = made
            return made
        }
    }
}
