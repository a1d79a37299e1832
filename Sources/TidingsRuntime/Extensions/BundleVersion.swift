import Glibc
import TidingsManifest
import TidingsRegistry

/// Which version of a bundle an extension was launched from: its manifest
/// and interface as the registry read them, and the identity of its library
/// file as `dlopen` would find it (device, inode, size, modification and
/// change times) — what `tidings install` replacing the bundle, a rebuilt
/// library or an edited manifest changes. Read before the launch, so that a
/// library replaced while it loads is taken for a new version, never the
/// other way round.
struct BundleVersion: Sendable, Equatable {
    /// The identity of a file, from `stat`.
    struct FileIdentity: Sendable, Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        /// Modification and status-change times, in nanoseconds since 1970.
        var modified: Int64
        var changed: Int64
    }

    var manifest: Manifest?
    var interface: Interface?
    /// The library's identity; nil when there is no library to be found.
    var library: FileIdentity?

    /// The version of `bundle` now: its manifest and interface, and its library on disk.
    /// The corresponding C function is `stat`.
    init(of bundle: ExtensionBundle) {
        manifest = bundle.manifest
        interface = bundle.interface
        var info = stat()
        guard let path = bundle.libraryPath, stat(path, &info) == 0 else { return }
        library = FileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }
}
