import TidingsBase
import TidingsLoader
import TidingsRegistry

/// One verdict on a bundle, whichever command asks: `list`, `install`,
/// `manifest lint` and `deliver --explain` all see the manifest's problems,
/// the interface file's, and whether the library would link (its entry
/// symbol, the libraries and symbols it needs), read from files without
/// running any of its code.
extension ExtensionBundle {
    /// The bundle at `path` as discovery reads it, with its library's problems.
    static func judged(_ path: String) -> ExtensionBundle {
        var bundle = BundleReader.read(path)
        bundle.addLibraryProblems()
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
}
