import Glibc
import TidingsBase
import TidingsProtocol

/// The expanded-interface windows `tidings desktop` starts for "Show More":
/// each `tidings show IDENTIFIER --socket S --json`, a process of its own (a
/// toolkit crash ends that process only, never the front end or the
/// server), at most one per notification (by app and identifier, `NotificationKey`:
/// two apps' `dose-1` each have their own). The value owns each child: its
/// stdout pipe (read in the front end's poll loop, each JSON line relayed
/// into the front end's log) and its pid, reaped when the pipe ends (and
/// ended first, if it closed its output and went on).
package final class WindowProcesses {
    /// The exit status of a window that could not be shown (no GTK, no display): `tidings show`'s 78.
    package static let noWindowStatus: Int32 = 78

    private struct Child {
        var pid: pid_t
        var output: Int32
        var pending: [UInt8] = []
    }

    private var children: [NotificationKey: Child] = [:]
    private let executable: String
    private let socketPath: String

    /// Windows of `executable` (the front end's own by default) on the server at `socketPath`.
    package init(executable: String = "/proc/self/exe", socketPath: String) {
        self.executable = executable
        self.socketPath = socketPath
    }

    deinit {
        for child in children.values { close(child.output) }
    }

    /// Whether a window of `key` is open.
    package func isOpen(_ key: NotificationKey) -> Bool { children[key] != nil }

    /// The pipes to poll for reading.
    package var descriptors: [Int32] { children.values.map(\.output) }

    /// Starts the window of `key` (with the field of the text-input action
    /// `reply` showing, when given), unless one is open already. A key kept
    /// without its app (an older `desktop.json`) starts one without `--app`.
    /// - Returns: false when one was open.
    /// - Throws: why it could not start (no pipe, no process).
    package func open(_ key: NotificationKey, reply: String? = nil) throws(SystemError) -> Bool {
        guard children[key] == nil else { return false }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SystemError.current() }
        // Neither end leaks into another child (the window gets the write end as its stdout only).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        // Its lines for people (and GTK's warnings) are not the front end's: what matters comes as JSON, relayed.
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [executable, "show", key.identifier, "--socket", socketPath, "--json"]
            + (key.app.isEmpty ? [] : ["--app", key.app])
            + (reply.map { ["--reply", $0] } ?? [])
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(ends[1])
        guard spawned == 0 else {
            close(ends[0])
            throw SystemError(code: spawned)
        }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        children[key] = Child(pid: pid, output: ends[0])
        return true
    }

    /// What a window reported or how it ended.
    package enum Report {
        /// A JSON line of its log.
        case line(key: NotificationKey, JSON)
        /// It ended: with `status` (its exit code), or by `signal`.
        case ended(key: NotificationKey, status: Int32?, signal: Int32?)
    }

    /// Reads what the window whose pipe is `descriptor` wrote; when the pipe
    /// ends, reaps the process. Each whole line is one report.
    package func service(_ descriptor: Int32) -> [Report] {
        guard let (key, child) = children.first(where: { $0.value.output == descriptor }) else { return [] }
        var pending = child.pending
        var reports: [Report] = []
        var ended = false
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in
                SystemCall.retrying { read(descriptor, bytes.baseAddress, bytes.count) }
            }
            if count > 0 {
                pending += buffer[..<count]
                continue
            }
            ended = count == 0 || errno != EAGAIN
            break
        }
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(pending[..<newline])
            pending.removeSubrange(...newline)
            if let value = try? JSON.parse(line), value["event"] != nil { reports.append(.line(key: key, value)) }
        }
        // A line longer than any the window writes is not kept growing.
        if pending.count > 1 << 20 { pending.removeAll() }
        guard ended else {
            children[key]?.pending = pending
            return reports
        }
        close(descriptor)
        children[key] = nil
        var status: Int32 = 0
        // The pipe ends when the window does; one that closed its output and
        // runs on reports nothing more and must not hold the front end: it ends.
        if SystemCall.retrying({ waitpid(child.pid, &status, WNOHANG) }) == 0 {
            kill(child.pid, SIGKILL)
            _ = SystemCall.retrying { waitpid(child.pid, &status, 0) }
        }
        let signal = status & 0x7F
        reports.append(.ended(key: key, status: signal == 0 ? (status >> 8) & 0xFF : nil,
                              signal: signal == 0 ? nil : signal))
        return reports
    }
}
