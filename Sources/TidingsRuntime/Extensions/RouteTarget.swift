import Synchronization
import TidingsBase
import TidingsManifest
import TidingsRegistry

/// Where one (app, category) route leads: the bundle the index routes it
/// to, with its manifest and, once started, its extension. A host keeps one
/// per route it delivered to, so that a delivery neither copies the bundle
/// out of the index nor finds its provider again by path. The index never
/// changes under a host, so what is kept stays true.
package final class RouteTarget: Sendable {
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
