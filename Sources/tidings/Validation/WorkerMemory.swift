import TidingsBase

/// The memory of this process's workers, read from /proc: the processes
/// below this one (a worker's sandbox init and the worker) and the most each
/// has had resident (`VmHWM`).
enum WorkerMemory {
    /// The largest peak resident set of any process below this one, in bytes; 0 when none can be read.
    static func peakOfDescendants() -> UInt64 {
        var peak: UInt64 = 0
        var queue = children(of: "self")
        var seen: Set<String> = []
        while let pid = queue.popLast(), seen.count < 256 {
            guard seen.insert(pid).inserted else { continue }
            peak = max(peak, peakResident(of: pid))
            queue += children(of: pid)
        }
        return peak
    }

    /// The children of each thread of `pid` (`/proc/PID/task/TID/children`).
    private static func children(of pid: String) -> [String] {
        let tasks = (try? FileSystem.contentsOfDirectory("/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [String] in
            let text = (try? FileSystem.readFile("/proc/\(pid)/task/\(task)/children", limit: 1 << 16))
                .map { String(decoding: $0, as: UTF8.self) } ?? ""
            return text.split(separator: " ").map(String.init).filter { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        }
    }

    /// `VmHWM` of `pid`, in bytes.
    private static func peakResident(of pid: String) -> UInt64 {
        guard let bytes = try? FileSystem.readFile("/proc/\(pid)/status", limit: 1 << 16) else { return 0 }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        let kilobytes = line?.split(separator: " ").dropFirst().first.flatMap { UInt64($0) } ?? 0
        return kilobytes * 1024
    }
}
