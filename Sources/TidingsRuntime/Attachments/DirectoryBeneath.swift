import Glibc
import TidingsBase
import TidingsSystemShims

/// Opens the directory a relative path names beneath a base directory, so
/// that what is opened lies beneath the base however the path changes
/// meanwhile: symbolic links are followed only while they stay beneath it
/// (an absolute link, or `..` above the base, is refused with `EXDEV`), and
/// no step is ever a path checked first and opened afterwards.
///
/// The kernel does the walk when it has `openat2` (Linux 5.6 and later,
/// `RESOLVE_BENEATH`); otherwise the walk is done here, one component at a
/// time from the base's descriptor, to the same rules.
enum DirectoryBeneath {
    /// Who walks the path.
    enum Method: Sendable, CaseIterable {
        /// `openat2` with `RESOLVE_BENEATH`, or the component walk where the kernel lacks it.
        case kernel
        /// The component walk, always.
        case components
    }

    /// How many symbolic links one walk follows at most (the kernel's limit).
    static let linkLimit = 40

    /// How many times `openat2` is asked again when it answers `EAGAIN` (a
    /// rename raced with a `..` in the path, and the kernel could not prove
    /// that the walk stayed beneath the base).
    static let kernelAttempts = 8

    /// The directory `components` name beneath `base`, open with `O_PATH`.
    /// `components` holds no empty names; it may hold `.` and `..`.
    static func open(_ components: [String], beneath base: borrowing FileDescriptor,
                     by method: Method = .kernel) throws(SystemError) -> FileDescriptor {
        if method == .kernel, let opened = try openByKernel(components, beneath: base) { return opened }
        return try walk(components, beneath: base)
    }

    /// `openat2(base, components, O_PATH | O_DIRECTORY, RESOLVE_BENEATH |
    /// RESOLVE_NO_MAGICLINKS)`; nil when the kernel has no `openat2`.
    private static func openByKernel(_ components: [String],
                                     beneath base: borrowing FileDescriptor) throws(SystemError) -> FileDescriptor? {
        let path = components.joined(separator: "/")
        let resolve = UInt64(TIDINGS_RESOLVE_BENEATH | TIDINGS_RESOLVE_NO_MAGICLINKS)
        for _ in 0..<kernelAttempts {
            let result = tidings_openat2(base.rawValue, path, TIDINGS_O_PATH | O_DIRECTORY, 0, resolve)
            if result >= 0 { return FileDescriptor(adopting: result) }
            switch -result {
            case ENOSYS: return nil
            case EAGAIN: continue
            default: throw SystemError(code: -result)
            }
        }
        throw SystemError(code: EAGAIN)
    }

    /// The walk done here: each component opened with `O_PATH | O_NOFOLLOW`
    /// from the directory before it; a link's target, read through the
    /// link's own descriptor, is walked in its place; `..` goes back to a
    /// directory already entered, never above the base.
    private static func walk(_ components: [String],
                             beneath base: borrowing FileDescriptor) throws(SystemError) -> FileDescriptor {
        var pending = Array(components.reversed())
        // The directories entered so far, each a name in the one before, none a link.
        var entered: [String] = []
        var current = try enter([], from: base)
        var links = 0
        while let name = pending.popLast() {
            switch name {
            case "", ".":
                continue
            case "..":
                guard !entered.isEmpty else { throw SystemError(code: EXDEV) }
                entered.removeLast()
                current = try enter(entered, from: base)
            default:
                let next = try step(into: name, of: current)
                let kind = try next.status().st_mode & S_IFMT
                if kind == S_IFDIR {
                    current = next
                    entered.append(name)
                } else if kind == S_IFLNK {
                    links += 1
                    guard links <= linkLimit else { throw SystemError(code: ELOOP) }
                    let target = try linkTarget(next)
                    // As RESOLVE_BENEATH: an absolute link leaves the base, wherever it points.
                    guard !target.hasPrefix("/") else { throw SystemError(code: EXDEV) }
                    pending += target.split(separator: "/").reversed().map(String.init)
                } else {
                    throw SystemError(code: ENOTDIR)
                }
            }
        }
        return current
    }

    /// The directory `names` lead to from `base`, each a directory and none
    /// a link (the base itself, duplicated, when `names` is empty).
    private static func enter(_ names: [String], from base: borrowing FileDescriptor) throws(SystemError) -> FileDescriptor {
        var current = try step(into: ".", of: base)
        for name in names {
            let next = try step(into: name, of: current)
            guard try next.status().st_mode & S_IFMT == S_IFDIR else { throw SystemError(code: ENOTDIR) }
            current = next
        }
        return current
    }

    /// `name` in `directory`, open with `O_PATH | O_NOFOLLOW`: a link is
    /// opened itself, not followed. The corresponding C function is `openat`.
    private static func step(into name: String, of directory: borrowing FileDescriptor) throws(SystemError) -> FileDescriptor {
        let opened = openat(directory.rawValue, name, TIDINGS_O_PATH | O_NOFOLLOW | O_CLOEXEC)
        guard opened >= 0 else { throw SystemError.current() }
        return FileDescriptor(adopting: opened)
    }

    /// The target of the symbolic link `link` (opened with `O_PATH |
    /// O_NOFOLLOW`). The corresponding C function is `readlinkat` with an empty path.
    private static func linkTarget(_ link: borrowing FileDescriptor) throws(SystemError) -> String {
        var bytes = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = bytes.withUnsafeMutableBufferPointer { buffer in
            readlinkat(link.rawValue, "", buffer.baseAddress!, buffer.count)
        }
        guard count >= 0 else { throw SystemError.current() }
        guard count < bytes.count else { throw SystemError(code: ENAMETOOLONG) }
        return String(decoding: bytes[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
