import Glibc
import TidingsBase

/// The attachment store's directory, open: a private directory of the
/// user's (see `FileDescriptor(openingPrivateDirectory:)`): made when missing
/// (0700, as are the parents made with it), refused when it is a link, not a
/// directory, another user's or writable by others, and made 0700 when
/// others may read it.
///
/// Files enter and leave through the open directory (`openat`, `renameat`,
/// `unlinkat`), not by its path, so that the directory checked is the one
/// written to, even if its path is changed meanwhile. A file enters as a
/// copy the store made, never as the source's own inode.
struct StoreDirectory: ~Copyable {
    /// The directory's path.
    let path: String
    /// The open directory.
    let descriptor: FileDescriptor
    /// Its device and inode, to tell whether a file already lies in it.
    let status: stat

    /// How many bytes a copy reads and writes at a time.
    static let chunkSize: UInt64 = 1 << 20

    /// Opens the store at `path`, making it first when needed.
    init(opening path: String) throws(Diagnostic) {
        let descriptor = try FileDescriptor(openingPrivateDirectory: path)
        let status: stat
        do throws(SystemError) {
            status = try descriptor.status()
            if status.st_mode & 0o077 != 0 { try descriptor.setPermissions(0o700) }
        } catch {
            throw FileSystem.failure(error, .fileUnwritable, "cannot make private the attachment store", path)
        }
        self.status = status
        self.path = path
        self.descriptor = descriptor
    }

    /// The path of `name` in the store.
    func file(_ name: String) -> String {
        Path.join(path, name)
    }

    /// True when `place` is this directory (an attachment already in the
    /// store, named again).
    func holds(_ place: SourcePlace) -> Bool {
        guard let directory = place.directoryStatus() else { return false }
        return directory.st_dev == status.st_dev && directory.st_ino == status.st_ino
    }

    /// Copies `source` from its start into a new file of the store, made
    /// for it (0600, `O_CREAT | O_EXCL | O_NOFOLLOW` through the open
    /// directory) under the temporary name `.incoming-NAME`: never the
    /// source's own inode, which whoever can write the source could still
    /// change. At most `limit` + 1 bytes are read, so that a file that grows
    /// while it is copied cannot make the copy endless; the copy says when
    /// there was more than `limit`.
    func copyIn(_ source: borrowing FileDescriptor, limit: UInt64, as name: String) throws(SystemError) -> IncomingFile {
        let temporary = ".incoming-\(name)"
        let created = openat(descriptor.rawValue, temporary, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard created >= 0 else { throw SystemError.current() }
        let copy = FileDescriptor(adopting: created)
        var copied: UInt64 = 0
        do throws(SystemError) {
            // Exactly 0600, whatever the umask took away.
            try copy.setPermissions(0o600)
            while copied <= limit {
                let chunk = try source.read(at: copied, count: Int(min(Self.chunkSize, limit + 1 - copied)))
                if chunk.isEmpty { break }
                try copy.write(chunk)
                copied += UInt64(chunk.count)
            }
        } catch {
            unlinkat(descriptor.rawValue, temporary, 0)
            throw error
        }
        return IncomingFile(name: temporary, file: copy, size: copied)
    }

    /// Gives the checked copy `incoming` its name in the store, once it is
    /// on disk (the directory is synchronised after, by `synchronize`).
    /// The corresponding C functions are `fsync` and `renameat`.
    func keep(_ incoming: borrowing IncomingFile, as name: String) throws(SystemError) {
        try incoming.file.synchronize()
        guard renameat(descriptor.rawValue, incoming.name, descriptor.rawValue, name) == 0 else {
            throw SystemError.current()
        }
    }

    /// Removes the copy `incoming`, refused or not needed.
    func discard(_ incoming: borrowing IncomingFile) {
        remove(incoming.name)
    }

    /// Puts the store's copy `name` at `original`, the place of the file it
    /// was copied from, unless something now has that name (nothing is
    /// overwritten); true when it went there.
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

    /// Flushes the directory, so that a file named in it survives a crash.
    func synchronize() {
        try? descriptor.synchronize()
    }
}

/// A copy on its way into the store: a new file under a temporary name,
/// open for reading back what was copied, until the store keeps or discards it.
struct IncomingFile: ~Copyable {
    /// Its temporary name in the store (`.incoming-…`).
    let name: String
    /// The copy, open read-write.
    let file: FileDescriptor
    /// How many bytes were copied: at most the limit + 1.
    let size: UInt64
}
