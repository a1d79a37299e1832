import Glibc

extension FileDescriptor {
    /// Removes the entry `name` of this directory and, for a directory,
    /// everything in it, by descriptor: each directory is opened beneath the
    /// one before with `O_NOFOLLOW`, so a link planted anywhere in the tree
    /// (or swapped in for a directory meanwhile) is removed, never followed.
    /// Nothing named `name`: nothing to do.
    /// The corresponding C functions are `fstatat`, `openat` and `unlinkat`.
    package func removeTree(named name: String) throws(SystemError) {
        var info = stat()
        guard fstatat(rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            let error = SystemError.current()
            if error.code == ENOENT { return }
            throw error
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            let opened = SystemCall.retrying {
                openat(rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            }
            guard opened >= 0 else { throw SystemError.current() }
            let child = FileDescriptor(adopting: opened)
            for entry in try child.entryNames() { try child.removeTree(named: entry) }
            guard unlinkat(rawValue, name, AT_REMOVEDIR) == 0 else { throw SystemError.current() }
        } else {
            guard unlinkat(rawValue, name, 0) == 0 else { throw SystemError.current() }
        }
    }

    /// The names in this directory, without `.` and `..`.
    /// The corresponding C functions are `fdopendir` and `readdir`.
    package func entryNames() throws(SystemError) -> [String] {
        let copy = dup(rawValue)
        guard copy >= 0 else { throw SystemError.current() }
        guard let directory = fdopendir(copy) else {
            let error = SystemError.current()
            Glibc.close(copy)
            throw error
        }
        defer { closedir(directory) }
        rewinddir(directory)
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = FileSystem.name(of: entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
