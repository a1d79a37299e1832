import Glibc
import TidingsBase

/// Where `tidings install` assembles a bundle: `.NAME.appex.new` beside
/// `NAME.appex`, a directory of the install's own, locked (`flock`) for as
/// long as the install runs, then renamed into place.
///
/// An install that was killed leaves its staging directory unlocked; the
/// next install into that directory removes every such `.*.appex.new` and
/// `.*.appex.old` it can lock — by descriptor, never following a link
/// planted in them — and leaves those another install still holds.
/// Files are created in it with `O_EXCL | O_NOFOLLOW`, beneath its descriptor.
final class InstallStaging {
    /// The staging directory's path.
    let path: String
    /// The bundle it becomes.
    private let bundle: String
    /// The directory both lie in.
    private let parent: FileDescriptor
    /// The staging directory, locked while it is ours.
    private let directory: FileDescriptor
    private var finished = false

    /// Cleans what killed installs left in `bundle`'s directory and makes a
    /// new, locked staging directory for `bundle`.
    init(for bundle: String) throws(Diagnostic) {
        let parentPath = Path.directory(of: bundle)
        try FileSystem.createDirectory(parentPath)
        parent = try FileDescriptor(opening: parentPath, as: .directory)
        self.bundle = bundle
        let name = ".\(Path.lastComponent(of: bundle)).new"
        path = Path.join(parentPath, name)
        Self.removeAbandoned(in: parent, at: parentPath)
        guard mkdirat(parent.rawValue, name, 0o755) == 0 else {
            let error = SystemError.current()
            if error.code == EEXIST {
                throw .error(.fileUnwritable, "Another install of \(Path.lastComponent(of: bundle)) into \(parentPath) is under way (\(path) is locked).",
                             at: .init(file: path))
            }
            throw FileSystem.failure(error, .fileUnwritable, "cannot create the directory", path)
        }
        let opened = openat(parent.rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard opened >= 0 else { throw FileSystem.failure(SystemError.current(), .fileUnwritable, "cannot open", path) }
        directory = FileDescriptor(adopting: opened)
        guard flock(directory.rawValue, LOCK_EX | LOCK_NB) == 0 else {
            throw FileSystem.failure(SystemError.current(), .fileUnwritable, "cannot lock", path)
        }
    }

    deinit {
        if !finished { abandon() }
    }

    /// Writes `bytes` as the new file `name` (mode 0644).
    func write(_ name: String, bytes: [UInt8]) throws(Diagnostic) {
        let file = try create(name, mode: 0o644)
        do throws(SystemError) {
            try file.write(bytes)
        } catch {
            throw FileSystem.failure(error, .fileUnwritable, "cannot write", Path.join(path, name))
        }
    }

    /// Copies the regular file open as `source` (given as `given`) to the new
    /// file `name`, streaming it; mode 0755 for the `executable`, else 0644.
    func copy(_ source: borrowing FileDescriptor, as name: String, from given: String, executable: Bool) throws(Diagnostic) {
        let file = try create(name, mode: executable ? 0o755 : 0o644)
        do throws(SystemError) {
            _ = try source.copyContents(to: file)
        } catch {
            throw FileSystem.failure(error, .fileUnwritable, "cannot copy \(given) to", Path.join(path, name))
        }
    }

    /// Renames the staged bundle into place (an existing one goes to
    /// `.NAME.appex.old` first, and is removed after).
    func commit() throws(Diagnostic) {
        let name = Path.lastComponent(of: bundle)
        let old = ".\(name).old"
        do throws(SystemError) {
            try parent.removeTree(named: old)
            if renameat(parent.rawValue, name, parent.rawValue, old) != 0 && errno != ENOENT { throw SystemError.current() }
            guard renameat(parent.rawValue, ".\(name).new", parent.rawValue, name) == 0 else { throw SystemError.current() }
            finished = true
            try parent.removeTree(named: old)
        } catch {
            abandon()
            throw FileSystem.failure(error, .fileUnwritable, "cannot move \(path) to", bundle)
        }
    }

    /// Removes the staging directory.
    func abandon() {
        guard !finished else { return }
        finished = true
        try? parent.removeTree(named: Path.lastComponent(of: path))
    }

    /// A new file `name` in the staging directory, never through a link.
    private func create(_ name: String, mode: mode_t) throws(Diagnostic) -> FileDescriptor {
        let opened = SystemCall.retrying {
            openat(directory.rawValue, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        }
        guard opened >= 0 else {
            throw FileSystem.failure(SystemError.current(), .fileUnwritable, "cannot create", Path.join(path, name))
        }
        return FileDescriptor(adopting: opened)
    }

    /// Removes every `.*.appex.new` and `.*.appex.old` in `parent` that no
    /// running install holds locked.
    private static func removeAbandoned(in parent: borrowing FileDescriptor, at parentPath: String) {
        guard let names = try? parent.entryNames() else { return }
        for name in names where name.hasPrefix(".") && (name.hasSuffix(".appex.new") || name.hasSuffix(".appex.old")) {
            let opened = openat(parent.rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            if opened >= 0 {
                let held = FileDescriptor(adopting: opened)
                // Locked: an install under way owns it.
                guard flock(held.rawValue, LOCK_EX | LOCK_NB) == 0 else { continue }
            }
            // Not a directory (a planted link or file), or an abandoned one: removed, never followed.
            try? parent.removeTree(named: name)
        }
    }
}
