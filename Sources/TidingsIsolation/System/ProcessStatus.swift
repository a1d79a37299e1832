import Glibc
import TidingsBase

/// A process's `/proc/PID/status`: its `Name:\tvalue` lines, read once.
///
/// The one reader of `/proc` for processes in the tree: a process's status
/// (threads, user, memory, state) and the processes below one (`children`,
/// `peakResidentOfDescendants`), for the host that watches its workers, a
/// worker that sets its own limits, `tidings validate` and the benchmark.
package struct ProcessStatus: Sendable {
    private let text: String

    /// The status file at `path` (`/proc/self/status`, `/proc/PID/status`); nil when it cannot be read.
    package init?(path: String) {
        guard let bytes = try? FileSystem.readFile(path, limit: 1 << 16) else { return nil }
        self.init(text: String(decoding: bytes, as: UTF8.self))
    }

    /// The status of process `pid` ("self" for this one); nil when it cannot be read (it ended).
    package init?(of pid: String) {
        self.init(path: "/proc/\(pid)/status")
    }

    /// A status text as the kernel writes it.
    package init(text: String) {
        self.text = text
    }

    /// The fields of line `name` (`Threads`, `Uid`, `VmData`: "123", "kB"), or none when there is no such line.
    package func fields(_ name: String) -> [Substring] {
        let prefix = name + ":"
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            return line.dropFirst(prefix.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
        }
        return []
    }

    /// The fields of line `name` that are numbers, in order.
    package func numbers(_ name: String) -> [UInt64] {
        fields(name).compactMap { UInt64($0) }
    }

    /// The amount of line `name` (`VmData`, `VmHWM`, `VmRSS`: "123 kB") in
    /// bytes; nil when there is no such line, it is not a number of kB, or it
    /// does not fit.
    package func bytes(_ name: String) -> UInt64? {
        let fields = fields(name)
        guard fields.count == 2, fields[1] == "kB", let kilobytes = UInt64(fields[0]) else { return nil }
        let (bytes, overflow) = kilobytes.multipliedReportingOverflow(by: 1024)
        return overflow ? nil : bytes
    }

    /// True when the process is stopped (`State` `T`, or `t` under a tracer): it runs nothing.
    package var isStopped: Bool {
        fields("State").first.map { $0 == "T" || $0 == "t" } ?? false
    }

    /// The CPU time process `pid` has used, user and system, all its
    /// threads (`/proc/PID/stat`'s utime and stime), in seconds; nil when it
    /// cannot be read (it ended).
    package static func cpuSeconds(of pid: String) -> Double? {
        guard let bytes = try? FileSystem.readFile("/proc/\(pid)/stat", limit: 1 << 12),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // After the command's name (which may hold spaces and parentheses): state, ppid, …; utime and stime are the 12th and 13th.
        let fields = String(decoding: bytes[(close + 1)...], as: UTF8.self).split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
    }

    // MARK: Processes

    /// The pids `/proc` lists: every process this one may see; nil when `/proc` cannot be read.
    package static func processes() -> [String]? {
        guard let names = try? FileSystem.contentsOfDirectory("/proc") else { return nil }
        return names.filter { $0.first?.isNumber == true }
    }

    /// The children of thread `thread` of process `pid` (`/proc/PID/task/TID/children`,
    /// which lists them only where the kernel has it); none when it cannot be read.
    package static func children(of pid: String, thread: String) -> [String] {
        guard let bytes = try? FileSystem.readFile("/proc/\(pid)/task/\(thread)/children", limit: 1 << 16) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: " ").map(String.init)
            .filter { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }

    /// The children of every thread of process `pid` ("self" for this one).
    package static func children(of pid: String) -> [String] {
        let threads = (try? FileSystem.contentsOfDirectory("/proc/\(pid)/task")) ?? []
        return threads.flatMap { children(of: pid, thread: $0) }
    }

    /// The largest peak resident set (`VmHWM`) of any process below this one
    /// (a worker's sandbox init and the worker), in bytes; 0 when none can be read.
    package static func peakResidentOfDescendants() -> UInt64 {
        var peak: UInt64 = 0
        var queue = children(of: "self")
        var seen: Set<String> = []
        while let pid = queue.popLast(), seen.count < 256 {
            guard seen.insert(pid).inserted else { continue }
            peak = max(peak, ProcessStatus(of: pid)?.bytes("VmHWM") ?? 0)
            queue += children(of: pid)
        }
        return peak
    }
}
