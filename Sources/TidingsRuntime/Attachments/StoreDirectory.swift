import Glibc
import TidingsBase

/// The attachment store's directory, open: made when missing (0700, as are
/// the parents made with it), refused when it is a link, not a directory or
/// not the user's, and made private when it is open to others.
///
/// Files enter and leave through the open directory (`renameat`, `openat`,
/// `unlinkat`), not by its path, so that the directory checked is the one
/// written to, even if its path is changed meanwhile.
struct StoreDirectory: ~Copyable {
    /// The directory's path.
    let path: String
    /// The open directory.
    let descriptor: FileDescriptor
    /// Its device and inode, to tell whether a file already lies in it.
    let status: stat

    /// Opens the store at `path`, making it first when needed.
    init(opening path: String) throws(StoreFailure) {
        do {
            try FileSystem.createDirectory(path, mode: 0o700)
        } catch {
            throw StoreFailure("The attachment store cannot be made: \(error.message)")
        }
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor(opening: path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        } catch {
            throw StoreFailure(error.code == ELOOP || error.code == ENOTDIR
                ? "The attachment store \(path) is not a directory (a link or a file is in its place)"
                : "The attachment store \(path) cannot be opened: \(error)")
        }
        let status: stat
        do {
            status = try descriptor.status()
        } catch {
            throw StoreFailure("The attachment store \(path) cannot be examined: \(error)")
        }
        guard status.st_uid == geteuid() else {
            throw StoreFailure("The attachment store \(path) belongs to another user")
        }
        if status.st_mode & 0o077 != 0 { try? descriptor.setPermissions(0o700) }
        self.path = path
        self.descriptor = descriptor
        self.status = status
    }

    /// The path of `name` in the store.
    func file(_ name: String) -> String {
        Path.join(path, name)
    }

    /// True when `source` lies directly in this directory (an attachment
    /// already in the store, named again).
    func holds(_ source: borrowing AttachmentSource) -> Bool {
        var parent = stat()
        return stat(Path.directory(of: source.path), &parent) == 0
            && parent.st_dev == status.st_dev && parent.st_ino == status.st_ino
    }

    /// Renames `source` into the store as `name`, and checks that what
    /// arrived is the file that was checked; when it is not, it goes back.
    /// The corresponding C function is `renameat`.
    func moveIn(_ source: borrowing AttachmentSource, as name: String) throws(SystemError) {
        guard renameat(AT_FDCWD, source.path, descriptor.rawValue, name) == 0 else { throw SystemError.current() }
        var arrived = stat()
        guard fstatat(descriptor.rawValue, name, &arrived, AT_SYMLINK_NOFOLLOW) == 0, source.isSameFile(as: arrived) else {
            // Another file took the name between the check and the rename: give it back.
            restore(name, to: source.path)
            throw SystemError(code: ESTALE)
        }
    }

    /// Copies the bytes of `source` that were checked into the store as
    /// `name` (0600), through a temporary file that takes the name only when
    /// complete and on disk.
    func copyIn(_ source: borrowing AttachmentSource, as name: String) throws(SystemError) {
        let temporary = ".incoming-\(name)"
        let raw = openat(descriptor.rawValue, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard raw >= 0 else { throw SystemError.current() }
        do throws(SystemError) {
            let output = FileDescriptor(adopting: raw)
            var offset: UInt64 = 0
            while offset < source.size {
                let chunk = try source.file.read(at: offset, count: Int(min(1 << 20, source.size - offset)))
                // It shrank since it was checked.
                guard !chunk.isEmpty else { throw SystemError(code: ESTALE) }
                try output.write(chunk)
                offset += UInt64(chunk.count)
            }
            try output.synchronize()
            guard renameat(descriptor.rawValue, temporary, descriptor.rawValue, name) == 0 else {
                throw SystemError.current()
            }
        } catch {
            unlinkat(descriptor.rawValue, temporary, 0)
            throw error
        }
    }

    /// Puts the store's `name` back at `original`, unless something now has
    /// that name (nothing is overwritten); true when it went back.
    @discardableResult
    func restore(_ name: String, to original: String) -> Bool {
        // link + unlink: a rename that never replaces.
        guard linkat(descriptor.rawValue, name, AT_FDCWD, original, 0) == 0 else { return false }
        unlinkat(descriptor.rawValue, name, 0)
        return true
    }

    /// Removes `name` from the store. The corresponding C function is `unlinkat`.
    func remove(_ name: String) {
        unlinkat(descriptor.rawValue, name, 0)
    }

    /// Flushes the directory, so that a file renamed in survives a crash.
    func synchronize() {
        try? descriptor.synchronize()
    }
}

/// Why the store itself failed: a sentence, made into Apple's 104 for the
/// request at hand.
struct StoreFailure: Error {
    /// What went wrong, without a final period.
    let sentence: String

    init(_ sentence: String) {
        self.sentence = sentence
    }
}
