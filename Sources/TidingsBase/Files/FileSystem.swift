import Glibc

/// Thin, typed wrappers over the C library's file calls, for the few things
/// the host does with files: read a small file whole, list a directory, ask
/// what a path is, and write a file atomically.
///
/// Every failure is a `Diagnostic` with a `file.*` code, naming the path and
/// the system's reason.
package enum FileSystem {
    /// What a path names, following symbolic links (the corresponding C function is `stat`).
    package enum Kind: Sendable, Equatable {
        case regular
        case directory
        case other
    }

    /// The facts `stat` gives about a path.
    package struct Status: Sendable, Equatable {
        package var kind: Kind
        package var size: Int64
        /// Modification time in nanoseconds since 1970.
        package var modificationTime: Int64

        /// What `info` says.
        fileprivate init(_ info: stat) {
            kind =
                switch info.st_mode & S_IFMT {
                case S_IFREG: .regular
                case S_IFDIR: .directory
                default: .other
                }
            size = Int64(info.st_size)
            modificationTime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        }
    }

    /// The status of `path`, or nil when it does not exist or cannot be reached.
    /// The corresponding C function is `stat`.
    package static func status(of path: String) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Status(info)
    }

    /// The status of `path` relative to the open directory `directory`, or
    /// nil when it does not exist or cannot be reached: `status(of:)` without
    /// walking the directory's own path again.
    /// The corresponding C function is `fstatat`.
    package static func status(of path: String, in directory: borrowing FileDescriptor) -> Status? {
        var info = stat()
        guard fstatat(directory.rawValue, path, &info, 0) == 0 else { return nil }
        return Status(info)
    }

    /// True when `path` names a directory.
    package static func isDirectory(_ path: String) -> Bool {
        status(of: path)?.kind == .directory
    }

    /// The bytes of the regular file at `path`, read whole. Opening never
    /// waits (a FIFO planted at the path is refused, not waited on).
    /// - Parameters:
    ///   - limit: refuse files larger than this many bytes.
    ///   - own: true for a file of the user's own (state, cache, ledger,
    ///     configuration): a link at `path` is refused, and so is a file of
    ///     another user's or one others may write (see `FileDescriptor(openingOwn:as:)`).
    package static func readFile(_ path: String, limit: Int = 64 << 20, own: Bool = false) throws(Diagnostic) -> [UInt8] {
        let file = own ? try FileDescriptor(openingOwn: path, as: .regularFile)
            : try FileDescriptor(opening: path, as: .regularFile)
        let size: Int
        do throws(SystemError) {
            size = Int(try file.status().st_size)
        } catch {
            throw failure(error, .fileUnreadable, "cannot inspect", path)
        }
        guard size <= limit else {
            throw .error(.fileTooLarge, "\(path) is \(size) bytes, more than the \(limit) allowed.", at: .init(file: path))
        }
        // The size fstat gives is read in one call; a file that reports 0 (as
        // /proc files do) is read until the end in pages.
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while size == 0 || filled < size {
            if filled == bytes.count { bytes.append(contentsOf: repeatElement(0, count: 4096)) }
            let count = bytes.withUnsafeMutableBytes { buffer in
                SystemCall.retrying { read(file.rawValue, buffer.baseAddress! + filled, buffer.count - filled) }
            }
            if count < 0 { throw failure(.fileUnreadable, "cannot read", path) }
            if count == 0 { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// Up to the first `count` bytes of the file at `path`; fewer when the file is shorter.
    /// Opening never waits, as in `readFile`.
    package static func readPrefix(_ path: String, count: Int) throws(Diagnostic) -> [UInt8] {
        let file = try FileDescriptor(opening: path, as: .regularFile)
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                SystemCall.retrying { read(file.rawValue, buffer.baseAddress! + filled, count - filled) }
            }
            if got < 0 { throw failure(.fileUnreadable, "cannot read", path) }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes[..<filled])
    }

    /// An entry of a directory listing.
    package struct DirectoryEntry: Sendable, Equatable {
        package var name: String
        /// What the entry is, when the file system says so without a `stat`
        /// (`d_type`); nil for a symbolic link or when it does not say.
        package var kind: Kind?
    }

    /// The entries of the directory at `path`, without `.` and `..`, sorted
    /// by name as bytes so that every listing is deterministic.
    /// The corresponding C functions are `opendir` and `readdir`.
    package static func entries(of path: String) throws(Diagnostic) -> [DirectoryEntry] {
        guard let directory = opendir(path) else { throw failure(.fileUnreadable, "cannot list", path) }
        defer { closedir(directory) }
        var entries: [DirectoryEntry] = []
        while let entry = readdir(directory) {
            let name = Self.name(of: entry)
            guard name != "." && name != ".." else { continue }
            let kind: Kind? =
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_REG): .regular
                case Int32(DT_DIR): .directory
                case Int32(DT_LNK), Int32(DT_UNKNOWN): nil
                default: .other
                }
            entries.append(DirectoryEntry(name: name, kind: kind))
        }
        return entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The name of an entry `readdir` returned, read up to its NUL. An entry
    /// is only as long as its name: copying `d_name`'s 256 bytes out of it
    /// would read past the end of `readdir`'s buffer.
    package static func name(of entry: UnsafePointer<dirent>) -> String {
        let offset = MemoryLayout<dirent>.offset(of: \.d_name)!
        return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }

    /// The names in the directory at `path`, sorted as `entries(of:)` sorts them.
    package static func contentsOfDirectory(_ path: String) throws(Diagnostic) -> [String] {
        try entries(of: path).map(\.name)
    }

    /// Creates `path` and any missing parents with `mode`.
    /// The corresponding C function is `mkdir`.
    package static func createDirectory(_ path: String, mode: mode_t = 0o755) throws(Diagnostic) {
        if isDirectory(path) { return }
        let parent = Path.directory(of: path)
        if parent != path && !parent.isEmpty { try createDirectory(parent, mode: mode) }
        if mkdir(path, mode) != 0 && errno != EEXIST {
            throw failure(.fileUnwritable, "cannot create the directory", path)
        }
    }

    /// Writes `bytes` to `path` atomically: a temporary file beside it is
    /// written, flushed to disk and renamed over `path`, so a reader sees the
    /// old file or the new one, never a torn one.
    package static func writeFileAtomically(_ path: String, _ bytes: some Collection<UInt8>,
                                            mode: mode_t = 0o644) throws(Diagnostic) {
        let temporary = "\(Path.directory(of: path))/.\(Path.lastComponent(of: path)).\(getpid()).tmp"
        // A new file of its own, never one planted at the temporary name (a link to elsewhere, say).
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure(.fileUnwritable, "cannot create", temporary) }
        var written = true
        Array(bytes).withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = SystemCall.retrying { write(descriptor, buffer.baseAddress! + offset, buffer.count - offset) }
                if count < 0 {
                    written = false
                    return
                }
                offset += count
            }
        }
        let flushed = fsync(descriptor) == 0
        let closed = close(descriptor) == 0
        guard written, flushed, closed, rename(temporary, path) == 0 else {
            let error = failure(.fileUnwritable, "cannot write", path)
            unlink(temporary)
            throw error
        }
    }

    /// Makes a new, empty directory only the user can enter, `PREFIX.XXXXXX`
    /// under `$TMPDIR` (or /tmp), and returns its path.
    /// The corresponding C function is `mkdtemp`.
    package static func makeTemporaryDirectory(prefix: String) throws(Diagnostic) -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array(Path.join(base, "\(prefix).XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) != nil }
        guard made else { throw failure(.fileUnwritable, "cannot make a temporary directory in", base) }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Copies the regular file at `source` to `destination` atomically,
    /// keeping its permission bits (but set-user and set-group ID), streaming
    /// it through a fixed buffer (`FileDescriptor.copyContents(to:)`): never
    /// read whole, however large.
    package static func copyFile(_ source: String, to destination: String) throws(Diagnostic) {
        let file = try FileDescriptor(opening: source, as: .regularFile)
        let mode: mode_t = ((try? file.status().st_mode) ?? 0o644) & 0o1777
        let temporary = "\(Path.directory(of: destination))/.\(Path.lastComponent(of: destination)).\(getpid()).tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure(.fileUnwritable, "cannot create", temporary) }
        let copy = FileDescriptor(adopting: descriptor)
        do throws(SystemError) {
            _ = try file.copyContents(to: copy)
            try copy.synchronize()
        } catch {
            unlink(temporary)
            throw Self.failure(error, .fileUnwritable, "cannot copy \(source) to", destination)
        }
        guard rename(temporary, destination) == 0 else {
            unlink(temporary)
            throw failure(.fileUnwritable, "cannot move \(temporary) to", destination)
        }
    }

    /// Renames `source` to `destination`, replacing a file there (not a non-empty directory).
    /// The corresponding C function is `rename`.
    package static func move(_ source: String, to destination: String) throws(Diagnostic) {
        guard rename(source, destination) == 0 else { throw failure(.fileUnwritable, "cannot move \(source) to", destination) }
    }

    /// Removes `path` and, for a directory, everything in it. Symbolic links
    /// are removed, never followed. A missing path is not an error.
    package static func removeTree(_ path: String) throws(Diagnostic) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw failure(.fileUnwritable, "cannot inspect", path)
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            for name in try contentsOfDirectory(path) { try removeTree(Path.join(path, name)) }
            guard rmdir(path) == 0 else { throw failure(.fileUnwritable, "cannot remove", path) }
        } else {
            guard unlink(path) == 0 else { throw failure(.fileUnwritable, "cannot remove", path) }
        }
    }

    /// `path` made absolute against the current directory, without resolving
    /// symbolic links. The corresponding C function is `getcwd`.
    package static func absolutePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        var directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var rest = Substring(path)
        while rest.hasPrefix("./") { rest = rest.dropFirst(2) }
        if rest == "." { return directory }
        if directory.hasSuffix("/") { directory.removeLast() }
        return directory + "/" + rest
    }

    /// The system's sentence for the current `errno`.
    package static func systemReason() -> String {
        String(cString: strerror(errno))
    }

    /// A diagnostic for a call that failed with `errno`: "Cannot open PATH: permission denied."
    private static func failure(_ code: Diagnostic.Code, _ verb: String, _ path: String) -> Diagnostic {
        failure(.current(), code, verb, path)
    }

    /// A diagnostic for a call that failed with `error`: "Cannot open PATH:
    /// permission denied."; `file.not-found` instead of `file.unreadable`
    /// when nothing is at the path.
    package static func failure(_ error: SystemError, _ code: Diagnostic.Code, _ verb: String, _ path: String) -> Diagnostic {
        let code = error.code == ENOENT && code == .fileUnreadable ? .fileNotFound : code
        return .error(code, "\(verb.prefix(1).uppercased() + verb.dropFirst()) \(path): \(error).", at: .init(file: path))
    }
}

extension Diagnostic.Code {
    /// A file or directory does not exist.
    package static let fileNotFound = Self("file.not-found")
    /// A file or directory exists but cannot be read.
    package static let fileUnreadable = Self("file.unreadable")
    /// A file is larger than the reader accepts, or than the system lets it grow (EFBIG).
    package static let fileTooLarge = Self("file.too-large")
    /// A file or directory cannot be created or written.
    package static let fileUnwritable = Self("file.unwritable")
    /// The disk or the user's quota has no room for what was written (ENOSPC, EDQUOT).
    package static let fileNoSpace = Self("file.no-space")
    /// The disk failed to read or write (EIO).
    package static let fileIOError = Self("file.io-error")
}
