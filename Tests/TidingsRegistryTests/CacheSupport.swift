import Foundation
import Glibc
import TidingsBase
import TidingsRegistry

/// An extension directory and an index cache beside it, for the cache's tests.
///
/// An entry is kept only for files stamped before the scan began, so the
/// fixture stamps its files an hour ago (`settle()`) before a scan that must
/// fill the cache: no test depends on the clock moving on.
struct CacheFixture {
    let tree = ExtensionTree()
    let directory: String
    let cache: IndexCache

    init() throws {
        directory = try tree.directory()
        cache = IndexCache(path: tree.temporary.file("cache/tidings/index.v2"), producer: "tidings test")
    }

    /// Scans the extension directory (or `directories`) through the cache.
    @discardableResult
    func scan(_ directories: [String]? = nil) -> ExtensionIndex {
        Discovery.scan(SearchPath(directories: directories ?? [directory], origin: .option), cache: cache)
    }

    /// Scans without the cache: what a cached scan must equal.
    func coldScan() -> ExtensionIndex {
        Discovery.scan(SearchPath(directories: [directory], origin: .option))
    }

    /// Stamps every file and directory under `root` (the extension directory
    /// by default) `secondsAgo` seconds ago, at a time that is not a whole
    /// second (a whole second must be older still to count as settled).
    func settle(_ root: String? = nil, secondsAgo: Int = 3600) throws {
        let root = root ?? directory
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).map { root + "/" + $0 } + [root]
        for file in files { try stamp(file, secondsFromNow: -secondsAgo) }
    }

    /// Sets the modification (and access) time of `path` to `secondsFromNow` from now.
    func stamp(_ path: String, secondsFromNow: Int) throws {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let time = timespec(tv_sec: now.tv_sec + secondsFromNow, tv_nsec: 123_456_789)
        let done = [time, time].withUnsafeBufferPointer { utimensat(AT_FDCWD, path, $0.baseAddress, 0) }
        guard done == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// The modification time of `path` in nanoseconds.
    func modificationTime(_ path: String) -> Int64? {
        FileSystem.status(of: path)?.modificationTime
    }

    /// Overwrites `path` in place (same inode, so its directory does not
    /// change) with `text`, then gives it back the modification time it had.
    func overwriteKeepingStamp(_ path: String, with text: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw POSIXError(.ENOENT) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
        let done = [info.st_atim, info.st_mtim].withUnsafeBufferPointer { utimensat(AT_FDCWD, path, $0.baseAddress, 0) }
        guard done == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// The cache file's inode and modification time: they change when it is rewritten.
    func cacheFileIdentity() -> [Int64] {
        var info = stat()
        guard stat(cache.path, &info) == 0 else { return [] }
        return [Int64(info.st_ino), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec)]
    }

    /// The bundle names the cache file holds entries for in `directory`.
    func cachedNames(in directory: String? = nil) throws -> Set<String> {
        guard var contents = cache.load().contents else { return [] }
        return Set(try contents.entries(of: .init(directory ?? self.directory)).map(\.name))
    }

    /// The cache file's bytes.
    func cacheBytes() throws -> [UInt8] {
        try FileSystem.readFile(cache.path)
    }

    /// Replaces the cache file's bytes.
    func writeCache(_ bytes: [UInt8]) throws {
        try FileSystem.writeFileAtomically(cache.path, bytes, mode: 0o600)
    }
}

extension ExtensionIndex {
    /// The index as `tidings list --json` prints it, for comparing two scans.
    var text: String { json.serialized(pretty: true) }
}
