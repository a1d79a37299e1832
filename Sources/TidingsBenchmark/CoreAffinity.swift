import Glibc
import TidingsBase

/// Pins the benchmark to one CPU, so that every in-process measurement runs
/// on one core and the processes it spawns inherit that core.
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

    /// The set holding `cpu` alone.
    static func only(_ cpu: Int) -> cpu_set_t {
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { $0[cpu / 8] = UInt8(1 << (cpu % 8)) }
        return set
    }

    /// Puts every thread of process `pid` now on the CPUs of `set` (the
    /// threads it starts later inherit their creator's); threads that end meanwhile are skipped.
    static func apply(_ set: cpu_set_t, toThreadsOf pid: pid_t) {
        guard let apply = function("sched_setaffinity"), let tasks = opendir("/proc/\(pid)/task") else { return }
        defer { closedir(tasks) }
        var set = set
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let thread = pid_t(name) else { continue }
            _ = withUnsafeMutableBytes(of: &set) { apply(thread, $0.count, $0.baseAddress) }
        }
    }

    /// Puts every thread of process `pid` and of its descendants (its
    /// workers, say) now on the CPUs of `set`.
    static func apply(_ set: cpu_set_t, toProcessTreeOf pid: pid_t) {
        apply(set, toThreadsOf: pid)
        for child in children(of: pid) { apply(set, toProcessTreeOf: child) }
    }

    /// The processes whose parent is `pid`, from /proc/PID/stat.
    private static func children(of pid: pid_t) -> [pid_t] {
        guard let processes = opendir("/proc") else { return [] }
        defer { closedir(processes) }
        var found: [pid_t] = []
        while let entry = readdir(processes) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let process = pid_t(name), let stat = try? FileSystem.readFile("/proc/\(process)/stat", limit: 4096) else { continue }
            // pid (comm) state ppid …: the name may hold spaces and parentheses, so read from the last ')'.
            let text = String(decoding: stat, as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == pid { found.append(process) }
        }
        return found
    }

    /// The C library's function `name`, looked up in the global scope (`RTLD_DEFAULT`).
    private static func function(_ name: String) -> AffinityFunction? {
        dlsym(nil, name).map { unsafeBitCast($0, to: AffinityFunction.self) }
    }
}
