import Glibc
import TidingsBase
import TidingsIsolation

/// Pins the benchmark to one CPU, so that every in-process measurement runs
/// on one core and the processes it spawns inherit that core; and puts a
/// process tree (a server and its workers) on one CPU while one client shares it.
///
/// Glibc declares `sched_setaffinity` only under `_GNU_SOURCE`, which Swift's
/// Glibc module does not define, so the function is found with `dlsym`.
/// Where that fails, `taskset -c 0` does the same from outside.
enum CoreAffinity {
    /// The C signature of `sched_setaffinity` and `sched_getaffinity`.
    private typealias AffinityFunction = @convention(c) (pid_t, Int, UnsafeMutableRawPointer?) -> Int32

    /// Pins the calling thread, and so every process it starts later, to `cpu`.
    /// - Throws: when the CPU is not one this process may run on, or the call fails.
    static func pin(to cpu: Int) throws(BenchmarkFailure) {
        guard let set = function("sched_setaffinity"), let get = function("sched_getaffinity") else {
            throw BenchmarkFailure("sched_setaffinity is not available; run with --no-pin under `taskset -c \(cpu)` instead.")
        }
        var allowed = cpu_set_t()
        let bitCount = MemoryLayout<cpu_set_t>.size * 8
        guard cpu >= 0, cpu < bitCount else { throw BenchmarkFailure("--cpu \(cpu) is outside 0..<\(bitCount).") }
        let isAllowed = withUnsafeMutableBytes(of: &allowed) { bytes in
            get(0, bytes.count, bytes.baseAddress) == 0 && bytes[cpu / 8] & UInt8(1 << (cpu % 8)) != 0
        }
        guard isAllowed else { throw BenchmarkFailure("CPU \(cpu) is not one this process may run on; choose another with --cpu.") }
        var only = cpu_set_t()
        let status = withUnsafeMutableBytes(of: &only) { bytes in
            bytes[cpu / 8] = UInt8(1 << (cpu % 8))
            return set(0, bytes.count, bytes.baseAddress)
        }
        guard status == 0 else {
            throw BenchmarkFailure("sched_setaffinity(CPU \(cpu)) failed: \(String(cString: strerror(errno))).")
        }
    }

    /// The calling thread's CPUs now; nil when they cannot be read.
    static func current() -> cpu_set_t? {
        guard let get = function("sched_getaffinity") else { return nil }
        var set = cpu_set_t()
        let status = withUnsafeMutableBytes(of: &set) { get(0, $0.count, $0.baseAddress) }
        return status == 0 ? set : nil
    }

    /// Puts the calling thread back on the CPUs of `set`.
    static func restore(_ set: cpu_set_t) {
        guard let apply = function("sched_setaffinity") else { return }
        var set = set
        _ = withUnsafeMutableBytes(of: &set) { apply(0, $0.count, $0.baseAddress) }
    }

    /// Puts every thread of process `pid` and of its descendants (its
    /// workers, say) on `cpu` alone, until `undo` is called on what it returns.
    static func pin(processTreeOf pid: pid_t, to cpu: Int) -> TreePin {
        let previous = current()
        var only = cpu_set_t()
        withUnsafeMutableBytes(of: &only) { $0[cpu / 8] = UInt8(1 << (cpu % 8)) }
        apply(only, toProcessTreeOf: pid)
        return TreePin(pid: pid, previous: previous)
    }

    /// A process tree put on one CPU by `pin(processTreeOf:to:)`.
    struct TreePin {
        let pid: pid_t
        /// The CPUs of the thread that pinned it.
        let previous: cpu_set_t?

        /// Puts the tree back on the CPUs of the thread that pinned it.
        func undo() {
            if let previous { CoreAffinity.apply(previous, toProcessTreeOf: pid) }
        }
    }

    /// Puts every thread of process `pid` and of its descendants now on the
    /// CPUs of `set` (threads started later inherit their creator's);
    /// threads and processes that end meanwhile are skipped.
    private static func apply(_ set: cpu_set_t, toProcessTreeOf pid: pid_t) {
        guard let apply = function("sched_setaffinity") else { return }
        var set = set
        for thread in (try? FileSystem.contentsOfDirectory("/proc/\(pid)/task"))?.compactMap({ pid_t($0) }) ?? [] {
            _ = withUnsafeMutableBytes(of: &set) { apply(thread, $0.count, $0.baseAddress) }
        }
        for child in ProcessStatus.children(of: String(pid)).compactMap({ pid_t($0) }) {
            self.apply(set, toProcessTreeOf: child)
        }
    }

    /// The C library's function `name`, looked up in the global scope (`RTLD_DEFAULT`).
    private static func function(_ name: String) -> AffinityFunction? {
        dlsym(nil, name).map { unsafeBitCast($0, to: AffinityFunction.self) }
    }
}
