import Glibc
import Synchronization
import TidingsBase

/// The cgroup of one worker: the kernel's limit on all the memory its
/// sandbox uses — shared memory, tmpfs pages and page tables included,
/// which `RLIMIT_DATA` does not count — and on how many processes and
/// threads it may have. Made before the worker starts (the sandbox starts
/// inside it), removed after it ended.
package final class WorkerCgroup: Sendable {
    /// The hierarchy the cgroup lives in.
    package enum Version: String, Sendable {
        case v1 = "cgroup v1"
        case v2 = "cgroup v2"
    }

    package let version: Version
    /// The directories made for this worker (v1: one per controller), removed by `remove()`.
    private let directories: [String]
    /// The file whose `oom_kill` count says the kernel killed inside the cgroup.
    private let eventsFile: String
    /// The limit on memory, in bytes.
    package let memoryLimit: UInt64

    fileprivate init(version: Version, directories: [String], eventsFile: String, memoryLimit: UInt64) {
        self.version = version
        self.directories = directories
        self.eventsFile = eventsFile
        self.memoryLimit = memoryLimit
    }

    /// How many processes the kernel's OOM killer killed in the cgroup.
    package var oomKills: Int {
        guard let bytes = try? FileSystem.readFile(eventsFile, limit: 4096) else { return 0 }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("oom_kill ") {
            return Int(line.dropFirst("oom_kill ".count)) ?? 0
        }
        return 0
    }

    /// Calls `body` with what the sandboxed spawn needs to start inside the
    /// cgroup: a v2 directory's descriptor (for CLONE_INTO_CGROUP), or v1
    /// `cgroup.procs` descriptors (joined by the sandbox's init).
    package func withSpawnDescriptors<Result>(_ body: (_ directory: Int32, _ procs: [Int32]) -> Result) -> Result {
        switch version {
        case .v2:
            let directory = open(directories[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { if directory >= 0 { close(directory) } }
            return body(directory, [])
        case .v1:
            let procs = directories.map { open(Path.join($0, "cgroup.procs"), O_WRONLY | O_CLOEXEC) }.filter { $0 >= 0 }
            defer { for file in procs { close(file) } }
            return body(-1, procs)
        }
    }

    /// Removes the cgroup; its processes must have ended.
    package func remove() {
        for directory in directories.reversed() { rmdir(directory) }
    }

    /// A description for the sandbox's report: "cgroup v1 memory limit 96 MiB (shared memory counted), at most 256 tasks".
    package var summary: String {
        "\(version.rawValue) memory limit \(memoryLimit >> 20) MiB, shared memory and tmpfs included; at most \(Self.taskLimit) tasks"
    }

    /// Tasks (processes and threads) a worker may have.
    package static let taskLimit = 256

    /// Makes the cgroup of a new worker, limited to `memoryLimit` bytes.
    /// - Returns: the cgroup, or why there is none (this host has no
    ///   writable memory controller), in one sentence.
    package static func make(memoryLimit: UInt64) -> Result<WorkerCgroup, CgroupUnavailable> {
        let found: Result<Hierarchy, CgroupUnavailable> = hierarchy.withLock { found in
            if let found { return found }
            let discovered = Hierarchy.discover()
            found = discovered
            return discovered
        }
        switch found {
        case .failure(let reason):
            return .failure(reason)
        case .success(let hierarchy):
            let name = "tidings-\(getpid())-\(counter.add(1, ordering: .relaxed).newValue)"
            return hierarchy.make(name: name, memoryLimit: memoryLimit)
        }
    }

    /// What this process found, once.
    private static let hierarchy = Mutex<Result<Hierarchy, CgroupUnavailable>?>(nil)
    private static let counter = Atomic<Int>(0)
}

/// Why a worker gets no cgroup: one sentence.
package struct CgroupUnavailable: Error, Sendable, Equatable {
    package var reason: String
}

/// Where this process can make cgroups for its workers.
private enum Hierarchy: Sendable {
    /// A cgroup v2 directory, delegated to this process, whose children get memory and pids limits.
    case v2(base: String)
    /// cgroup v1 directories of the memory (and pids) controllers, writable by this process.
    case v1(memory: String, pids: String?)

    /// Makes the cgroup `name` limited to `memoryLimit` bytes.
    func make(name: String, memoryLimit: UInt64) -> Result<WorkerCgroup, CgroupUnavailable> {
        switch self {
        case .v2(let base):
            let directory = Path.join(base, name)
            guard mkdir(directory, 0o755) == 0 else {
                return .failure(CgroupUnavailable(reason: "no cgroup could be made in \(base): \(SystemError.current())"))
            }
            let written = Self.write("\(memoryLimit)", to: Path.join(directory, "memory.max"))
            _ = Self.write("0", to: Path.join(directory, "memory.swap.max"))
            _ = Self.write("1", to: Path.join(directory, "memory.oom.group"))
            _ = Self.write("\(WorkerCgroup.taskLimit)", to: Path.join(directory, "pids.max"))
            guard written else {
                rmdir(directory)
                return .failure(CgroupUnavailable(reason: "the memory limit of \(directory) could not be set"))
            }
            return .success(WorkerCgroup(version: .v2, directories: [directory],
                                         eventsFile: Path.join(directory, "memory.events"), memoryLimit: memoryLimit))
        case let .v1(memory, pids):
            let directory = Path.join(memory, name)
            guard mkdir(directory, 0o755) == 0 else {
                return .failure(CgroupUnavailable(reason: "no cgroup could be made in \(memory): \(SystemError.current())"))
            }
            guard Self.write("\(memoryLimit)", to: Path.join(directory, "memory.limit_in_bytes")) else {
                rmdir(directory)
                return .failure(CgroupUnavailable(reason: "the memory limit of \(directory) could not be set"))
            }
            // Memory plus swap, where swap is accounted: swapping out is no way around the limit.
            _ = Self.write("\(memoryLimit)", to: Path.join(directory, "memory.memsw.limit_in_bytes"))
            var directories = [directory]
            if let pids {
                let processes = Path.join(pids, name)
                if mkdir(processes, 0o755) == 0 {
                    _ = Self.write("\(WorkerCgroup.taskLimit)", to: Path.join(processes, "pids.max"))
                    directories.append(processes)
                }
            }
            return .success(WorkerCgroup(version: .v1, directories: directories,
                                         eventsFile: Path.join(directory, "memory.oom_control"), memoryLimit: memoryLimit))
        }
    }

    /// Writes `text` to the control file `path`; false when it could not.
    static func write(_ text: String, to path: String) -> Bool {
        let file = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard file >= 0 else { return false }
        defer { close(file) }
        let bytes = Array(text.utf8)
        return SystemCall.retrying { Glibc.write(file, bytes, bytes.count) } == bytes.count
    }

    /// Where this process can make cgroups: cgroup v2 first, then v1.
    static func discover() -> Result<Hierarchy, CgroupUnavailable> {
        let mounts = CgroupMounts.read()
        var reasons: [String] = []
        switch v2(mounts) {
        case .success(let found): return .success(found)
        case .failure(let reason): reasons.append(reason.reason)
        }
        switch v1(mounts) {
        case .success(let found): return .success(found)
        case .failure(let reason): reasons.append(reason.reason)
        }
        return .failure(CgroupUnavailable(reason: reasons.joined(separator: "; ")))
    }

    /// A delegated cgroup v2 directory: the hierarchy's root when this
    /// process may write it (root), else this process's own cgroup when it is
    /// the only process there and may write it (a systemd unit with
    /// `Delegate=yes`): it moves itself into a leaf `supervisor` and gives
    /// the memory and pids controllers to its workers.
    private static func v2(_ mounts: CgroupMounts) -> Result<Hierarchy, CgroupUnavailable> {
        guard let mount = mounts.unified, let own = mounts.ownPath(controller: nil) else {
            return .failure(CgroupUnavailable(reason: "cgroup v2 is not mounted"))
        }
        let root = mount
        let ownDirectory = own == "/" ? mount : mount + own
        let controllers = (try? FileSystem.readFile(Path.join(ownDirectory, "cgroup.controllers"), limit: 4096))
            .map { String(decoding: $0, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init) } ?? []
        guard controllers.contains("memory") else {
            return .failure(CgroupUnavailable(reason: "the cgroup v2 hierarchy at \(mount) has no memory controller for this process"))
        }
        if own == "/" {
            guard access(mount, W_OK) == 0 else {
                return .failure(CgroupUnavailable(reason: "the cgroup v2 root \(mount) is not writable by this user"))
            }
            let base = Path.join(mount, "tidings")
            if mkdir(base, 0o755) != 0 && errno != EEXIST {
                return .failure(CgroupUnavailable(reason: "\(base) could not be made: \(SystemError.current())"))
            }
            _ = write("+memory +pids", to: Path.join(root, "cgroup.subtree_control"))
            guard write("+memory", to: Path.join(base, "cgroup.subtree_control")) else {
                return .failure(CgroupUnavailable(reason: "the memory controller cannot be given to \(base)'s children"))
            }
            _ = write("+pids", to: Path.join(base, "cgroup.subtree_control"))
            return .success(.v2(base: base))
        }
        let processes = (try? FileSystem.readFile(Path.join(ownDirectory, "cgroup.procs"), limit: 1 << 16))
            .map { String(decoding: $0, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) } } ?? []
        guard access(Path.join(ownDirectory, "cgroup.subtree_control"), W_OK) == 0,
              access(Path.join(ownDirectory, "cgroup.procs"), W_OK) == 0
        else {
            return .failure(CgroupUnavailable(
                reason: "this process's cgroup v2 (\(own)) is not delegated to it (run it in a unit with Delegate=yes, e.g. systemd-run --user -p Delegate=yes)"))
        }
        guard processes == [getpid()] else {
            return .failure(CgroupUnavailable(
                reason: "this process shares its cgroup v2 (\(own)) with \(max(0, processes.count - 1)) other processes, so it cannot give it controllers (run it in a unit of its own with Delegate=yes)"))
        }
        let supervisor = Path.join(ownDirectory, "supervisor")
        if mkdir(supervisor, 0o755) != 0 && errno != EEXIST {
            return .failure(CgroupUnavailable(reason: "\(supervisor) could not be made: \(SystemError.current())"))
        }
        guard write("\(getpid())", to: Path.join(supervisor, "cgroup.procs")),
              write("+memory", to: Path.join(ownDirectory, "cgroup.subtree_control"))
        else {
            return .failure(CgroupUnavailable(reason: "the memory controller of \(ownDirectory) cannot be delegated to workers"))
        }
        _ = write("+pids", to: Path.join(ownDirectory, "cgroup.subtree_control"))
        return .success(.v2(base: ownDirectory))
    }

    /// This process's cgroup v1 memory directory (and pids), when it may make children in it.
    private static func v1(_ mounts: CgroupMounts) -> Result<Hierarchy, CgroupUnavailable> {
        guard let memoryMount = mounts.legacy["memory"], let own = mounts.ownPath(controller: "memory") else {
            return .failure(CgroupUnavailable(reason: "no cgroup v1 memory hierarchy is mounted"))
        }
        let memory = memoryMount.directory(for: own)
        guard access(memory, W_OK) == 0 else {
            return .failure(CgroupUnavailable(reason: "the cgroup v1 memory hierarchy (\(memory)) is not writable by this user"))
        }
        let pids = mounts.legacy["pids"].flatMap { mount in mounts.ownPath(controller: "pids").map(mount.directory(for:)) }
        return .success(.v1(memory: memory, pids: pids.flatMap { access($0, W_OK) == 0 ? $0 : nil }))
    }
}

/// The cgroup hierarchies mounted here and this process's place in them,
/// from `/proc/self/mountinfo` and `/proc/self/cgroup`.
private struct CgroupMounts {
    /// A v1 hierarchy's mount: where it is, and which of its paths it shows.
    struct Legacy {
        var mountPoint: String
        var root: String

        /// The directory of hierarchy path `path`.
        func directory(for path: String) -> String {
            let relative = root == "/" ? path : (path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path)
            return relative == "/" || relative.isEmpty ? mountPoint : mountPoint + (relative.hasPrefix("/") ? "" : "/") + relative
        }
    }

    var unified: String?
    var legacy: [String: Legacy] = [:]
    /// `/proc/self/cgroup`: controllers (comma-separated, "" for v2) → path.
    var own: [(controllers: [String], path: String)] = []

    /// This process's path in the hierarchy of `controller` (nil: the v2 one).
    func ownPath(controller: String?) -> String? {
        own.first { entry in controller.map { entry.controllers.contains($0) } ?? entry.controllers.isEmpty }?.path
    }

    static func read() -> CgroupMounts {
        var found = CgroupMounts()
        if let bytes = try? FileSystem.readFile("/proc/self/mountinfo", limit: 4 << 20) {
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                let halves = line.split(separator: " - ", maxSplits: 1)
                guard halves.count == 2 else { continue }
                let left = halves[0].split(separator: " ")
                let right = halves[1].split(separator: " ")
                guard left.count >= 5, right.count >= 3 else { continue }
                let root = String(left[3]), mountPoint = String(left[4])
                if right[0] == "cgroup2" && found.unified == nil {
                    found.unified = mountPoint
                } else if right[0] == "cgroup" {
                    for option in right[2].split(separator: ",") where ["memory", "pids"].contains(String(option)) {
                        if found.legacy[String(option)] == nil {
                            found.legacy[String(option)] = Legacy(mountPoint: mountPoint, root: root)
                        }
                    }
                }
            }
        }
        if let bytes = try? FileSystem.readFile("/proc/self/cgroup", limit: 1 << 16) {
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3 else { continue }
                found.own.append((fields[1].split(separator: ",").map(String.init), String(fields[2])))
            }
        }
        return found
    }
}
