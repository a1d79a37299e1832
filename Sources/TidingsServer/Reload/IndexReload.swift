import TidingsBase
import TidingsRegistry

/// What a rescan of the search path means for a running server: the new
/// index, except that a bundle whose manifest stopped validating keeps its
/// last good version serving, and says so.
enum IndexReload {
    /// `new`, with each bundle that is broken now but was usable in `old`
    /// replaced by its old version (with a warning saying why); and the
    /// warnings, to tell.
    static func merge(old: ExtensionIndex, new: ExtensionIndex) -> (ExtensionIndex, [Diagnostic]) {
        var warnings: [Diagnostic] = []
        let previous = Dictionary(old.bundles.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let bundles = new.bundles.map { bundle -> ExtensionBundle in
            guard !bundle.isUsable, var kept = previous[bundle.path], kept.isUsable else { return bundle }
            let reason = bundle.diagnostics.first { $0.severity == .error }?.message ?? "it no longer reads"
            let warning = Diagnostic.warning(
                .manifestKeptLastGood,
                "\(bundle.name) changed and no longer validates (\(reason)); its last good version keeps serving.",
                at: .init(file: Path.join(bundle.path, BundleReader.manifestName)))
            kept.diagnostics = bundle.diagnostics + [warning]
            warnings.append(warning)
            return kept
        }
        return (ExtensionIndex(searchPath: new.searchPath, bundles: bundles, diagnostics: new.diagnostics), warnings)
    }
}

extension Diagnostic.Code {
    /// A bundle's manifest stopped validating; its last good version serves on.
    package static let manifestKeptLastGood = Self("registry.kept-last-good")
}
