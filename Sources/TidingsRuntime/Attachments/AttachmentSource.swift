import Glibc
import TidingsBase

/// The file an attachment request names, checked and opened: a regular file
/// (not a link, a directory, a FIFO, a device or a socket), inside its base
/// when the request has one, open for reading without following links.
///
/// What is checked is what was opened: the descriptor is compared with the
/// path's status, so a file swapped in between is refused, and everything
/// after reads the descriptor, not the path.
package struct AttachmentSource: ~Copyable {
    /// The absolute path the request names.
    package let path: String
    /// The open file, read-only.
    package let file: FileDescriptor
    /// Its status when opened: size, device and inode, links.
    let status: stat

    /// The file `request` names, checked and opened.
    package init(_ request: AttachmentRequest) throws(AttachmentFailure) {
        let path = try Self.path(of: request)
        var linkStatus = stat()
        guard lstat(path, &linkStatus) == 0 else {
            let error = SystemError.current()
            throw AttachmentFailure(
                .invalidURL,
                error.code == ENOENT || error.code == ENOTDIR
                    ? "The attachment file \(path) does not exist"
                    : "The attachment file \(path) cannot be reached: \(error)",
                request: request)
        }
        if let kind = Self.irregularKind(linkStatus.st_mode) {
            throw AttachmentFailure(.invalidURL, "\(path) is \(kind); an attachment must be a regular file",
                                    request: request)
        }
        let file: FileDescriptor
        do {
            // O_NONBLOCK: should a FIFO be swapped in after lstat, opening it does not wait for a writer.
            file = try FileDescriptor(opening: path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        } catch {
            throw AttachmentFailure(
                .invalidURL,
                error.code == ELOOP
                    ? "\(path) is a symbolic link; an attachment must be a regular file"
                    : "The attachment file \(path) cannot be opened: \(error)",
                request: request)
        }
        let status: stat
        do {
            status = try file.status()
        } catch {
            throw AttachmentFailure(.invalidURL, "The attachment file \(path) cannot be examined: \(error)",
                                    request: request)
        }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_dev == linkStatus.st_dev,
              status.st_ino == linkStatus.st_ino
        else {
            throw AttachmentFailure(.invalidURL, "The attachment file \(path) changed while it was being checked",
                                    request: request)
        }
        self.path = path
        self.file = file
        self.status = status
    }

    /// The file a worker process opened for `request`, checked: a regular
    /// file. `file` stays its caller's; the source reads a duplicate.
    init(openedFor request: AttachmentRequest, file: borrowing FileDescriptor) throws(AttachmentFailure) {
        let path = (try? Self.path(of: request)) ?? request.url
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
    }

    /// The file's size in bytes.
    var size: UInt64 { UInt64(status.st_size) }

    /// True when `other` (a `stat` of some path) is this very file.
    package func isSameFile(as other: stat) -> Bool {
        other.st_dev == status.st_dev && other.st_ino == status.st_ino
    }

    /// The absolute path `request` names: a `file://` URL's path, an absolute
    /// path, or a path relative to the request's base that stays inside it.
    static func path(of request: AttachmentRequest) throws(AttachmentFailure) -> String {
        let url = request.url
        guard !url.isEmpty else { throw AttachmentFailure(.invalidURL, "The attachment names no file", request: request) }
        guard !url.utf8.contains(0) else {
            throw AttachmentFailure(.invalidURL, "The attachment's path contains a NUL byte", request: request)
        }
        if url.hasPrefix("file://") {
            guard let path = FileURL.path(of: url) else {
                throw AttachmentFailure(.invalidURL, "\(url) decodes to a path that is not UTF-8 or holds a NUL byte",
                                        request: request)
            }
            guard path.hasPrefix("/") else {
                throw AttachmentFailure(.invalidURL, "\(url) is not a file URL with an absolute path", request: request)
            }
            return path
        }
        if url.contains("://") {
            throw AttachmentFailure(
                .invalidURL, "\(url) is not a file URL; an attachment is a local file (the host fetches nothing)",
                request: request)
        }
        if url.hasPrefix("/") { return url }
        guard let base = request.base else {
            throw AttachmentFailure(.invalidURL, "\(url) is a relative path; give an absolute path or a file:// URL",
                                    request: request)
        }
        return try path(url, inside: FileSystem.absolutePath(base), request: request)
    }

    /// `relative` taken from `base`, refused when it leaves `base`: by `..`,
    /// or through a directory that is a link to somewhere else.
    private static func path(_ relative: String, inside base: String,
                             request: AttachmentRequest) throws(AttachmentFailure) -> String {
        var components: [Substring] = []
        for component in relative.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..":
                guard components.popLast() != nil else {
                    throw AttachmentFailure(.invalidURL, "\(relative) leaves the directory \(base) it is taken from",
                                            request: request)
                }
            default: components.append(component)
            }
        }
        guard !components.isEmpty else {
            throw AttachmentFailure(.invalidURL, "\(relative) names the directory \(base), not a file", request: request)
        }
        let path = Path.join(base, components.joined(separator: "/"))
        // Through links, the file's directory must still lie inside the base.
        if let realBase = realPath(base), let realDirectory = realPath(Path.directory(of: path)),
           realDirectory != realBase && !realDirectory.hasPrefix(realBase == "/" ? "/" : realBase + "/") {
            throw AttachmentFailure(.invalidURL,
                                    "\(relative) leaves the directory \(base) it is taken from, through a link",
                                    request: request)
        }
        return path
    }

    /// `path` with every link resolved; nil when it cannot be.
    /// The corresponding C function is `realpath`.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
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
