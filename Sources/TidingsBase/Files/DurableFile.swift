import Glibc

/// The file operations that make a change survive a crash of the machine,
/// not only of the process: a replacement is written, flushed, renamed and
/// its directory flushed, in that order.
///
/// Every failure is a `Diagnostic` with a `file.*` code naming the path.
package enum DurableFile {
    /// Replaces the file at `path` with `bytes`: `prepare` then `move`, and
    /// the directory flushed, so that after a crash `path` holds the old
    /// bytes or the new ones, never a mix, and once this returns the new ones
    /// stay.
    package static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o600) throws(Diagnostic) {
        let temporary = try prepare(path, with: bytes, mode: mode)
        do throws(Diagnostic) {
            try move(temporary, to: path)
        } catch {
            unlink(temporary)
            throw error
        }
        try synchronizeDirectory(of: path)
    }

    /// Writes `bytes` to `path.tmp` with `mode` and flushes it to disk, for a
    /// `move` over `path`; returns that temporary path. Nothing else changes:
    /// on failure the temporary file is removed.
    ///
    /// The temporary name is fixed, not unique: a caller replacing the same
    /// path from two threads at once must serialize them. Whatever has the
    /// temporary name — a file a crash left behind, or a link or a FIFO put
    /// there — is removed first, never written through.
    package static func prepare(_ path: String, with bytes: [UInt8], mode: mode_t = 0o600) throws(Diagnostic) -> String {
        try prepare(path, mode: mode) { (file: borrowing FileDescriptor) throws(SystemError) in try file.write(bytes) }
    }

    /// `prepare(_:with:mode:)` for contents too large to hold at once:
    /// `write` writes them to the temporary file, in as many calls as it likes.
    package static func prepare(_ path: String, mode: mode_t = 0o600,
                                writing write: (borrowing FileDescriptor) throws(SystemError) -> Void) throws(Diagnostic) -> String {
        let temporary = path + ".tmp"
        unlink(temporary)
        do throws(SystemError) {
            let file = try FileDescriptor(opening: temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode)
            try write(file)
            try file.synchronize()
        } catch {
            unlink(temporary)
            throw failure(error, "cannot write", temporary)
        }
        return temporary
    }

    /// Makes `newPath` a second name of the file at `path`, replacing what
    /// `newPath` named in one step (a hard link made beside it, then renamed
    /// over it). The file's bytes are shared, not copied. Not durable until
    /// the directory is flushed.
    /// The corresponding C functions are `link` and `rename`.
    package static func link(_ path: String, as newPath: String) throws(Diagnostic) {
        let temporary = newPath + ".tmp"
        unlink(temporary)
        guard Glibc.link(path, temporary) == 0 else { throw failure(.current(), "cannot link \(path) as", temporary) }
        guard rename(temporary, newPath) == 0 else {
            let error = SystemError.current()
            unlink(temporary)
            throw failure(error, "cannot rename \(temporary) to", newPath)
        }
    }

    /// Renames `path` to `newPath`, replacing what `newPath` named. Not
    /// durable until the directory is flushed.
    /// The corresponding C function is `rename`.
    package static func move(_ path: String, to newPath: String) throws(Diagnostic) {
        guard rename(path, newPath) == 0 else { throw failure(.current(), "cannot move \(path) to", newPath) }
    }

    /// Flushes the entries of the directory holding `path` (names created,
    /// renamed or removed there) to disk.
    /// The corresponding C functions are `open` and `fsync`.
    package static func synchronizeDirectory(of path: String) throws(Diagnostic) {
        let directory = Path.directory(of: path)
        do throws(SystemError) {
            let descriptor = try FileDescriptor(opening: directory, O_RDONLY | O_DIRECTORY)
            try descriptor.synchronize()
        } catch {
            throw failure(error, "cannot flush the directory", directory)
        }
    }

    /// A diagnostic for a failed call: "Cannot write PATH: no space left on
    /// device." Its code names the cause when it is one a program may act on:
    /// `file.no-space` (ENOSPC, EDQUOT), `file.too-large` (EFBIG),
    /// `file.io-error` (EIO), `file.not-found` (ENOENT); else `file.unwritable`.
    package static func failure(_ error: SystemError, _ verb: String, _ path: String) -> Diagnostic {
        let code: Diagnostic.Code =
            switch error.code {
            case ENOENT: .fileNotFound
            case ENOSPC, EDQUOT: .fileNoSpace
            case EFBIG: .fileTooLarge
            case EIO: .fileIOError
            default: .fileUnwritable
            }
        return FileSystem.failure(error, code, verb, path)
    }
}

extension FileDescriptor {
    /// Cuts the file, or extends it with zeros, to `size` bytes.
    /// The corresponding C function is `ftruncate`.
    package func truncate(to size: Int) throws(SystemError) {
        _ = try SystemCall.checked { ftruncate(rawValue, off_t(size)) }
    }
}
