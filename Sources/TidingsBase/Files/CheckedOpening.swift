import Glibc

/// Opening a path as what it must be.
///
/// Every open here is made with `O_NONBLOCK` and `O_NOCTTY`, so that a FIFO
/// or a device planted at the path is opened at once (or refused) and never
/// waited on, and then `fstat` on the open descriptor must report the kind
/// asked for. A file of the user's own (Tidings' state, cache, ledger,
/// socket, configuration) is also opened with `O_NOFOLLOW` — a symbolic link
/// at the path is refused, never followed — and must belong to the user and
/// be writable by no one else (neither its group nor others may write it).
extension FileDescriptor {
    /// Opens `path`, following links, as a `kind`: never waiting on it, and
    /// refused unless `fstat` says it is a `kind`.
    /// - Parameters:
    ///   - flags: `O_RDONLY`, `O_RDWR | O_APPEND`, … (`O_CLOEXEC`,
    ///     `O_NONBLOCK` and `O_NOCTTY` are always added).
    ///   - mode: the permissions of a file `O_CREAT` makes.
    package init(opening path: String, as kind: FileKind, _ flags: Int32 = O_RDONLY, mode: mode_t = 0o600)
        throws(Diagnostic)
    {
        self = try Self.open(path, as: kind, flags, mode: mode, own: false)
    }

    /// Opens `path`, a file someone handed Tidings (a bundle to install), as
    /// a `kind`: never through a symbolic link at `path` (refused as
    /// `file.link`), never waiting on it, and refused unless `fstat` says it
    /// is a `kind`. Unlike `init(openingOwn:as:)`, it may be anyone's.
    package init(openingUnlinked path: String, as kind: FileKind, _ flags: Int32 = O_RDONLY) throws(Diagnostic) {
        self = try Self.open(path, as: kind, flags | O_NOFOLLOW, mode: 0, own: false, linksRefused: true)
    }

    /// Opens `path` as a `kind` of the user's own: never through a symbolic
    /// link at `path`, never waiting on it, and refused unless `fstat` says it
    /// is a `kind` that belongs to the user and that no one else may write.
    package init(openingOwn path: String, as kind: FileKind, _ flags: Int32 = O_RDONLY, mode: mode_t = 0o600)
        throws(Diagnostic)
    {
        let file = try Self.open(path, as: kind, flags, mode: mode, own: true)
        try Self.checkOwnership(try Self.status(of: file, path, flags), of: path, kind)
        self = file
    }

    /// The status of the entry `name` of this directory (whose path is
    /// `directory`), not following a link: nil when nothing has that name;
    /// thrown when it is not a `kind` of the user's own. For a socket, which
    /// cannot be opened. The corresponding C function is `fstatat`.
    package func ownEntry(named name: String, in directory: String, as kind: FileKind) throws(Diagnostic) -> stat? {
        let path = Path.join(directory, name)
        var info = stat()
        guard fstatat(rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            let error = SystemError.current()
            if error.code == ENOENT { return nil }
            throw FileSystem.failure(error, .fileUnreadable, "cannot examine", path)
        }
        guard FileKind(mode: info.st_mode) == kind else { throw Self.wrongKind(info, of: path, kind, own: true) }
        try Self.checkOwnership(info, of: path, kind)
        return info
    }

    // MARK: Checks

    /// Opens `path` and checks its kind on the descriptor; a file of the
    /// user's `own` without following a link.
    private static func open(_ path: String, as kind: FileKind, _ flags: Int32, mode: mode_t,
                             own: Bool, linksRefused: Bool = false) throws(Diagnostic) -> FileDescriptor {
        let all = flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (own ? O_NOFOLLOW : 0)
        let descriptor = SystemCall.retrying { Glibc.open(path, all, mode) }
        guard descriptor >= 0 else {
            let error = SystemError.current()
            // What is there, when it is the reason: a link, a FIFO with no
            // writer (ENXIO), a directory opened for writing (EISDIR), ….
            var info = stat()
            let examined = own || linksRefused ? lstat(path, &info) : stat(path, &info)
            if error.code != ENOENT, examined == 0, FileKind(mode: info.st_mode) != kind {
                if linksRefused && info.st_mode & S_IFMT == S_IFLNK {
                    throw .error(.fileLink, "\(path) is a symbolic link, which Tidings does not follow to a file it is handed; name the file itself.",
                                 at: .init(file: path))
                }
                throw wrongKind(info, of: path, kind, own: own)
            }
            // Nothing there, or a path through something that is not a directory: no such file.
            let missing = error.code == ENOENT || error.code == ENOTDIR
            let code: Diagnostic.Code = missing ? .fileNotFound : writes(flags) ? .fileUnwritable : .fileUnreadable
            throw FileSystem.failure(error, code, "cannot open", path)
        }
        let file = FileDescriptor(adopting: descriptor)
        let info = try status(of: file, path, flags)
        guard FileKind(mode: info.st_mode) == kind else { throw wrongKind(info, of: path, kind, own: own) }
        return file
    }

    /// `fstat` of `file`, opened at `path` with `flags`.
    private static func status(of file: borrowing FileDescriptor, _ path: String, _ flags: Int32) throws(Diagnostic) -> stat {
        do throws(SystemError) {
            return try file.status()
        } catch {
            throw FileSystem.failure(error, writes(flags) ? .fileUnwritable : .fileUnreadable, "cannot examine", path)
        }
    }

    /// Refuses `info` (of `path`, a `kind`) unless it belongs to the user
    /// running this process and no one else may write it.
    private static func checkOwnership(_ info: stat, of path: String, _ kind: FileKind) throws(Diagnostic) {
        let user = geteuid()
        guard info.st_uid == user else {
            throw .error(.fileForeign,
                         "\(path) belongs to user \(info.st_uid), not to user \(user) who runs Tidings, which uses only its user's own \(kind.plural).",
                         at: .init(file: path))
        }
        guard info.st_mode & 0o022 == 0 else {
            let mode = "0" + String(info.st_mode & 0o7777, radix: 8)
            throw .error(.fileOpenToOthers,
                         "\(path) can be written by other users (mode \(mode)); make it writable by its owner alone (chmod go-w) or remove it.",
                         at: .init(file: path))
        }
    }

    /// The error of `info`, at `path`, which is not a `kind`: for a file of
    /// the user's `own`, a refusal (`file.wrong-kind`, `file.link`); for an
    /// input, a file that cannot be read as one (`file.unreadable`).
    private static func wrongKind(_ info: stat, of path: String, _ kind: FileKind, own: Bool) -> Diagnostic {
        if info.st_mode & S_IFMT == S_IFLNK {
            return .error(.fileLink,
                          "\(path) is a symbolic link, which Tidings never follows to its own files; put \(kind) there in its place.",
                          at: .init(file: path))
        }
        return .error(own ? .fileWrongKind : .fileUnreadable,
                      "\(path) is \(FileKind.describe(info.st_mode)), not \(kind)\(own ? "; remove it" : "").",
                      at: .init(file: path))
    }

    /// True when `flags` open for writing.
    private static func writes(_ flags: Int32) -> Bool {
        flags & O_ACCMODE != O_RDONLY || flags & O_CREAT != 0
    }
}

extension Diagnostic.Code {
    /// A file of Tidings' own is a symbolic link, which is never followed.
    package static let fileLink = Self("file.link")
    /// A file or directory of Tidings' own is not the kind it must be (a FIFO where a regular file must be, …).
    package static let fileWrongKind = Self("file.wrong-kind")
    /// A file or directory of Tidings' own belongs to another user.
    package static let fileForeign = Self("file.foreign")
    /// A file or directory of Tidings' own can be written by other users.
    package static let fileOpenToOthers = Self("file.open-to-others")

    /// True for the refusals of a path that is not what it must be: a link,
    /// another kind, another user's, or writable by others.
    package var refusesPath: Bool {
        self == .fileLink || self == .fileWrongKind || self == .fileForeign || self == .fileOpenToOthers
    }
}
