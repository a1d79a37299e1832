import Glibc
import Synchronization
import TidingsBase

/// The cgroup a worker starts in: the kernel's limit on all the memory its
/// sandbox uses — shared memory, tmpfs pages and page tables included,
/// which `RLIMIT_DATA` does not count — and on how many tasks it may have.
///
/// With cgroup v2 each worker has one of its own, made before it starts
/// (the sandbox starts inside it, `CLONE_INTO_CGROUP`) and removed after it
/// ended. With cgroup v1, which can only move a process in at the price of
/// an RCU grace period per move, a host's workers share one cgroup, entered
/// once by the thread that starts them (`CgroupThread`), limited to
/// `sharedWorkers` workers' worth: together they cannot exhaust the machine,
/// and each is held to its own limit by `RLIMIT_DATA` and the seccomp filter.
package final class WorkerCgroup: Sendable {
    /// The hierarchy the cgroup lives in.
    package enum Version: String, Sendable {
        case v1 = "cgroup v1"
        case v2 = "cgroup v2"
    }

    package let version: Version
    /// The worker's own directory (v2), removed by `remove()`; nil for a shared one (v1).
    private let directory: String?
    /// The file whose `oom_kill` count says the kernel killed inside the cgroup.
    private let eventsFile: String
    /// The limit on memory, in bytes.
    package let memoryLimit: UInt64
    /// The thread that starts workers inside a shared cgroup (v1).
    private let thread: CgroupThread?
    /// The `oom_kill` count when the worker started.
    private let oomKillsAtStart: Int
    /// The cgroup's `pids.max`: the worker's own (v2), or all of this host's workers' (v1); nil when it has none.
    package let taskLimit: Int?

    fileprivate init(version: Version, directory: String?, eventsFile: String, memoryLimit: UInt64,
                     thread: CgroupThread?, taskLimit: Int?) {
        self.version = version
        self.taskLimit = taskLimit
        self.directory = directory
        self.eventsFile = eventsFile
        self.memoryLimit = memoryLimit
        self.thread = thread
        oomKillsAtStart = Self.oomKills(in: eventsFile)
    }

    /// True when the kernel's OOM killer killed in the cgroup since the worker started.
    package var oomKilledSinceStart: Bool {
        Self.oomKills(in: eventsFile) > oomKillsAtStart
    }

    /// The `oom_kill` count of the events file at `path`.
    private static func oomKills(in path: String) -> Int {
        guard let bytes = try? FileSystem.readFile(path, limit: 4096) else { return 0 }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("oom_kill ") {
            return Int(line.dropFirst("oom_kill ".count)) ?? 0
        }
        return 0
    }

    /// Starts a sandbox inside the cgroup with `spawn`, which is given the
    /// descriptor of a v2 directory for CLONE_INTO_CGROUP (-1 for v1, whose
    /// sandbox is started on the cgroup's own thread instead).
    package func start<Result: Sendable>(_ spawn: @escaping @Sendable (_ directory: Int32) -> Result) -> Result {
        if let thread { return thread.run { spawn(-1) } }
        let descriptor = directory.map { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1
        defer { if descriptor >= 0 { close(descriptor) } }
        return spawn(descriptor)
    }

    /// Removes the worker's own cgroup once its processes have ended (nothing for a shared one).
    package func remove() {
        if let directory { rmdir(directory) }
    }

    /// A description for the sandbox's report.
    package var summary: String {
        switch version {
        case .v2:
            "cgroup v2 memory limit \(memoryLimit >> 20) MiB, shared memory and tmpfs included"
        case .v1:
            "cgroup v1 memory limit \(memoryLimit >> 20) MiB for all of this host's workers together (shared memory and tmpfs included); each worker on its own by RLIMIT_DATA"
        }
    }
    /// How many workers' worth a shared (v1) cgroup holds.
    package static let sharedWorkers: UInt64 = 8

    /// The cgroup a new worker starts in, limited to `memoryLimit` bytes
    /// (its own, or `sharedWorkers` times that shared).
    /// - Returns: the cgroup, or why there is none (this host has no
    ///   writable memory controller), in one sentence.
    package static func make(memoryLimit: UInt64) -> Result<WorkerCgroup, CgroupUnavailable> {
        let found: Result<Hierarchy, CgroupUnavailable> = hierarchy.withLock { found in
            if let found { return found }
            let discovered = Hierarchy.discover(memoryLimit: memoryLimit)
            found = discovered
            return discovered
        }
        switch found {
        case .failure(let reason):
            return .failure(reason)
        case .success(let hierarchy):
            return hierarchy.make(name: "tidings-\(getpid())-\(counter.add(1, ordering: .relaxed).newValue)",
                                  memoryLimit: memoryLimit)
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
    /// This host's shared cgroup v1, with its memory-limit file, its thread and its `pids.max` (nil without one).
    case v1(memory: String, limit: UInt64, thread: CgroupThread, tasks: Int?)

    /// The cgroup of a new worker named `name`, limited to `memoryLimit` bytes.
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
            let tasks = Self.write("\(TaskLimit.perWorker)", to: Path.join(directory, "pids.max"))
            guard written else {
                rmdir(directory)
                return .failure(CgroupUnavailable(reason: "the memory limit of \(directory) could not be set"))
            }
            return .success(WorkerCgroup(version: .v2, directory: directory,
                                         eventsFile: Path.join(directory, "memory.events"), memoryLimit: memoryLimit,
                                         thread: nil, taskLimit: tasks ? TaskLimit.perWorker : nil))
        case let .v1(memory, limit, thread, tasks):
            return .success(WorkerCgroup(version: .v1, directory: nil, eventsFile: Path.join(memory, "memory.oom_control"),
                                         memoryLimit: limit, thread: thread, taskLimit: tasks))
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

    /// Where this process can make cgroups: cgroup v2 first, then v1 (whose
    /// shared cgroup holds `WorkerCgroup.sharedWorkers` workers of `memoryLimit` bytes).
    static func discover(memoryLimit: UInt64) -> Result<Hierarchy, CgroupUnavailable> {
        let mounts = CgroupMounts.read()
        var reasons: [String] = []
        switch v2(mounts) {
        case .success(let found): return .success(found)
        case .failure(let reason): reasons.append(reason.reason)
        }
        switch v1(mounts, memoryLimit: memoryLimit) {
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
            removeStale(in: base)
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
        removeStale(in: ownDirectory)
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

    /// This host's shared cgroup v1 (memory, and pids where mounted), made
    /// in this process's own and entered by the thread that starts workers.
    private static func v1(_ mounts: CgroupMounts, memoryLimit: UInt64) -> Result<Hierarchy, CgroupUnavailable> {
        guard let memoryMount = mounts.legacy["memory"], let own = mounts.ownPath(controller: "memory") else {
            return .failure(CgroupUnavailable(reason: "no cgroup v1 memory hierarchy is mounted"))
        }
        let base = memoryMount.directory(for: own)
        guard access(base, W_OK) == 0 else {
            return .failure(CgroupUnavailable(reason: "the cgroup v1 memory hierarchy (\(base)) is not writable by this user"))
        }
        removeStale(in: base)
        let name = "tidings-\(getpid())"
        let limit = memoryLimit * WorkerCgroup.sharedWorkers
        let memory = Path.join(base, name)
        guard mkdir(memory, 0o755) == 0 || errno == EEXIST,
              write("\(limit)", to: Path.join(memory, "memory.limit_in_bytes"))
        else {
            return .failure(CgroupUnavailable(reason: "no cgroup v1 with a memory limit could be made in \(base): \(SystemError.current())"))
        }
        // Memory plus swap, where swap is accounted: swapping out is no way around the limit.
        _ = write("\(limit)", to: Path.join(memory, "memory.memsw.limit_in_bytes"))
        var tasks = [Path.join(memory, "tasks")]
        var taskLimit: Int?
        if let pidsMount = mounts.legacy["pids"], let ownPids = mounts.ownPath(controller: "pids") {
            let pidsBase = pidsMount.directory(for: ownPids)
            removeStale(in: pidsBase)
            let pids = Path.join(pidsBase, name)
            if access(pidsBase, W_OK) == 0, mkdir(pids, 0o755) == 0 || errno == EEXIST,
               write("\(TaskLimit.perWorker * Int(WorkerCgroup.sharedWorkers))", to: Path.join(pids, "pids.max")) {
                tasks.append(Path.join(pids, "tasks"))
                taskLimit = TaskLimit.perWorker * Int(WorkerCgroup.sharedWorkers)
            }
        }
        do throws(SystemError) {
            return .success(.v1(memory: memory, limit: limit, thread: try CgroupThread(joining: tasks), tasks: taskLimit))
        } catch {
            rmdir(memory)
            return .failure(CgroupUnavailable(reason: "no thread could enter the cgroup v1 \(memory): \(error)"))
        }
    }

    /// Removes the cgroups of hosts that are gone (`tidings-PID…` whose PID
    /// runs no more): emptied by the kernel, they would stay forever.
    private static func removeStale(in base: String) {
        guard let names = try? FileSystem.contentsOfDirectory(base) else { return }
        for name in names where name.hasPrefix("tidings-") {
            guard let pid = Int32(name.dropFirst("tidings-".count).prefix { $0.isNumber }), pid != getpid(),
                  kill(pid, 0) != 0 && errno == ESRCH
            else { continue }
            let directory = Path.join(base, name)
            if let children = try? FileSystem.contentsOfDirectory(directory) {
                for child in children where child.hasPrefix("tidings-") { rmdir(Path.join(directory, child)) }
            }
            rmdir(directory)
        }
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
