import Glibc
import TidingsBase

/// A process's memory as the kernel counts it (`/proc/PID/status`).
struct ProcessMemory {
    /// The resident set now (VmRSS), in kilobytes.
    var resident: Int
    /// The largest the resident set has been (VmHWM), in kilobytes.
    var peak: Int

    /// Reads the memory of process `pid`.
    init(of pid: Int32) throws(BenchmarkFailure) {
        let path = "/proc/\(pid)/status"
        let text: String
        do {
            text = String(decoding: try FileSystem.readFile(path, limit: 1 << 16), as: UTF8.self)
        } catch {
            throw BenchmarkFailure("Cannot read \(path): \(error.message)")
        }
        /// The kilobytes on the line `name:`.
        func kilobytes(_ name: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { Int($0.dropFirst(name.count + 1).split { $0 == " " || $0 == "\t" }.first ?? "") }
        }
        guard let resident = kilobytes("VmRSS"), let peak = kilobytes("VmHWM") else {
            throw BenchmarkFailure("\(path) gives no VmRSS or VmHWM.")
        }
        self.resident = resident
        self.peak = peak
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
