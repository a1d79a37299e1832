import Glibc
import Synchronization
import TidingsSystemShims

/// What a host that starts workers does to itself first: it becomes
/// non-dumpable, so that no process of its user (a worker that got out, a
/// stray extension process) may trace it or open its `/proc/PID/mem`,
/// `environ` or descriptors. The cost: the host leaves no core file.
enum HostHardening {
    private static let applied = Atomic<Bool>(false)

    /// Applies it, once per process.
    static func apply() {
        guard !applied.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = tidings_prctl(4, 0, 0, 0, 0)  // PR_SET_DUMPABLE, <linux/prctl.h>
    }
}
