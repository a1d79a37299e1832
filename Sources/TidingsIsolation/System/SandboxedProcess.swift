import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// A worker process in a sandbox of its own, started with
/// `tidings_spawn_sandboxed`: the sandbox's init (PID 1 of a new PID
/// namespace where the kernel allows one) started the worker and waits for
/// it; when the worker ends, init reports how and everything left in the
/// sandbox is killed with it.
///
/// The process this value names is init. Its end — seen through a pidfd,
/// not through any descriptor the worker could hand on — is the worker's
/// end. Call `wait()` for every sandbox started: until then init stays a
/// zombie.
package final class SandboxedProcess: Sendable {
    /// The sandbox's init, in this process's PID namespace.
    package let pid: Int32
    /// What becomes readable when the sandbox has ended: a pidfd of init, or
    /// on kernels without pidfds (before 5.3) a copy of the control socket.
    private let end: FileDescriptor
    /// True when `end` is a pidfd, which also signals init.
    private let endIsPidfd: Bool
    /// This process's end of init's control socket.
    private let control: FileDescriptor
    /// How the worker ended, once it is known.
    private let termination = Mutex<Termination?>(nil)

    private init(pid: Int32, end: consuming FileDescriptor, endIsPidfd: Bool, control: consuming FileDescriptor) {
        self.pid = pid
        self.end = end
        self.endIsPidfd = endIsPidfd
        self.control = control
    }

    /// Starts `request.executable` in a sandbox and waits until it runs.
    /// - Throws: the step that failed and the system's error.
    package static func spawn(_ request: SpawnRequest) throws(SpawnFailure) -> SandboxedProcess {
        var result = tidings_spawn_result()
        let code = request.withCRequest { tidings_spawn_sandboxed($0, &result) }
        guard code == 0 else {
            throw SpawnFailure(step: SpawnFailure.Step(rawValue: result.step.rawValue) ?? .setup,
                               error: SystemError(code: -result.error),
                               mountIndex: result.mount_index >= 0 ? Int(result.mount_index) : nil)
        }
        let end = result.pidfd >= 0 ? result.pidfd : fcntl(result.control, F_DUPFD_CLOEXEC, 0)
        return SandboxedProcess(pid: result.pid, end: FileDescriptor(adopting: end), endIsPidfd: result.pidfd >= 0,
                                control: FileDescriptor(adopting: result.control))
    }

    /// The descriptor that becomes readable when the sandbox has ended (init
    /// exited, with everything else in it): its pidfd, else its control socket.
    package var endDescriptor: Int32 {
        end.rawValue
    }

    /// Asks init to kill everything in the sandbox, the worker first; init
    /// then reports the worker's end and exits. When init cannot be asked
    /// any more, it is killed (with everything in its PID namespace).
    package func kill() {
        termination.withLock { ended in
            guard ended == nil else { return }
            var request: UInt8 = UInt8(ascii: "k")
            let sent = SystemCall.retrying { send(control.rawValue, &request, 1, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if sent != 1 { killInit() }
        }
    }

    /// Kills init itself (and, as init of a PID namespace, everything in
    /// it). Without a pidfd, by its pid, which cannot have been reused: init
    /// is this process's child and not yet reaped.
    private func killInit() {
        if !endIsPidfd || tidings_pidfd_send_signal(end.rawValue, SIGKILL) != 0 { _ = Glibc.kill(pid, SIGKILL) }
    }

    /// Waits for the sandbox to end and reaps init; how the worker ended.
    /// Later calls, from any thread, return the same.
    package func wait() -> Termination {
        if let known = termination.withLock({ $0 }) { return known }
        var entry = pollfd(fd: endDescriptor, events: Int16(POLLIN), revents: 0)
        // Init answers a kill within moments; one that does not is killed outright.
        while SystemCall.retrying({ poll(&entry, 1, 2_000) }) == 0 { killInit() }
        var report = tidings_sandbox_report()
        var ended: Termination?
        while true {
            let count = withUnsafeMutableBytes(of: &report) { bytes in
                SystemCall.retrying { recv(control.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT)) }
            }
            guard count == MemoryLayout<tidings_sandbox_report>.size else { break }
            if report.kind == TIDINGS_SANDBOX_ENDED.rawValue {
                ended = Termination(waitStatus: report.wait_status, maxResidentKilobytes: report.max_resident_kilobytes,
                                    cpuMicroseconds: report.user_microseconds + report.system_microseconds)
            }
        }
        var status: Int32 = 0
        _ = SystemCall.retrying { waitpid(pid, &status, 0) }
        let final = ended ?? Self.initTermination(status)
        return termination.withLock { known in
            if known == nil { known = final }
            return known!
        }
    }

    /// How the worker ended when init did not say: init was killed (and the
    /// worker with it, as everything in its namespace), or died.
    private static func initTermination(_ status: Int32) -> Termination {
        let signal = status & 0x7f
        return Termination(status: signal == 0 ? .exited(-1) : .signaled(signal), maxResidentBytes: 0, cpuSeconds: 0)
    }

    /// True once the worker's end is known (`wait()` returned).
    package var isReaped: Bool {
        termination.withLock { $0 != nil }
    }

    /// The worker's pid in this process's namespace: init's only child, as
    /// `/proc/PID/task/PID/children` lists it; nil once it ended (or where
    /// the kernel does not list children).
    package var workerPid: Int32? {
        ProcessStatus.children(of: "\(pid)", thread: "\(pid)").first.flatMap { Int32($0) }
    }
}

extension SandboxedProcess {
    /// Why a sandbox did not start.
    package struct SpawnFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The step that failed, as `tidings_spawn_step` numbers them.
        package enum Step: UInt32, Sendable {
            case setup = 1, clone, idMap
            case mountSource = 5, mount, pivot, identity, privileges, fork, exec, lost

            /// What the step does, for messages.
            var phrase: String {
                switch self {
                case .setup: "setting up"
                case .clone: "making the namespaces (clone3)"
                case .idMap: "writing the user namespace's id maps"
                case .mountSource: "opening a source of the file system view"
                case .mount: "assembling the file system view"
                case .pivot: "entering the file system view"
                case .identity: "dropping to the worker's user"
                case .privileges: "dropping privileges"
                case .fork: "starting the worker"
                case .exec: "executing the worker"
                case .lost: "setting up (the sandbox ended without a word)"
                }
            }
        }

        package var step: Step
        package var error: SystemError
        /// The entry of the view that failed, for the mount steps.
        package var mountIndex: Int?

        /// "making the namespaces (clone3) failed: operation not permitted".
        package var description: String {
            "\(step.phrase) failed: \(error)"
        }
    }
}
