import TidingsBase
import TidingsManifest

/// A `NAME.appex` directory found on the search path, with what its files say.
///
/// A bundle is listed even when it is broken, so that `tidings list` can show
/// why; only a bundle with a valid manifest serves notifications.
package struct ExtensionBundle: Sendable {
    /// The bundle directory's path.
    package var path: String
    /// The position of its directory in the search path (0 is first).
    package var searchRank: Int
    /// The validated manifest; nil when the manifest is missing or has errors.
    package var manifest: Manifest?
    /// The interface the manifest names, when it has one and it reads cleanly.
    package var interface: Interface?
    /// Everything found wrong, in the manifest, the interface file or the layout.
    package var diagnostics: [Diagnostic]

    /// A bundle at `path` with what was read of it.
    package init(path: String, searchRank: Int = 0, manifest: Manifest?, interface: Interface?,
                 diagnostics: [Diagnostic] = []) {
        self.path = path
        self.searchRank = searchRank
        self.manifest = manifest
        self.interface = interface
        self.diagnostics = diagnostics
    }

    /// `EventInvite.appex` for `/…/EventInvite.appex`.
    package var name: String { Path.lastComponent(of: path) }

    /// The path of the shared library the manifest names.
    package var libraryPath: String? {
        manifest.map { Path.join(path, $0.executable) }
    }

    /// True when the bundle can serve notifications: its manifest is valid.
    /// (A broken interface file leaves the view empty but does not stop it.)
    package var isUsable: Bool { manifest != nil }
}
