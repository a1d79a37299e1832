import Glibc
import TidingsBase

/// How many tasks (processes and threads) a worker may have, and what holds
/// it to that in each mode.
///
/// The sandbox's init sets the worker's `RLIMIT_NPROC` (`SpawnRequest.taskLimit`),
/// which the kernel counts per user namespace and user since Linux 5.14
/// (`is_rlimit_overlimit` in kernel/ucount.c, checked by `copy_process`;
/// only the initial user, `CAP_SYS_RESOURCE` or `CAP_SYS_ADMIN` in the
/// initial namespace pass it, and a worker has none of them):
/// - in a user namespace of its own, the count is the sandbox's alone —
///   init and the worker's threads — whatever its cgroup and its user;
/// - without one, the count is every task of the worker's user on the
///   machine: the limit is what that user had when the worker started plus
///   `perWorker`, which bounds the worker only while the user's other
///   processes hold still (reported weakened); a cgroup v2 of its own
///   (`pids.max`) holds it exactly.
/// A thread beyond the limit is refused (`pthread_create` answers `EAGAIN`):
/// the worker lives on.
package enum TaskLimit {
    /// Tasks a worker may have, its sandbox's init included.
    package static let perWorker = 256

    /// The `RLIMIT_NPROC` a worker's init sets: `perWorker` in a user
    /// namespace of its own, else `perWorker` beyond the tasks `user` has
    /// now (nil when they could not be counted: then none is set).
    static func resourceLimit(userNamespace: Bool, user: uid_t) -> (limit: UInt32, counted: Int?) {
        if userNamespace { return (UInt32(perWorker), nil) }
        guard let counted = tasks(ofUser: user) else { return (0, nil) }
        return (UInt32(clamping: counted + perWorker), counted)
    }

    /// The tasks whose real user is `user` now: the `Threads` of every
    /// `/proc/PID/status` whose first `Uid` is `user`. A host sees all of
    /// them: its own user's, or (root) everyone's. Nil when `/proc` cannot be read.
    package static func tasks(ofUser user: uid_t) -> Int? {
        guard let pids = ProcessStatus.processes() else { return nil }
        var count = 0
        for pid in pids {
            guard let status = ProcessStatus(of: pid),
                  status.numbers("Uid").first == UInt64(user)
            else { continue }
            count += Int(status.numbers("Threads").first ?? 1)
        }
        return count
    }

    /// The `tasks` layer of a worker started in a user namespace of its own
    /// (`userNamespace`) or not, in `cgroup`, whose user is `user`, who had
    /// `counted` tasks when it started (without a user namespace).
    static func layer(userNamespace: Bool, cgroup: WorkerCgroup?, user: uid_t, counted: Int?) -> SandboxLayer {
        let cgroupTasks = cgroup?.taskLimit
        let ownCgroup = cgroup?.version == .v2 ? cgroupTasks : nil
        let shared = cgroup?.version == .v1 ? cgroupTasks.map { "; with this host's other workers at most \($0) (cgroup v1 pids.max)" } ?? "" : ""
        if userNamespace {
            return SandboxLayer("tasks", .active,
                                "at most \(perWorker) tasks, its init included: RLIMIT_NPROC, counted in a user namespace of its own\(ownCgroup.map { "; its cgroup v2's pids.max of \($0) too" } ?? "")\(shared)")
        }
        if let ownCgroup {
            return SandboxLayer("tasks", .active, "at most \(ownCgroup) tasks: its cgroup v2's pids.max")
        }
        guard let counted else {
            return SandboxLayer("tasks", .missing,
                                "no user namespace and no cgroup of its own, and /proc could not be read to set RLIMIT_NPROC\(shared)")
        }
        return SandboxLayer("tasks", .weakened,
                            "no user namespace: RLIMIT_NPROC counts every task of uid \(user) on the machine, so at most \(perWorker) tasks beyond the \(counted) uid \(user) had when the worker started, fewer as its other processes start more\(shared)")
    }
}
