import Glibc
import TidingsBase
import TidingsSystemShims

/// Inspects an accepted peer's process from outside it: its Flatpak
/// sandbox (`/.flatpak-info` of its root, read through `/proc/PID/root`
/// without following any link below it) or its Snap (its AppArmor label,
/// else its cgroup), pinned against pid reuse (`PeerProcess`).
///
/// Fail closed: a peer whose process cannot be inspected at all — its pid
/// outside the server's namespace, its `/proc/PID/root` not readable (not
/// dumpable, another user namespace's), gone before the reading was
/// confirmed — is `uninspectable`, which can be no front end.
enum PeerInspector {
    /// The most of a sandbox's file read, in bytes (Flatpak's is a few hundred).
    static let fileLimit = 64 << 10

    /// The credentials of `socket`'s peer and what inspecting its process found.
    static func inspect(_ socket: Int32) -> (PeerCredentials?, PeerInspection) {
        let peer: PeerProcess
        do throws(PeerInspectionFailure) {
            peer = try PeerProcess(of: socket)
        } catch {
            return (PeerProcess.credentials(of: socket), .uninspectable(error.reason))
        }
        let found = inspect(pid: peer.credentials.pid)
        // What /proc/PID said is the peer's only if the pid still names it.
        guard peer.isAlive else { return (peer.credentials, .uninspectable("the process ended while it was inspected")) }
        return (peer.credentials, found)
    }

    /// What `/proc/pid` says of the process's sandbox.
    private static func inspect(pid: Int32) -> PeerInspection {
        let root: FileDescriptor
        do throws(SystemError) {
            // /proc's own link to the process's root, followed once: all below it is opened without links.
            root = try FileDescriptor(opening: "/proc/\(pid)/root", TIDINGS_O_PATH | O_DIRECTORY | O_CLOEXEC)
        } catch {
            return .uninspectable("/proc/\(pid)/root cannot be opened: \(error)")
        }
        switch read(".flatpak-info", beneath: root) {
        case .success(let bytes?):
            guard let sandbox = SandboxFiles.flatpak(info: String(decoding: bytes, as: UTF8.self)) else {
                return .uninspectable("its /.flatpak-info names no application")
            }
            return .sandboxed(sandbox)
        case .success(nil):
            break
        case .failure(let error):
            return .uninspectable("its /.flatpak-info cannot be read: \(error)")
        }
        if case .success(let label?) = readProc("/proc/\(pid)/attr/current"),
           let sandbox = SandboxFiles.snap(label: String(decoding: label, as: UTF8.self)) {
            return .sandboxed(sandbox)
        }
        if case .success(let cgroup?) = readProc("/proc/\(pid)/cgroup"),
           let sandbox = SandboxFiles.snap(cgroup: String(decoding: cgroup, as: UTF8.self)) {
            return .sandboxed(sandbox)
        }
        return .unsandboxed
    }

    /// The file `name` directly in `root`, opened with no link followed
    /// (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    /// O_NOFOLLOW where the kernel lacks openat2): nil when there is none.
    private static func read(_ name: String, beneath root: borrowing FileDescriptor) -> Result<[UInt8]?, SystemError> {
        let resolve = UInt64(TIDINGS_RESOLVE_BENEATH | TIDINGS_RESOLVE_NO_SYMLINKS | TIDINGS_RESOLVE_NO_MAGICLINKS)
        var opened = SystemCall.retryingNegative {
            tidings_openat2(root.rawValue, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0, resolve)
        }
        if opened == -ENOSYS {
            opened = SystemCall.retrying { openat(root.rawValue, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
            if opened < 0 { opened = -errno }
        }
        if opened == -ENOENT { return .success(nil) }
        guard opened >= 0 else { return .failure(SystemError(code: -opened)) }
        return readAll(FileDescriptor(adopting: opened))
    }

    /// A file of /proc about the process; nil when there is none.
    private static func readProc(_ path: String) -> Result<[UInt8]?, SystemError> {
        let opened = SystemCall.retrying { open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard opened >= 0 else { return errno == ENOENT ? .success(nil) : .failure(.current()) }
        return readAll(FileDescriptor(adopting: opened))
    }

    /// What `file` holds, up to `fileLimit` bytes; a regular file or a /proc one.
    private static func readAll(_ file: consuming FileDescriptor) -> Result<[UInt8]?, SystemError> {
        var status = stat()
        guard fstat(file.rawValue, &status) == 0 else { return .failure(.current()) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .failure(SystemError(code: EINVAL)) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < fileLimit {
            let count = chunk.withUnsafeMutableBytes { buffer in
                SystemCall.retrying { Glibc.read(file.rawValue, buffer.baseAddress, buffer.count) }
            }
            guard count >= 0 else { return .failure(.current()) }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return .success(bytes)
    }
}
