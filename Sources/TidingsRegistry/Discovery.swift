import TidingsBase

/// Finds bundles on a search path and indexes them.
package enum Discovery {
    /// Scans every directory of `searchPath` for `NAME.appex` bundles, reads
    /// their manifests and builds the index. A broken bundle is listed with its
    /// problems and never hides the good ones.
    package static func scan(_ searchPath: SearchPath) -> ExtensionIndex {
        scan(searchPath, cache: nil)
    }

    /// `scan(_:)`, taking each bundle whose files are unchanged from `cache`
    /// instead of reading it, and updating the cache. Notes about the cache
    /// (a damaged file rebuilt, a file that cannot be written) are among the
    /// index's diagnostics; its `counts` say how many bundles were read.
    package static func scan(_ searchPath: SearchPath, cache: IndexCache?) -> ExtensionIndex {
        var session = cache.map(CachedScan.init)
        var bundles: [ExtensionBundle] = []
        var diagnostics: [Diagnostic] = []
        var counts = DiscoveryCounts()
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
            let names = entries.filter { entry in
                // readdir usually says what an entry is; a symbolic link is followed with stat.
                Path.pathExtension(of: entry.name) == BundleReader.bundleExtension
                    && (entry.kind ?? FileSystem.status(of: Path.join(directory, entry.name))?.kind) == .directory
            }.map(\.name)
            if let found = session?.bundles(named: names, in: directory, searchRank: rank, counts: &counts) {
                bundles += found
            } else {
                bundles += names.map { BundleReader.read(Path.join(directory, $0), searchRank: rank) }
                counts.read += names.count
            }
        }
        if var session { diagnostics += session.finish() }
        var index = ExtensionIndex(searchPath: searchPath, bundles: bundles, diagnostics: diagnostics)
        index.counts = counts
        return index
    }
}
