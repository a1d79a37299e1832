import Glibc
import TidingsBase
import TidingsSystemShims

/// The file an attachment request names, checked and opened: a regular file
/// (not a link, a directory, a FIFO, a device or a socket), beneath its base
/// when the request has one, open for reading without following a link.
///
/// Nothing is checked by path and then opened by path. The file's directory
/// is opened first — beneath the base through `DirectoryBeneath` for a
/// relative path — and the file is opened from that descriptor with
/// `O_NOFOLLOW`; what is checked is the open descriptor (`fstat`), and
/// everything after reads the descriptor. The directory stays open (`place`)
/// so that a move can remove the file from there later, if its name there
/// is still this file.
package struct AttachmentSource: ~Copyable {
    /// The absolute path the request names, for messages and for the admission.
    package let path: String
    /// The open file, read-only.
    package let file: FileDescriptor
    /// Its status when opened: size, times, device and inode, links.
    let status: stat
    /// Its directory and its name there; nil for a file its caller opened (`init(openedFor:file:)`).
    let place: SourcePlace?

    /// The file `request` names, checked and opened; a relative path is
    /// walked beneath its base by `resolution`.
    package init(_ request: AttachmentRequest) throws(AttachmentFailure) {
        try self.init(request, resolving: .kernel)
    }

    /// The file `request` names, checked and opened, a relative path walked beneath its base by `resolution`.
    init(_ request: AttachmentRequest, resolving resolution: DirectoryBeneath.Method) throws(AttachmentFailure) {
        let location = try Location(of: request)
        let path = location.path
        let directory: FileDescriptor
        do {
            directory = try location.openDirectory(by: resolution)
        } catch {
            throw AttachmentFailure(.invalidURL, Self.unreachable(path, location: location, error), request: request)
        }
        let name = location.name
        // What the name is, for a plain refusal before anything is opened (a device is never opened).
        var named = stat()
        guard fstatat(directory.rawValue, name, &named, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw AttachmentFailure(.invalidURL, Self.unreachable(path, location: location, SystemError.current()),
                                    request: request)
        }
        if let kind = Self.irregularKind(named.st_mode) {
            throw AttachmentFailure(.invalidURL, "\(path) is \(kind); an attachment must be a regular file",
                                    request: request)
        }
        // O_NONBLOCK: should a FIFO take the name meanwhile, opening it does not wait for a writer.
        let opened = openat(directory.rawValue, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard opened >= 0 else {
            let error = SystemError.current()
            throw AttachmentFailure(
                .invalidURL,
                error.code == ELOOP
                    ? "\(path) is a symbolic link; an attachment must be a regular file"
                    : "The attachment file \(path) cannot be opened: \(error)",
                request: request)
        }
        let file = FileDescriptor(adopting: opened)
        let status: stat
        do {
            status = try file.status()
        } catch {
            throw AttachmentFailure(.invalidURL, "The attachment file \(path) cannot be examined: \(error)",
                                    request: request)
        }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_dev == named.st_dev, status.st_ino == named.st_ino else {
            throw AttachmentFailure(.invalidURL, "The attachment file \(path) changed while it was being checked",
                                    request: request)
        }
        self.path = path
        self.file = file
        self.status = status
        place = SourcePlace(directory: directory, name: name)
    }

    /// The file the caller opened for `request` (for an extension run
    /// elsewhere), checked: a regular file. `file` stays its caller's; the
    /// source reads a duplicate.
    init(openedFor request: AttachmentRequest, file: borrowing FileDescriptor) throws(AttachmentFailure) {
        let path = (try? Location(of: request).path) ?? request.url
        let duplicate = fcntl(file.rawValue, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else {
            throw AttachmentFailure(.invalidURL, "The attachment file \(path) cannot be reached: \(SystemError.current())",
                                    request: request)
        }
        let owned = FileDescriptor(adopting: duplicate)
        let status: stat
        do {
            status = try owned.status()
        } catch {
            throw AttachmentFailure(.invalidURL, "The attachment file \(path) cannot be examined: \(error)", request: request)
        }
        if let kind = Self.irregularKind(status.st_mode) {
            throw AttachmentFailure(.invalidURL, "\(path) is \(kind); an attachment must be a regular file",
                                    request: request)
        }
        self.path = path
        self.file = owned
        self.status = status
        place = nil
    }

    /// The file's size in bytes when it was opened.
    var size: UInt64 { UInt64(status.st_size) }

    /// Removes the file's name from its directory, when it still names this
    /// file (a move's second half); nil when it is gone, else why it stays.
    package func removeFromItsPlace() -> String? {
        place?.remove(ifStill: status.st_dev, status.st_ino)
    }

    /// True when the file, as it is now, may have been written since it was
    /// opened: `copied` (the bytes read from it) is not the size it had then,
    /// or its size, modification or status-change time differ. Every write
    /// moves the status-change time, and no one can set it back; since
    /// Linux 6.13 (ext4, XFS, Btrfs, tmpfs) a time that was looked at is
    /// fine-grained for the next change, so a write right after the look
    /// still shows. On older kernels a write in the same clock tick can go
    /// unseen: the copy is still checked, only not known to be one version.
    func hasChanged(copied: UInt64) -> Bool {
        guard copied == size, let now = try? file.status() else { return true }
        return now.st_size != status.st_size
            || now.st_mtim.tv_sec != status.st_mtim.tv_sec || now.st_mtim.tv_nsec != status.st_mtim.tv_nsec
            || now.st_ctim.tv_sec != status.st_ctim.tv_sec || now.st_ctim.tv_nsec != status.st_ctim.tv_nsec
    }

    /// The sentence for a file whose directory or name cannot be reached.
    private static func unreachable(_ path: String, location: Location, _ error: SystemError) -> String {
        switch error.code {
        case ENOENT, ENOTDIR: "The attachment file \(path) does not exist"
        case EXDEV: "\(location.relative ?? path) leaves the directory \(location.base ?? "/") it is taken from, through a link"
        default: "The attachment file \(path) cannot be reached: \(error)"
        }
    }

    /// What a file of `mode` is, when it is not a regular file: "a symbolic
    /// link", "a directory", "a FIFO (named pipe)", "a device", "a socket".
    private static func irregularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFLNK: "a symbolic link"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}

extension AttachmentSource {
    /// Where a request's file is, before anything is opened: its directory
    /// (an absolute path, or components beneath a base) and its name there.
    struct Location {
        /// The absolute path, for messages: a relative path's base joined
        /// with its components, `.` and `..` taken out.
        let path: String
        /// The name in the directory.
        let name: String
        /// The base a relative path is taken from; nil for an absolute path.
        let base: String?
        /// The relative path as the request wrote it; nil for an absolute path.
        let relative: String?
        /// The directories from the base to the file's, for a relative path.
        private let directories: [String]

        /// The location of the file `request` names: a `file://` URL's path,
        /// an absolute path, or a path relative to the request's base.
        /// Refused here: no file named, a NUL byte, another scheme, a
        /// relative path without a base or leaving it by `..`.
        init(of request: AttachmentRequest) throws(AttachmentFailure) {
            let url = request.url
            guard !url.isEmpty else { throw AttachmentFailure(.invalidURL, "The attachment names no file", request: request) }
            guard !url.utf8.contains(0) else {
                throw AttachmentFailure(.invalidURL, "The attachment's path contains a NUL byte", request: request)
            }
            var absolute: String?
            if url.hasPrefix("file://") {
                guard let path = FileURL.path(of: url) else {
                    throw AttachmentFailure(.invalidURL, "\(url) decodes to a path that is not UTF-8 or holds a NUL byte",
                                            request: request)
                }
                guard path.hasPrefix("/") else {
                    throw AttachmentFailure(.invalidURL, "\(url) is not a file URL with an absolute path", request: request)
                }
                absolute = path
            } else if url.contains("://") {
                throw AttachmentFailure(
                    .invalidURL, "\(url) is not a file URL; an attachment is a local file (the host fetches nothing)",
                    request: request)
            } else if url.hasPrefix("/") {
                absolute = url
            }
            if let absolute {
                guard !absolute.hasSuffix("/") else {
                    throw AttachmentFailure(.invalidURL, "\(absolute) names a directory, not a file", request: request)
                }
                path = absolute
                name = Path.lastComponent(of: absolute)
                base = nil
                relative = nil
                directories = []
                return
            }
            guard let base = request.base else {
                throw AttachmentFailure(.invalidURL, "\(url) is a relative path; give an absolute path or a file:// URL",
                                        request: request)
            }
            let absoluteBase = FileSystem.absolutePath(base)
            var components: [String] = []
            for component in url.split(separator: "/", omittingEmptySubsequences: true) {
                switch component {
                case ".": continue
                case "..":
                    guard components.popLast() != nil else {
                        throw AttachmentFailure(.invalidURL, "\(url) leaves the directory \(absoluteBase) it is taken from",
                                                request: request)
                    }
                default: components.append(String(component))
                }
            }
            guard let last = components.popLast() else {
                throw AttachmentFailure(.invalidURL, "\(url) names the directory \(absoluteBase), not a file",
                                        request: request)
            }
            path = Path.join(absoluteBase, (components + [last]).joined(separator: "/"))
            name = last
            self.base = absoluteBase
            relative = url
            directories = components
        }

        /// The file's directory, open (`O_PATH`): for an absolute path, its
        /// directory part as `open` resolves it; for a relative one, the base
        /// and then the directories beneath it, never leaving it.
        func openDirectory(by method: DirectoryBeneath.Method = .kernel) throws(SystemError) -> FileDescriptor {
            guard let base else { return try FileDescriptor(opening: Path.directory(of: path), TIDINGS_O_PATH | O_DIRECTORY) }
            let opened = try FileDescriptor(opening: base, TIDINGS_O_PATH | O_DIRECTORY)
            return directories.isEmpty ? opened : try DirectoryBeneath.open(directories, beneath: opened, by: method)
        }
    }
}

/// The directory a source file lies in, open, and the file's name there:
/// what a move removes the file through once its copy is admitted.
///
/// A class so that an admission in progress can keep it while the other
/// attachments of its request are checked; the object is the descriptor's one owner.
final class SourcePlace {
    /// The file's directory, open with `O_PATH`.
    let directory: FileDescriptor
    /// The file's name in it.
    let name: String

    /// The place of `name` in `directory`, which it now owns.
    init(directory: consuming FileDescriptor, name: String) {
        self.directory = directory
        self.name = name
    }

    /// The directory's status: device and inode.
    func directoryStatus() -> stat? {
        try? directory.status()
    }

    /// Removes the name when it still names the file of `device` and
    /// `inode`; nil when the name is gone (removed, or gone already),
    /// otherwise why it stays. (Between the check and the removal someone
    /// who may write the directory could put another file there; they could
    /// as well remove it themselves.)
    /// The corresponding C functions are `fstatat` and `unlinkat`.
    func remove(ifStill device: dev_t, _ inode: ino_t) -> String? {
        var named = stat()
        guard fstatat(directory.rawValue, name, &named, AT_SYMLINK_NOFOLLOW) == 0 else {
            let error = SystemError.current()
            return error.code == ENOENT ? nil : "it cannot be examined in its place (\(error))"
        }
        guard named.st_dev == device && named.st_ino == inode else {
            return "another file took its name meanwhile"
        }
        guard unlinkat(directory.rawValue, name, 0) == 0 else {
            return "it cannot be removed from its place (\(SystemError.current()))"
        }
        return nil
    }
}
