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
            let entries: [FileSystem.DirectoryEntry]
            do {
                entries = try FileSystem.entries(of: directory)
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
            for entry in entries where Path.pathExtension(of: entry.name) == BundleReader.bundleExtension {
                let path = Path.join(directory, entry.name)
                // readdir usually says what an entry is; a symbolic link is followed with stat.
                guard (entry.kind ?? FileSystem.status(of: path)?.kind) == .directory else { continue }
                bundles.append(BundleReader.read(path, searchRank: rank))
            }
        }
        return ExtensionIndex(searchPath: searchPath, bundles: bundles, diagnostics: diagnostics)
    }
}
