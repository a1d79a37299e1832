import TidingsBase
import TidingsSystemShims

/// What a process that starts workers does to itself at its start, before
/// its first worker: it becomes non-dumpable, so that no process of its user
/// (a worker that got out, a stray extension process) may trace it or open
/// its `/proc/PID/mem`, `environ` or descriptors. The cost: the process
/// leaves no core file.
///
/// A change to the whole process, so nothing does it as a side effect: the
/// program that hosts workers calls `apply()` itself, at its start (`tidings`
/// for the commands that start workers, the benchmark, the tests' hosts).
/// Starting a worker does not: a library user that never calls it keeps a
/// dumpable process.
package enum HostHardening {
    /// `PR_SET_DUMPABLE` of `<linux/prctl.h>`, which Swift's Glibc does not export.
    static let setDumpable: Int32 = 4

    /// Makes this process non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`); once
    /// is enough, and again changes nothing. Thrown: why the kernel refused.
    package static func apply() throws(SystemError) {
        let result = tidings_prctl(setDumpable, 0, 0, 0, 0)
        guard result == 0 else { throw SystemError(code: -result) }
    }
}
