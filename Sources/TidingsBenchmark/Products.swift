import Glibc
import TidingsBase

/// What the benchmark needs from the build and the package: the NoOp library
/// and the `tidings` executable built beside its own executable, the NoOp
/// manifest, and the script that makes bundles for the discovery benchmark.
struct Products {
    /// The directory of this executable, where `swift build` put every product.
    var directory: String
    /// The release-built `libNoOp.so`.
    var noOpLibrary: String
    /// The release-built `tidings` command.
    var tidings: String
    /// `Manifests/NoOp.plist`.
    var noOpManifest: String
    /// `Scripts/make-bundles.sh`, found the way the manifest is; nil when it is not there.
    var makeBundles: String?

    /// Finds everything, or says what is missing and how to get it.
    /// - Parameter manifest: the manifest's path when given on the command line;
    ///   otherwise it is looked for in `Manifests/` above the executable, then
    ///   under the current directory.
    static func locate(manifest: String?) throws(BenchmarkFailure) -> Products {
        let executable = try ownExecutable()
        let directory = Path.directory(of: executable)
        let library = Path.join(directory, "libNoOp.so")
        let tidings = Path.join(directory, "tidings")
        let build = "run `swift build -c release` (or with your --scratch-path) first: `swift run` builds only the benchmark"
        guard FileSystem.status(of: library)?.kind == .regular else {
            throw BenchmarkFailure("\(library) is missing; \(build).")
        }
        guard FileSystem.status(of: tidings)?.kind == .regular else {
            throw BenchmarkFailure("\(tidings) is missing; \(build).")
        }
        let noOpManifest = try findManifest(given: manifest, from: directory)
        let script = Path.join(Path.directory(of: Path.directory(of: noOpManifest)), "Scripts/make-bundles.sh")
        return Products(directory: directory, noOpLibrary: library, tidings: tidings, noOpManifest: noOpManifest,
                        makeBundles: FileSystem.status(of: script)?.kind == .regular ? script : nil)
    }

    /// The first executable file called `name` in a directory of `$PATH`; nil when there is none.
    static func onPath(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { Path.join(String($0), name) }.first {
            FileSystem.status(of: $0)?.kind == .regular && access($0, X_OK) == 0
        }
    }

    /// The absolute path of this executable, from `/proc/self/exe`.
    private static func ownExecutable() throws(BenchmarkFailure) -> String {
        let capacity = Int(PATH_MAX)
        let path: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            let count = readlink("/proc/self/exe", buffer.baseAddress!, capacity)
            guard count > 0, count < capacity else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
        guard let path else { throw BenchmarkFailure("Cannot read /proc/self/exe, so the build products cannot be found.") }
        return path
    }

    /// The NoOp manifest: given, else in the nearest `Manifests/` above `directory`, else under the current directory.
    private static func findManifest(given: String?, from directory: String) throws(BenchmarkFailure) -> String {
        let relative = "Manifests/NoOp.plist"
        if let given {
            guard FileSystem.status(of: given)?.kind == .regular else { throw BenchmarkFailure("--manifest \(given) is not a file.") }
            return given
        }
        var candidate = directory
        while true {
            let path = Path.join(candidate, relative)
            if FileSystem.status(of: path)?.kind == .regular { return path }
            let parent = Path.directory(of: candidate)
            if parent == candidate || parent.isEmpty { break }
            candidate = parent
        }
        let local = FileSystem.absolutePath(relative)
        if FileSystem.status(of: local)?.kind == .regular { return local }
        throw BenchmarkFailure("\(relative) is not above \(directory) nor in the current directory; run from the package root or pass --manifest PATH.")
    }
}
