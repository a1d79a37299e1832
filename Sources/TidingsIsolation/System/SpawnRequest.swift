import Glibc
import TidingsSystemShims

/// How to start a worker in a sandbox: the program, its descriptors, the
/// namespaces, the view of the file system and the cgroup to start in.
package struct SpawnRequest: Sendable {
    /// Namespaces a sandbox is made in.
    package struct Namespaces: OptionSet, Sendable, Hashable {
        package let rawValue: UInt32

        package init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        package static let user = Namespaces(rawValue: TIDINGS_NAMESPACE_USER)
        package static let pid = Namespaces(rawValue: TIDINGS_NAMESPACE_PID)
        package static let mount = Namespaces(rawValue: TIDINGS_NAMESPACE_MOUNT)
        package static let ipc = Namespaces(rawValue: TIDINGS_NAMESPACE_IPC)
        package static let network = Namespaces(rawValue: TIDINGS_NAMESPACE_NETWORK)
        package static let uts = Namespaces(rawValue: TIDINGS_NAMESPACE_UTS)

        /// "user, PID, mount, IPC, network, UTS".
        package var names: String {
            let all: [(Namespaces, String)] = [(.user, "user"), (.pid, "PID"), (.mount, "mount"), (.ipc, "IPC"),
                                               (.network, "network"), (.uts, "UTS")]
            return all.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
        }
    }

    /// One entry of the worker's view of the file system.
    package struct Mount: Sendable, Equatable {
        /// What the entry is.
        package enum Kind: UInt32, Sendable {
            /// `source` bound read-only (a directory or a file).
            case bind = 1
            /// The device node `source` bound (read-write).
            case device = 2
            /// A symbolic link whose text is `source`.
            case symlink = 3
            /// A new tmpfs of at most `size` bytes.
            case tmpfs = 4
            /// The new PID namespace's proc.
            case proc = 5
            /// An empty directory.
            case directory = 6
        }

        package var kind: Kind
        package var source: String
        /// The absolute path inside the view.
        package var target: String
        package var size: UInt64 = 0
        /// A missing source skips the entry.
        package var optional = false

        package init(_ kind: Kind, _ source: String, at target: String, size: UInt64 = 0, optional: Bool = false) {
            self.kind = kind
            self.source = source
            self.target = target
            self.size = size
            self.optional = optional
        }
    }

    /// The program, an absolute path that is the same inside the view.
    package var executable: String
    package var arguments: [String]
    /// `NAME=value` strings.
    package var environment: [String]
    /// Becomes the worker's descriptor 3.
    package var channel: Int32
    /// Becomes the worker's descriptors 1 and 2; -1 for /dev/null.
    package var output: Int32 = -1
    /// Becomes the worker's descriptor 4 (a directory it reaches as /proc/self/fd/4), or -1.
    package var bundleDirectory: Int32 = -1
    package var namespaces: Namespaces = []
    /// The view, with a mount namespace.
    package var mounts: [Mount] = []
    /// An existing directory the view is assembled on.
    package var scratch = "/tmp"
    /// A cgroup v2 directory to start in, or -1.
    package var cgroupDirectory: Int32 = -1
    /// The ids the worker runs as.
    package var user: uid_t
    package var group: gid_t
    package var hostName = "tidings-worker"
    /// A directory the sandbox's init removes once everything in the sandbox ended.
    package var removeWhenDone: String?
    /// The worker's `RLIMIT_NPROC`, set by its init once it has the worker's identity; 0 for none.
    package var taskLimit: UInt32 = 0

    package init(executable: String, arguments: [String], environment: [String], channel: Int32, user: uid_t,
                 group: gid_t) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.channel = channel
        self.user = user
        self.group = group
    }

    /// Calls `body` with this request as C sees it, valid during the call.
    func withCRequest<Result>(_ body: (UnsafePointer<tidings_spawn_request>) -> Result) -> Result {
        // Every string in one buffer, and pointers into it: nothing is allocated after the clone.
        var storage: [CChar] = []
        func add(_ text: String) -> Int {
            let offset = storage.count
            storage.append(contentsOf: text.utf8CString)
            return offset
        }
        let executableOffset = add(executable)
        let argumentOffsets = ([executable] + arguments).map(add)
        let environmentOffsets = environment.map(add)
        let mountOffsets = mounts.map { (add($0.source), add($0.target)) }
        let scratchOffset = add(scratch)
        let hostNameOffset = add(hostName)
        let removeOffset = removeWhenDone.map(add)
        return storage.withUnsafeMutableBufferPointer { characters in
            let base = characters.baseAddress!
            var argumentPointers: [UnsafeMutablePointer<CChar>?] = argumentOffsets.map { base + $0 } + [nil]
            var environmentPointers: [UnsafeMutablePointer<CChar>?] = environmentOffsets.map { base + $0 } + [nil]
            let cMounts = zip(mounts, mountOffsets).map { mount, offsets in
                tidings_mount(source: base + offsets.0, target: base + offsets.1,
                              kind: tidings_mount_kind(rawValue: mount.kind.rawValue), size: mount.size,
                              optional: mount.optional)
            }
            return argumentPointers.withUnsafeMutableBufferPointer { argv in
                environmentPointers.withUnsafeMutableBufferPointer { envp in
                    cMounts.withUnsafeBufferPointer { mountTable in
                        do {
                            var request = tidings_spawn_request()
                            request.struct_size = UInt32(MemoryLayout<tidings_spawn_request>.size)
                            request.executable = UnsafePointer(base + executableOffset)
                            request.arguments = UnsafePointer(argv.baseAddress!)
                            request.environment = UnsafePointer(envp.baseAddress!)
                            request.channel = channel
                            request.output = output
                            request.bundle_directory = bundleDirectory
                            request.namespaces = namespaces.rawValue
                            request.mounts = mountTable.baseAddress
                            request.mount_count = mountTable.count
                            request.scratch = UnsafePointer(base + scratchOffset)
                            request.cgroup_directory = cgroupDirectory
                            request.user = user
                            request.group = group
                            request.host_name = UnsafePointer(base + hostNameOffset)
                            request.remove_when_done = removeOffset.map { UnsafePointer(base + $0) }
                            request.task_limit = taskLimit
                            return withUnsafePointer(to: &request) { body($0) }
                        }
                    }
                }
            }
        }
    }
}
