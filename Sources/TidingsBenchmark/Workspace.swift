import Glibc
import TidingsBase

/// The benchmark's temporary directory, made with `mkdtemp` under `$TMPDIR`
/// (or /tmp), holding the extension directories and the payload.
struct Workspace {
    /// The directory's absolute path.
    let path: String

    /// Makes a new, empty, private directory.
    init() throws(BenchmarkFailure) {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array(Path.join(base, "tidings-benchmark.XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) != nil }
        guard made else {
            throw BenchmarkFailure("Cannot make a temporary directory in \(base): \(FileSystem.systemReason()).")
        }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
