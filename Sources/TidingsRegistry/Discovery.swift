import TidingsBase

/// Finds bundles on a search path and indexes them.
package enum Discovery {
    /// Scans every directory of `searchPath` for `NAME.appex` bundles, reads
    /// their manifests and builds the index. A broken bundle is listed with its
    /// problems and never hides the good ones.
    package static func scan(_ searchPath: SearchPath) -> ExtensionIndex {
        var bundles: [ExtensionBundle] = []
        var diagnostics: [Diagnostic] = []
        for (rank, directory) in searchPath.directories.enumerated() {
            let names: [String]
            do {
                names = try FileSystem.contentsOfDirectory(directory)
            } catch {
                // The XDG directories usually do not all exist; say so only for
                // directories the user named.
                if error.code == .fileNotFound {
                    if searchPath.origin != .xdg {
                        diagnostics.append(.warning(.directoryMissing,
                                                    "The extension directory \(directory) does not exist.",
                                                    at: .init(file: directory)))
                    }
                } else {
                    diagnostics.append(.warning(.directoryUnreadable, error.message, at: .init(file: directory)))
                }
                continue
            }
            for name in names where Path.pathExtension(of: name) == BundleReader.bundleExtension {
                let path = Path.join(directory, name)
                guard FileSystem.isDirectory(path) else { continue }
                bundles.append(BundleReader.read(path, searchRank: rank))
            }
        }
        return ExtensionIndex(searchPath: searchPath, bundles: bundles, diagnostics: diagnostics)
    }
}
