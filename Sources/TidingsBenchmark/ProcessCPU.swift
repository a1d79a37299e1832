import Glibc
import TidingsBase
import TidingsIsolation

/// The CPU time a process tree has used, for the server's CPU per cycle:
/// the server's and its workers', from `/proc/PID/stat` (user and system
/// time, with that of the children it waited for), in the kernel's clock
/// ticks. A process's own count keeps the time of its threads that ended
/// (a call pool's), which a sum over the threads it has now would lose.
enum ProcessCPU {
    /// The microseconds `pid` and every process below it now have used.
    static func microseconds(ofTreeOf pid: pid_t) -> Double {
        var ticks: UInt64 = 0
        var pending = [pid]
        while let process = pending.popLast() {
            ticks += used(by: process)
            pending += ProcessStatus.children(of: String(process)).compactMap { pid_t($0) }
        }
        return Double(ticks) * 1e6 / Double(max(sysconf(Int32(_SC_CLK_TCK)), 1))
    }

    /// Fields 14 – 17 of the process's stat line (utime, stime, cutime,
    /// cstime), summed; 0 when it ended. They follow the name, which ends
    /// at the line's last ")".
    private static func used(by pid: pid_t) -> UInt64 {
        guard let bytes = try? FileSystem.readFile("/proc/\(pid)/stat", limit: 4096),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return 0 }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 14 else { return 0 }
        return fields[11...14].reduce(0) { $0 + (UInt64(String(decoding: $1, as: UTF8.self)) ?? 0) }
    }
}
