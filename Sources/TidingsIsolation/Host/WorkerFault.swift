import Glibc
import TidingsBase
import TidingsRuntime

/// A fault of an extension that runs in a worker process: its class, and
/// the diagnostic that reports it.
package struct WorkerFault: Sendable, Equatable {
    /// The class of a fault, as events, logs and `tidings list` name it.
    package enum Kind: String, Sendable, CaseIterable {
        /// Killed by SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP or SIGSYS.
        case crash
        /// Ended by `abort()` (SIGABRT).
        case abort
        /// Called `exit()`, in the middle of the host's calls.
        case exit
        /// Overflowed its stack.
        case stackOverflow = "stack-overflow"
        /// Used more CPU time than its budget: in one call, between two calls, or in its life.
        case cpuTime = "cpu-time"
        /// A call did not return within the call timeout (the worker was killed).
        case hang
        /// The worker stopped reading the host's messages, or was stopped.
        case unresponsive
        /// The worker died at its memory limit: an allocation failed, or the
        /// kernel's OOM killer ended it at its cgroup's limit.
        case memory
        /// The worker sent what the protocol does not allow.
        case `protocol`
        /// A completion misused: called twice, with an undefined option,
        /// through the wrong function or naming another instance (never a
        /// late or missing one).
        case completion
        /// The worker did not start, or did not load the library again.
        case launch
        /// The extension called host functions faster than it may, for long
        /// (a call storm), changed what it shows far faster than it can be
        /// drawn, for long (a view flood, `extension.view-flood`), or flooded
        /// the channel; the host ended the worker.
        case abuse
        /// Killed by a signal the host did not send (`SIGKILL` from outside, say).
        case killed
        /// Wrote more to its scratch space than it may (`SIGXFSZ`, or the host found it over).
        case disk
        /// Kept creating attachments through the store quota's refusals
        /// (`attachment.store-abuse`); the worker keeps running, its files are refused.
        case store

        /// The diagnostic code: `worker.crash`, `worker.cpu-time`, ….
        package var code: Diagnostic.Code {
            Diagnostic.Code("worker.\(rawValue)")
        }

        /// True when the worker survives the fault (it only misused a completion).
        package var leavesWorkerRunning: Bool {
            self == .completion || self == .store
        }
    }

    /// The class.
    package var kind: Kind
    /// The report: an error with `kind.code` (or the completion's own code) and one sentence.
    package var diagnostic: Diagnostic

    /// A fault of `kind`, reported by `diagnostic`.
    package init(_ kind: Kind, _ diagnostic: Diagnostic) {
        self.kind = kind
        self.diagnostic = diagnostic
    }

    /// A fault the runtime noted (`ExtensionProvider.noteFault`): a bundle
    /// that kept passing the attachment store's quota (`store`), else a
    /// misused completion.
    package init(noted diagnostic: Diagnostic) {
        self.init(diagnostic.code == .attachmentStoreAbuse ? .store : .completion, diagnostic)
    }

    /// What a worker (or its cgroup) said as it died.
    struct LastWords: Sendable, Equatable {
        var overflowedStack = false
        var ranOutOfMemory = false
        var usedUpCPUTime = false
        /// The kernel's OOM killer killed in the worker's cgroup.
        var killedByOOM = false
    }

    /// How a worker that ended is classed: by what the host did to it first
    /// (`killedFor`: it stopped answering, broke a rule), by what it said as
    /// it died (its stack overflowed, its memory or its CPU time ran out), by
    /// the kernel's OOM killer, then by how it ended.
    /// - Parameter call: the call it was in, for the message ("did_receive_notification").
    static func classify(_ termination: SandboxedProcess.Termination, killedFor: Kind?, said: LastWords,
                         extensionName: String, call: String?) -> WorkerFault {
        let kind: Kind = if let killedFor {
            killedFor
        } else if said.overflowedStack {
            .stackOverflow
        } else if said.ranOutOfMemory || said.killedByOOM {
            .memory
        } else if said.usedUpCPUTime {
            .cpuTime
        } else {
            switch termination.status {
            case .signaled(SIGXCPU): .cpuTime
            case .signaled(SIGXFSZ): .disk
            case .signaled(SIGABRT): .abort
            case .signaled(SIGKILL): .killed
            case .signaled: .crash
            case .exited: .exit
            }
        }
        let during = call.map { " during \($0)" } ?? ""
        let how = killedFor != nil ? "was killed by the host" : said.killedByOOM ? "was killed by the kernel's OOM killer at its memory limit" : "\(termination)"
        return WorkerFault(kind, .error(kind.code, "\(extensionName) \(Self.phrase(kind)); its worker \(how)\(during)."))
    }

    /// The fault of a worker the host is ending for `kind`, before it has ended.
    static func killed(for kind: Kind, extensionName: String, call: String?) -> WorkerFault {
        let during = call.map { " during \($0)" } ?? ""
        return WorkerFault(kind, .error(kind.code, "\(extensionName) \(Self.phrase(kind)); its worker was killed by the host\(during)."))
    }

    /// What happened, after the extension's name: "crashed", "ran out of memory".
    static func phrase(_ kind: Kind) -> String {
        switch kind {
        case .crash: "crashed"
        case .abort: "aborted"
        case .exit: "exited in the middle of a call"
        case .stackOverflow: "overflowed its stack"
        case .cpuTime: "used more CPU time in one call than it may"
        case .hang: "did not return from a call in time"
        case .unresponsive: "stopped reading the host's messages"
        case .memory: "ran out of memory"
        case .protocol: "broke the worker protocol"
        case .completion: "misused a completion"
        case .launch: "could not be started again"
        case .abuse: "called host functions faster than it may, for too long"
        case .killed: "was killed from outside"
        case .disk: "wrote more to its private /tmp than it may"
        case .store: "kept creating attachments past the attachment store's quota"
        }
    }
}

extension Diagnostic.Code {
    /// The bundle is quarantined after repeated faults, until its files change.
    package static let workerQuarantined = Self("worker.quarantined")
    /// The bundle's worker is waiting to be restarted after a fault.
    package static let workerRestarting = Self("worker.restarting")
}
