import Glibc

/// What a path must be when Tidings opens it — a regular file, a directory
/// or a socket — as `fstat` reports it of the open descriptor (or `lstat` of
/// the path itself, for a socket, which cannot be opened).
package enum FileKind: Sendable, Equatable, CustomStringConvertible {
    case regularFile
    case directory
    case socket

    /// The kind of a `st_mode`; nil for every other kind (a FIFO, a link, a device).
    package init?(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regularFile
        case S_IFDIR: self = .directory
        case S_IFSOCK: self = .socket
        default: return nil
        }
    }

    /// "a regular file", "a directory", "a socket".
    package var description: String {
        switch self {
        case .regularFile: "a regular file"
        case .directory: "a directory"
        case .socket: "a socket"
        }
    }

    /// "files", "directories", "sockets".
    var plural: String {
        switch self {
        case .regularFile: "files"
        case .directory: "directories"
        case .socket: "sockets"
        }
    }

    /// What a `st_mode` names, in words: "a regular file", "a FIFO", "a symbolic link", ….
    package static func describe(_ mode: mode_t) -> String {
        if let kind = FileKind(mode: mode) { return kind.description }
        return switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFLNK: "a symbolic link"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "a file of unknown type"
        }
    }
}
