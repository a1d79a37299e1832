import TidingsBase
import TidingsLoader
import TidingsRegistry

/// One verdict on a bundle, whichever command asks: `list`, `install`,
/// `validate`, `manifest lint` and `deliver --explain` all see the manifest's
/// problems, the interface file's, whether the library would link (its entry
/// symbol, the libraries and symbols it needs), read from files without
/// running any of its code, and what the registry says of it among the
/// bundles beside it: which one serves when two share an identifier or claim
/// one category of one app, and which is shadowed.
extension ExtensionBundle {
    /// The bundle at `path` as discovery reads it, with its library's problems.
    static func judged(_ path: String) -> ExtensionBundle {
        var bundle = BundleReader.read(path)
        bundle.addLibraryProblems()
        return bundle
    }

    /// The bundle at `path` judged as `judged(_:)` does, with what the
    /// registry says of it among the bundles of `searchPath` (shadowing,
    /// categories claimed twice), as `tidings list` says it. The bundle is
    /// placed at `installedAt` (its path unless given: a staged bundle's
    /// destination); when that directory is not on the search path, among the
    /// bundles of that directory alone, as `--extensions DIR` would find them.
    static func judged(_ path: String, on searchPath: SearchPath, installedAt place: String? = nil) -> ExtensionBundle {
        var bundle = judged(path)
        let destination = FileSystem.absolutePath(Path.trimmingTrailingSlashes(place ?? path))
        let directory = Path.directory(of: destination)
        let onPath = searchPath.directories.contains { Path.trimmingTrailingSlashes(FileSystem.absolutePath($0)) == directory }
        let scope = onPath ? searchPath : SearchPath(directories: [directory], origin: .option)
        var others = Discovery.scan(scope).bundles
        var placed = bundle
        placed.path = destination
        if let found = others.firstIndex(where: { FileSystem.absolutePath($0.path) == destination }) {
            placed.searchRank = others[found].searchRank
            others[found] = placed
        } else {
            // Where discovery would find it: in its directory's place on the path, by name.
            placed.searchRank = scope.directories.firstIndex {
                Path.trimmingTrailingSlashes(FileSystem.absolutePath($0)) == directory
            } ?? 0
            let after = others.firstIndex { other in
                other.searchRank > placed.searchRank
                    || (other.searchRank == placed.searchRank && !other.name.utf8.lexicographicallyPrecedes(placed.name.utf8))
            }
            others.insert(placed, at: after ?? others.endIndex)
        }
        let index = ExtensionIndex(searchPath: scope, bundles: others)
        let registry = index.bundles.first { $0.path == destination }?.diagnostics.filter(\.isRegistryVerdict) ?? []
        bundle.diagnostics += registry
        return bundle
    }

    /// Adds what can be known about its library without loading it.
    mutating func addLibraryProblems() {
        guard let library = libraryPath else { return }
        diagnostics += LibraryLinking.problems(of: library)
    }
}

extension ExtensionIndex {
    /// Adds to each bundle what can be known about its library without loading it.
    mutating func checkLibraries() {
        updateBundles { $0.addLibraryProblems() }
    }
}

extension Diagnostic {
    /// The diagnostic with `old` (a staged bundle's path) replaced by `new` in its file and message.
    func moved(from old: String, to new: String) -> Diagnostic {
        var moved = self
        moved.location.file = location.file.map { $0.replacing(old, with: new) }
        moved.message = message.replacing(old, with: new)
        return moved
    }

    /// True for what the registry says of a bundle among others: shadowing, a category claimed twice.
    var isRegistryVerdict: Bool { code == .identifierShadowed || code == .categoryConflict }
}
