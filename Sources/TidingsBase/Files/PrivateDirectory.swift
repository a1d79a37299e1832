extension FileDescriptor {
    /// Opens the directory at `path`, one of Tidings' own (its state, cache,
    /// socket or attachment directory), making it first when it is missing:
    /// mode 0700, and 0700 for the parents made with it.
    ///
    /// It is refused when it is a symbolic link (never followed), not a
    /// directory, another user's, or writable by others (see
    /// `FileDescriptor(openingOwn:as:)`): whoever else could write it could
    /// have put anything in it, or could swap what Tidings put there.
    package init(openingPrivateDirectory path: String) throws(Diagnostic) {
        try FileSystem.createDirectory(path, mode: 0o700)
        self = try FileDescriptor(openingOwn: path, as: .directory)
    }
}

extension FileSystem {
    /// Checks the place of a file of Tidings' own at `path` (its cache, its
    /// fault ledger): the directory private to the user, made when missing
    /// (see `FileDescriptor(openingPrivateDirectory:)`), and the file, when
    /// there is one, a regular file of the user's own, not a link.
    package static func checkPrivateFile(_ path: String) throws(Diagnostic) {
        _ = try FileDescriptor(openingPrivateDirectory: Path.directory(of: path))
        do throws(Diagnostic) {
            _ = try FileDescriptor(openingOwn: path, as: .regularFile)
        } catch where error.code == .fileNotFound {
            return
        }
    }
}
