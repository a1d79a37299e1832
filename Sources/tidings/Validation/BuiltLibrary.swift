import TidingsBase
import TidingsLoader
import TidingsRegistry

/// `tidings validate DIR` on a Swift package made by `tidings new`: its
/// manifest is beside `Package.swift`, but `swift build` leaves the library
/// in `.build/debug` or `.build/release`. The newest of the two (by the name
/// the manifest's `CFBundleExecutable` gives) is validated, in a bundle
/// staged in the run's scratch directory, and a note says which was used.
enum BuiltLibrary {
    /// Where `swift build` puts a package's products, relative to the package.
    static let buildDirectories = [".build/debug", ".build/release"]

    /// The bundle to validate for `directory`, and a note naming the library
    /// used; nil when `directory` is not a Swift package whose library is
    /// missing beside its manifest (it is then validated as it is).
    /// - Throws: `load.library-missing` when the package has built no such
    ///   library, naming the places looked in and the build command.
    static func stage(project directory: String, in scratch: String) throws(Diagnostic) -> (bundle: String, note: Diagnostic)? {
        guard FileSystem.status(of: Path.join(directory, "Package.swift"))?.kind == .regular else { return nil }
        let project = BundleReader.read(directory)
        guard let manifest = project.manifest, let library = project.libraryPath,
              FileSystem.status(of: library) == nil else { return nil }
        let candidates = buildDirectories.compactMap { (relative: String) -> (path: String, time: Int64)? in
            let path = Path.join(Path.join(directory, relative), manifest.executable)
            guard let status = FileSystem.status(of: path), status.kind == .regular else { return nil }
            return (path, status.modificationTime)
        }
        guard let newest = candidates.max(by: { $0.time < $1.time }) else {
            let looked = buildDirectories.map { "\($0)/\(manifest.executable)" }.joined(separator: " nor ")
            throw .error(.libraryMissing, "\(directory) is a Swift package, but neither \(looked) is built: run swift build (or swift build -c release) first.",
                         at: .init(file: library))
        }
        let bundle = Path.join(scratch, Path.lastComponent(of: FileSystem.absolutePath(directory)) + "." + BundleReader.bundleExtension)
        try FileSystem.createDirectory(bundle)
        let resources = BundleReader.dependencies(of: project).filter { $0 != "." } + BundleReader.stringsFiles
        for file in resources where FileSystem.status(of: Path.join(directory, file))?.kind == .regular {
            try FileSystem.createDirectory(Path.directory(of: Path.join(bundle, file)))
            try FileSystem.copyFile(Path.join(directory, file), to: Path.join(bundle, file))
        }
        try FileSystem.copyFile(newest.path, to: Path.join(bundle, manifest.executable))
        let other = candidates.count > 1 ? " (newer than the other build's)" : ""
        let used = String(newest.path.dropFirst(directory.count).drop { $0 == "/" })
        return (bundle, .note(.builtLibrary, "Validating \(used), the package's newest build of \(manifest.executable)\(other), with the Info.plist beside Package.swift."))
    }
}

extension Diagnostic.Code {
    /// Which built library of a Swift package `tidings validate` used.
    static let builtLibrary = Self("validate.built-library")
}
