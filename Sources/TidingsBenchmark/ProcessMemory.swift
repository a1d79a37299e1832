import Glibc
import TidingsIsolation

/// A process's memory as the kernel counts it (`/proc/PID/status`).
struct ProcessMemory {
    /// The resident set now (VmRSS), in kilobytes.
    var resident: Int
    /// The largest the resident set has been (VmHWM), in kilobytes.
    var peak: Int

    /// Reads the memory of process `pid`.
    init(of pid: Int32) throws(BenchmarkFailure) {
        guard let status = ProcessStatus(of: "\(pid)") else { throw BenchmarkFailure("Cannot read /proc/\(pid)/status.") }
        guard let resident = status.bytes("VmRSS"), let peak = status.bytes("VmHWM") else {
            throw BenchmarkFailure("/proc/\(pid)/status gives no VmRSS or VmHWM.")
        }
        self.resident = Int(resident / 1024)
        self.peak = Int(peak / 1024)
    }

    /// The resident set once it stops falling: read every 100 ms until it
    /// has not fallen for a second (at most 10 s), as the server gives
    /// freed memory back a moment after the removals.
    static func settled(of pid: Int32) throws(BenchmarkFailure) -> ProcessMemory {
        var lowest = try ProcessMemory(of: pid)
        var steady = 0
        for _ in 0..<100 where steady < 10 {
            usleep(100_000)
            let now = try ProcessMemory(of: pid)
            if now.resident < lowest.resident {
                lowest = now
                steady = 0
            } else {
                steady += 1
            }
        }
        return try ProcessMemory(of: pid)
    }
}
