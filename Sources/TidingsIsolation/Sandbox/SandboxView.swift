import Glibc
import TidingsBase

/// What a worker may see and reach of the file system: the entries of its
/// view (a new root made of read-only binds, in a mount namespace) and the
/// Landlock rules that fence the same paths again from inside.
///
/// The worker sees the system's libraries and loader files, the Swift
/// runtime, the `tidings` executable, its own bundle (read-only, at the
/// same paths as outside), a few device nodes, a proc of its own PID
/// namespace and a private `/tmp` of limited size. It sees nothing of the
/// user's home, the host's state, cache, configuration or runtime
/// directories, or other bundles. With the network granted it also sees the
/// resolver's and TLS files of /etc.
package struct SandboxView: Sendable {
    /// The view's entries, parents first.
    package var mounts: [SpawnRequest.Mount]
    /// The same paths as Landlock rules.
    package var rules: [WorkerSandboxSettings.PathRule]

    /// Top-level directories of the system's programs and libraries, bound
    /// read-only (or, when they are links, as on merged-/usr systems, copied as links).
    static let systemDirectories = ["/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"]

    /// Files of /etc the dynamic loader and the C library read.
    static let loaderFiles = ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime"]

    /// Files of /etc name resolution and TLS read, for a worker granted the network.
    static let networkFiles = ["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf",
                               "/etc/host.conf", "/etc/services", "/etc/protocols", "/etc/ssl", "/etc/ca-certificates",
                               "/etc/pki"]

    /// Device nodes a program may expect: read and written, never executed.
    static let devices = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]

    /// The view of a worker serving `bundle` from `executable`, with the
    /// Swift runtime in `runtime`, a private `/tmp` of `scratchSize` bytes,
    /// and the network's files when `network`.
    package static func make(bundle: String, executable: String, runtime: String?, network: Bool,
                             scratchSize: UInt64) -> SandboxView {
        var view = SandboxView(mounts: [], rules: [])
        var bound: [String] = []
        for directory in systemDirectories {
            var status = stat()
            guard lstat(directory, &status) == 0 else { continue }
            if status.st_mode & S_IFMT == S_IFLNK, let text = linkText(directory) {
                view.mounts.append(.init(.symlink, text, at: directory))
            } else if status.st_mode & S_IFMT == S_IFDIR {
                view.mounts.append(.init(.bind, directory, at: directory))
                bound.append(directory)
            } else {
                continue
            }
            view.rules.append(.init(directory, .readExecute))
        }
        for file in loaderFiles + (network ? networkFiles : []) {
            var status = stat()
            guard lstat(file, &status) == 0 else { continue }
            if status.st_mode & S_IFMT == S_IFLNK, let text = linkText(file), file == "/etc/localtime" {
                view.mounts.append(.init(.symlink, text, at: file))
            } else {
                // Other links are bound as what they lead to (open_tree follows them).
                view.mounts.append(.init(.bind, file, at: file, optional: true))
            }
            view.rules.append(.init(file, .read))
        }
        for device in devices {
            view.mounts.append(.init(.device, device, at: device, optional: true))
            // /dev/zero only read: written-to shared mappings of it would be shared memory.
            view.rules.append(.init(device, device == "/dev/null" || device == "/dev/full" ? .readWriteFiles : .read))
        }
        for (name, target) in [("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                               ("stderr", "/proc/self/fd/2")] {
            view.mounts.append(.init(.symlink, target, at: "/dev/" + name))
        }
        view.mounts.append(.init(.proc, "proc", at: "/proc"))
        view.rules.append(.init("/proc/self", .read))
        view.mounts.append(.init(.tmpfs, "tmpfs", at: "/tmp", size: scratchSize))
        view.rules.append(.init("/tmp", .readWrite))
        // What lies outside the system's directories: the runtime, the executable, the bundle
        // (at their own paths; under /tmp, inside the private tmpfs, which comes first).
        var extra: [(String, WorkerSandboxSettings.PathRule.Access)] = []
        if let runtime { extra.append((runtime, .readExecute)) }
        extra.append((executable, .readExecute))
        if !bundle.isEmpty { extra.append((bundle, .read)) }
        for (path, access) in extra {
            view.rules.append(.init(path, access))
            guard !bound.contains(where: { Path.isWithin(path, $0) }) else { continue }
            view.mounts.append(.init(.bind, path, at: path))
            bound.append(path)
        }
        return view
    }

    /// The Landlock rules of a worker without a view of its own (no mount
    /// namespace): the same paths as `make`'s, on the real file system, with
    /// `scratch` as its private directory.
    package static func rulesWithoutView(bundle: String, executable: String, runtime: String?, network: Bool,
                                         scratch: String) -> [WorkerSandboxSettings.PathRule] {
        var rules = make(bundle: bundle, executable: executable, runtime: runtime, network: network, scratchSize: 0).rules
        rules.removeAll { $0.path == "/tmp" }
        rules.append(.init(scratch, .readWrite))
        // Without a PID namespace's own proc, glibc counts processors in /sys.
        rules.append(.init("/sys/devices/system/cpu", .read))
        return rules
    }

    /// The directory the Swift runtime is loaded from in this process
    /// (`libswiftCore.so`'s, from `/proc/self/maps`); nil when it is not loaded from a file.
    package static let runtimeDirectory: String? = {
        guard let bytes = try? FileSystem.readFile("/proc/self/maps", limit: 8 << 20) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/"), line.hasSuffix("/libswiftCore.so") else { continue }
            return Path.directory(of: String(line[slash...]))
        }
        return nil
    }()

    /// The text of the symbolic link at `path`.
    private static func linkText(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
