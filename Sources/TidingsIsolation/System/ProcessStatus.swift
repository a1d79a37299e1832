import TidingsBase

/// A process's `/proc/PID/status`: its `Name:\tvalue` lines, read once.
package struct ProcessStatus: Sendable {
    private let text: String

    /// The status file at `path` (`/proc/self/status`, `/proc/PID/status`); nil when it cannot be read.
    package init?(path: String) {
        guard let bytes = try? FileSystem.readFile(path, limit: 1 << 16) else { return nil }
        self.init(text: String(decoding: bytes, as: UTF8.self))
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
}
