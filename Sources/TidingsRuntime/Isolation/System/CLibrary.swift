import Glibc

/// Functions of the C library that Swift's Glibc module does not declare:
/// it does not define `_GNU_SOURCE`, so it lacks `close_range`, `pipe2`,
/// `gettid`, `pthread_getattr_np` and `posix_spawn_file_actions_addclosefrom_np`,
/// and it imports no variadic function (`prctl`, `syscall`) at all.
enum CLibrary {
    /// The C library's function `name`, found with `dlsym` in the global
    /// scope, as `type`; nil when this C library has none.
    /// The corresponding C function is `dlsym`.
    static func function<Function>(_ name: String, as type: Function.Type) -> Function? {
        dlsym(nil, name).map { unsafeBitCast($0, to: type) }
    }
}
