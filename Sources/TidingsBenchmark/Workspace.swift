import Glibc
import TidingsBase

/// The benchmark's temporary directory, made with `mkdtemp` under `$TMPDIR`
/// (or /tmp), holding the extension directories and the payload.
struct Workspace {
    /// The directory's absolute path.
    let path: String

    /// Makes a new, empty, private directory.
    init() throws(BenchmarkFailure) {
        do throws(Diagnostic) {
            path = try FileSystem.makeTemporaryDirectory(prefix: "tidings-benchmark")
        } catch {
            throw BenchmarkFailure(error.message)
        }
    }

    /// The path of `name` inside the workspace.
    func file(_ name: String) -> String {
        Path.join(path, name)
    }

    /// Removes the workspace and everything in it.
    func remove() {
        try? FileSystem.removeTree(path)
    }
}
