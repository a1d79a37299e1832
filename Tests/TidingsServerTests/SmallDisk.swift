import Foundation
import Glibc
import Testing
import TestSupport

/// A disk with room for 2 MiB, for the state of a server under test: a
/// tmpfs the test mounts (as root, in a directory of its own, unmounted
/// when the value goes away), else — where mounting is impossible — a plain
/// directory and a file size limit set on the server (`RLIMIT_FSIZE` with
/// `prlimit`), which makes its writes fail with EFBIG where a full disk
/// makes them fail with ENOSPC.
final class SmallDisk {
    /// The directory on the disk.
    let path: String
    /// True when `path` is a tmpfs of its own; false when the file size limit stands in for one.
    let isMounted: Bool
    /// A file taking room that `makeRoom` gives back.
    private var reserve: String { path + "/reserve" }
    /// How large a file may grow when the limit stands in for the disk.
    private static let fileSizeLimit = 1 << 20

    /// Mounts the disk, or prepares the directory that stands in for it.
    init() throws {
        var template = Array((NSTemporaryDirectory() + "/small-disk-XXXXXX").utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        isMounted = mount("tidings-test", path, "tmpfs", UInt(MS_NOSUID | MS_NODEV | MS_NOEXEC), "size=2m,mode=0700") == 0
        if isMounted {
            _ = FileManager.default.createFile(atPath: reserve, contents: Data(count: 256 << 10))
        }
    }

    /// The code a write the disk refuses fails with: `file.no-space` on the
    /// tmpfs, `file.too-large` under the file size limit.
    var refusal: String { isMounted ? "file.no-space" : "file.too-large" }

    /// Makes the disk small for `server` (a process id): nothing to do on
    /// the tmpfs; the file size limit otherwise.
    func confine(_ server: Int32) throws {
        guard !isMounted else { return }
        try prlimit(server, "--fsize=\(Self.fileSizeLimit):unlimited")
    }

    /// Gives `server` room again: the tmpfs loses its reserve file, the
    /// limit is lifted.
    func makeRoom(for server: Int32) throws {
        if isMounted {
            try FileManager.default.removeItem(atPath: reserve)
        } else {
            try prlimit(server, "--fsize=unlimited:unlimited")
        }
    }

    /// Runs `prlimit --pid SERVER LIMIT`.
    private func prlimit(_ server: Int32, _ limit: String) throws {
        let program = try #require(ProcessRunner.which("prlimit"), "neither mount nor prlimit: no small disk to be had")
        let result = try ProcessRunner.run(program, ["--pid", "\(server)", limit])
        try #require(result.status == 0, "prlimit: \(result.standardError)")
    }

    deinit {
        if isMounted { umount2(path, Int32(MNT_DETACH)) }
        try? FileManager.default.removeItem(atPath: path)
    }
}
