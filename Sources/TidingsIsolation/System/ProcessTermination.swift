import Glibc

extension SandboxedProcess {
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

        /// The termination a wait status word and the usage in microseconds describe.
        init(waitStatus: Int32, maxResidentKilobytes: Int64, cpuMicroseconds: Int64) {
            let signal = waitStatus & 0x7f
            // WIFEXITED is a signal number of 0; WIFSIGNALED any other but 0x7f (stopped).
            status = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
            maxResidentBytes = UInt64(max(0, maxResidentKilobytes)) * 1024
            cpuSeconds = Double(max(0, cpuMicroseconds)) / 1e6
        }

        /// "exited with status 3", "killed by SIGSEGV (segmentation fault)",
        /// "killed by signal 40".
        package var description: String {
            switch status {
            case .exited(-1):
                return "ended without a report of how (its sandbox was torn down)"
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
