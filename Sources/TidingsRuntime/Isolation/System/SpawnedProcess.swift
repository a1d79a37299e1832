import Glibc
import Synchronization
import TidingsBase

/// A child process started with `posix_spawn` in a process group of its
/// own: it can be killed with everything it started, and reaped with what it
/// used (memory, CPU time).
///
/// Call `wait()` for every process spawned: until then an ended child stays
/// a zombie.
package final class SpawnedProcess: Sendable {
    /// The child's process id, which is also its process group's.
    package let pid: Int32

    /// How the child ended, once it is reaped. Kept under a lock so that
    /// `kill()` never signals a pid that was reaped (and may be reused).
    private let state = Mutex<Termination?>(nil)

    /// Wraps a started child.
    private init(pid: Int32) {
        self.pid = pid
    }

    /// Starts `executable` (a path; no search of `PATH`) with `arguments`
    /// (`argv[0]` is `executable`) and `environment` (`"NAME=value"`
    /// strings; nil: this process's environment).
    ///
    /// The child gets `/dev/null` as descriptor 0, this process's
    /// descriptor 2 (standard error) as its 1 and 2, and `channel` as its 3
    /// (`dup2`, so it stays open across `exec`). Every other descriptor of
    /// this process must have `FD_CLOEXEC` (open them with `O_CLOEXEC`, as
    /// `FileDescriptor` does); besides, descriptors from 4 on are closed in
    /// the child with `posix_spawn_file_actions_addclosefrom_np` when the C
    /// library has it (glibc 2.34 and later; looked up at run time, as the
    /// Glibc module does not import it).
    ///
    /// The child is the leader of a new process group (`POSIX_SPAWN_SETPGROUP`,
    /// group 0), with no signal blocked (`POSIX_SPAWN_SETSIGMASK`) and every
    /// catchable signal's action the default (`POSIX_SPAWN_SETSIGDEF`).
    /// The corresponding C function is `posix_spawn`.
    /// - Throws: the error `posix_spawn` reports, `exec`'s among them
    ///   (`ENOENT`, `EACCES`, …); `EINVAL` for a string with a NUL byte.
    package static func spawn(executable: String, arguments: [String], environment: [String]? = nil,
                              channel: borrowing FileDescriptor) throws(SystemError) -> SpawnedProcess {
        let argumentVector = [executable] + arguments
        guard !(argumentVector + (environment ?? [])).contains(where: { $0.utf8.contains(0) }) else {
            throw SystemError(code: EINVAL)
        }

        var actions = posix_spawn_file_actions_t()
        var code = posix_spawn_file_actions_init(&actions)
        guard code == 0 else { throw SystemError(code: code) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The channel first, in case it is one of 0…2 itself.
        code = posix_spawn_file_actions_adddup2(&actions, channel.rawValue, 3)
        if code == 0 { code = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        if code == 0 { code = posix_spawn_file_actions_adddup2(&actions, 2, 1) }
        if code == 0, let closeFrom = CLibrary.function(
            "posix_spawn_file_actions_addclosefrom_np",
            as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self) {
            code = closeFrom(&actions, 4)
        }
        guard code == 0 else { throw SystemError(code: code) }

        var attributes = posix_spawnattr_t()
        code = posix_spawnattr_init(&attributes)
        guard code == 0 else { throw SystemError(code: code) }
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        code = posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        if code == 0 { code = posix_spawnattr_setpgroup(&attributes, 0) }
        if code == 0 { code = posix_spawnattr_setsigmask(&attributes, &noSignals) }
        if code == 0 { code = posix_spawnattr_setsigdefault(&attributes, &allSignals) }
        guard code == 0 else { throw SystemError(code: code) }

        var pid: pid_t = 0
        code = withCStringArray(argumentVector) { argumentPointers in
            if let environment {
                return withCStringArray(environment) { environmentPointers in
                    posix_spawn(&pid, executable, &actions, &attributes, argumentPointers, environmentPointers)
                }
            }
            return posix_spawn(&pid, executable, &actions, &attributes, argumentPointers, environ)
        }
        guard code == 0 else { throw SystemError(code: code) }
        return SpawnedProcess(pid: pid)
    }

    /// Sends `SIGKILL` to the child's process group, so that the processes
    /// it started go too. Does nothing once the child is reaped.
    /// The corresponding C function is `kill`.
    package func kill() {
        state.withLock { termination in
            guard termination == nil else { return }
            _ = Glibc.kill(-pid, SIGKILL)
        }
    }

    /// Waits for the child to end and reaps it; later calls, from any
    /// thread, return the same termination.
    ///
    /// Should the child be reaped elsewhere (by a `waitpid(-1, …)` of
    /// someone else's, or with `SIGCHLD` ignored), the termination reads
    /// `exited(-1)` with no usage.
    /// The corresponding C functions are `waitid` (with `WNOWAIT`, to wait
    /// without holding the lock `kill()` takes) and `wait4`.
    package func wait() -> Termination {
        if let termination = state.withLock({ $0 }) { return termination }
        var information = siginfo_t()
        while waitid(P_PID, id_t(pid), &information, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        return state.withLock { termination in
            if let termination { return termination }
            // The child is a zombie now (or gone): wait4 does not block.
            var status: Int32 = 0
            var usage = rusage()
            var reaped: pid_t
            repeat {
                reaped = wait4(pid, &status, 0, &usage)
            } while reaped < 0 && errno == EINTR
            let ended = reaped == pid
                ? Termination(waitStatus: status, usage: usage)
                : Termination(status: .exited(-1), maxResidentBytes: 0, cpuSeconds: 0)
            termination = ended
            return ended
        }
    }

    /// True once the child is reaped (`wait()` returned).
    package var isReaped: Bool {
        state.withLock { $0 != nil }
    }

    /// Calls `body` with `strings` as a C array of C strings, ending in NULL.
    private static func withCStringArray<Result>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
    ) -> Result {
        var storage: [CChar] = []
        var offsets: [Int] = []
        for string in strings {
            offsets.append(storage.count)
            storage.append(contentsOf: string.utf8CString)
        }
        return storage.withUnsafeMutableBufferPointer { characters in
            var pointers: [UnsafeMutablePointer<CChar>?] = offsets.map { characters.baseAddress! + $0 }
            pointers.append(nil)
            return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }
}

extension SpawnedProcess {
    /// How a child ended and what it used.
    package struct Termination: Sendable, Equatable, CustomStringConvertible {
        /// How the child ended.
        package enum Status: Sendable, Equatable {
            /// It exited with this status (0…255).
            case exited(Int32)
            /// A signal ended it: `SIGKILL`, `SIGSEGV`, ….
            case signaled(Int32)
        }

        /// How the child ended.
        package var status: Status

        /// The most memory it had resident at once, in bytes (`ru_maxrss`,
        /// which Linux reports in KiB).
        package var maxResidentBytes: UInt64

        /// The CPU time it used, user and system, in seconds.
        package var cpuSeconds: Double

        /// A termination of these parts.
        package init(status: Status, maxResidentBytes: UInt64, cpuSeconds: Double) {
            self.status = status
            self.maxResidentBytes = maxResidentBytes
            self.cpuSeconds = cpuSeconds
        }

        /// The termination `wait4` reported: its status word and usage.
        init(waitStatus: Int32, usage: rusage) {
            let signal = waitStatus & 0x7f
            // WIFEXITED is a signal number of 0; WIFSIGNALED any other but 0x7f (stopped).
            status = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
            maxResidentBytes = UInt64(max(0, usage.ru_maxrss)) * 1024
            cpuSeconds = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        }

        /// "exited with status 3", "killed by SIGSEGV (segmentation fault)",
        /// "killed by signal 40".
        package var description: String {
            switch status {
            case .exited(-1):
                return "ended with its status unknown (it was reaped elsewhere)"
            case .exited(let code):
                return "exited with status \(code)"
            case .signaled(let signal):
                guard let (name, meaning) = Self.signalNames[signal] else { return "killed by signal \(signal)" }
                return "killed by \(name) (\(meaning))"
            }
        }

        /// The name and meaning of the signals a worker is likely to die of.
        private static let signalNames: [Int32: (String, String)] = [
            SIGHUP: ("SIGHUP", "hangup"),
            SIGINT: ("SIGINT", "interrupt"),
            SIGQUIT: ("SIGQUIT", "quit"),
            SIGILL: ("SIGILL", "illegal instruction"),
            SIGTRAP: ("SIGTRAP", "trace or breakpoint trap"),
            SIGABRT: ("SIGABRT", "aborted"),
            SIGBUS: ("SIGBUS", "bus error"),
            SIGFPE: ("SIGFPE", "arithmetic error"),
            SIGKILL: ("SIGKILL", "killed"),
            SIGUSR1: ("SIGUSR1", "user signal 1"),
            SIGSEGV: ("SIGSEGV", "segmentation fault"),
            SIGUSR2: ("SIGUSR2", "user signal 2"),
            SIGPIPE: ("SIGPIPE", "broken pipe"),
            SIGALRM: ("SIGALRM", "alarm clock"),
            SIGTERM: ("SIGTERM", "terminated"),
            SIGXCPU: ("SIGXCPU", "CPU time limit exceeded"),
            SIGXFSZ: ("SIGXFSZ", "file size limit exceeded"),
            SIGSYS: ("SIGSYS", "bad system call"),
        ]
    }

    /// The path of this process's executable, for starting it again; nil
    /// when it cannot be read. (If the file was replaced or removed since,
    /// the kernel appends " (deleted)"; `/proc/self/exe` itself still runs
    /// the old one.)
    /// The corresponding C function is `readlink("/proc/self/exe")`.
    package static var currentExecutable: String? {
        var capacity = Int(PATH_MAX)
        while capacity <= 1 << 16 {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let count = buffer.withUnsafeMutableBytes { bytes in
                readlink("/proc/self/exe", bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count)
            }
            guard count >= 0 else { return nil }
            if count < capacity { return String(decoding: buffer[..<count], as: UTF8.self) }
            capacity *= 2
        }
        return nil
    }
}
