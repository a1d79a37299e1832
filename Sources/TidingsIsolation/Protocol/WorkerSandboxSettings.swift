/// What a worker does to itself before it loads its extension, as the host
/// asks in `hello`: the layers only a process can put on itself (Landlock,
/// seccomp, limits). The namespaces, the view of the file system and the
/// cgroup are the host's doing, before the worker runs.
package struct WorkerSandboxSettings: Sendable, Equatable {
    /// A Landlock rule: a path and what it grants beneath it.
    package struct PathRule: Sendable, Equatable {
        /// What a rule grants.
        package enum Access: UInt8, Sendable {
            /// Read files and list directories.
            case read = 1
            /// Read, and execute.
            case readExecute = 2
            /// Everything: a private scratch directory.
            case readWrite = 3
            /// Read and write existing files (device nodes such as /dev/null).
            case readWriteFiles = 4
        }

        package var path: String
        package var access: Access

        package init(_ path: String, _ access: Access) {
            self.path = path
            self.access = access
        }
    }

    /// The only paths the extension may reach; empty for no Landlock domain.
    package var paths: [PathRule] = []
    /// The seccomp filter.
    package var seccomp = true
    /// TCP and AF_INET sockets (the bundle's policy grants the network).
    package var allowNetwork = false
    /// Bytes the extension may allocate beyond what the worker uses once started; 0 for no limit.
    package var memoryLimit: UInt64 = 0
    /// Seconds of CPU time the whole process may use during one call, and
    /// between two calls; 0 for no limit.
    package var cpuTimePerCall = 0.0
    /// Seconds of CPU time the process may use in its life (`RLIMIT_CPU`); 0 for no limit.
    package var cpuTimeTotal = 0.0
    /// The private writable directory (`TMPDIR`), as the worker sees it.
    package var scratch = "/tmp"
    /// Bytes the worker may write to one file (`RLIMIT_FSIZE`): its scratch space; 0 for no limit.
    package var scratchSize: UInt64 = 0

    package init() {}
}
