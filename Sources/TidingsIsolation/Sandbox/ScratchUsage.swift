import Glibc
import TidingsBase

/// How much a worker without a view of its own keeps in its scratch
/// directory (on a real disk, where no tmpfs caps it): the host adds it up
/// now and then and ends a worker that is over its scratch space.
enum ScratchUsage {
    /// The bytes the files beneath `path` take on disk, never following a
    /// link, at most `entries` looked at (a tree larger than that counts as
    /// what was seen).
    static func bytes(in path: String, entries: Int = 10_000) -> UInt64 {
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { return 0 }
        var budget = entries
        return bytes(beneath: directory, budget: &budget, depth: 32)
    }

    private static func bytes(beneath directory: Int32, budget: inout Int, depth: Int) -> UInt64 {
        guard let listing = fdopendir(directory) else {
            close(directory)
            return 0
        }
        defer { closedir(listing) }
        var total: UInt64 = 0
        while budget > 0, let entry = readdir(listing) {
            let name = FileSystem.name(of: entry)
            if name == "." || name == ".." { continue }
            budget -= 1
            var status = stat()
            guard fstatat(dirfd(listing), name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            total += UInt64(max(0, status.st_blocks)) * 512
            if status.st_mode & S_IFMT == S_IFDIR && depth > 0 {
                let child = openat(dirfd(listing), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 { total += bytes(beneath: child, budget: &budget, depth: depth - 1) }
            }
        }
        return total
    }
}
