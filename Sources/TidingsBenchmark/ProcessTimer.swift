import Glibc
import TidingsBase

/// Runs a program to its end and measures the wall time from `posix_spawn`
/// to `waitpid` on the monotonic clock: start-up, the work, and exit.
enum ProcessTimer {
    /// How one run went.
    struct Run {
        /// Wall time in nanoseconds.
        var nanoseconds: UInt64
        /// The exit status; nil when a signal ended the process.
        var exitStatus: Int32?
    }

    /// Runs `program` with `arguments` and `environment` (`NAME=value`
    /// strings), its standard output and error both going to the file
    /// `output` (such as /dev/null).
    static func run(_ program: String, _ arguments: [String], output: String,
                    environment: [String]) throws(BenchmarkFailure) -> Run {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let result: Result<Run, BenchmarkFailure> = withUnsafePointer(to: &actions) { actions in
            withCStringArray([program] + arguments) { argv in
                withCStringArray(environment) { envp in
                    var pid: pid_t = 0
                    let start = MonotonicClock.now()
                    let spawned = posix_spawn(&pid, program, actions, nil, argv, envp)
                    guard spawned == 0 else {
                        return .failure(BenchmarkFailure("Cannot start \(program): \(String(cString: strerror(spawned)))."))
                    }
                    var status: Int32 = 0
                    guard SystemCall.retrying({ waitpid(pid, &status, 0) }) >= 0 else {
                        return .failure(BenchmarkFailure("waitpid failed: \(FileSystem.systemReason())."))
                    }
                    let end = MonotonicClock.now()
                    // WIFEXITED and WEXITSTATUS, which Swift does not import.
                    let exited = status & 0x7F == 0
                    return .success(Run(nanoseconds: end - start, exitStatus: exited ? (status >> 8) & 0xFF : nil))
                }
            }
        }
        return try result.get()
    }

    /// The benchmark's own environment with the variables `overrides` names
    /// set to its values, as `NAME=value` strings.
    static func environment(overriding overrides: [String: String]) -> [String] {
        var entries: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if overrides[name] == nil { entries.append(text) }
            entry += 1
        }
        return entries + overrides.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// Calls `body` with `strings` as a NULL-terminated array of C strings (an `argv`).
    static func withCStringArray<Result>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
    ) -> Result {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { for copy in copies { free(copy) } }
        return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
