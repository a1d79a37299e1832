// Attacks on the kernel's per-process doors and on the task limit (issue 20,
// round two), by the hostile extension (Tests/Fixtures/Extensions/Hostile.c,
// its "pid-calls" and "thread-bomb") against the real `tidings serve` of
// AttackTests' Arena, with the whole sandbox and with its fallback.
//
// Run as root, and as an unprivileged user (the build products readable by
// it, its HOME a directory of its own):
//
//     swift build --build-tests && swift test --skip-build --filter KernelAttackTests
//     setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/nobody-home TMPDIR=/tmp \
//         .build/debug/TidingsPackageTests.xctest --testing-library swift-testing --filter KernelAttackTests
import Glibc
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation

/// Each attack delivered every tenth round of a hundred healthy deliveries,
/// as `AttackTests.attackIsContained` does (the server lives, the healthy
/// extension is served 100/100, nothing is left or changed), plus checks
/// of their own.
@Suite(.serialized) struct KernelAttackTests {
    @Test(arguments: SandboxMode.allCases)
    func callsNamingTheHostAreRefused(_ mode: SandboxMode) throws {
        try AttackTests().attackIsContained(Self.pidCalls, mode)
    }

    @Test(arguments: SandboxMode.allCases)
    func aThreadBombStopsAtTheTaskLimit(_ mode: SandboxMode) throws {
        try AttackTests().attackIsContained(Self.threadBomb, mode)
    }

    /// Every pid-taking call on the host, its init, its session and what /proc shows: each
    /// refused by seccomp (EPERM, not merely failing), and the host's nice value, scheduling
    /// policy and CPU affinity are still the test's own, which it inherited.
    static let pidCalls = Attack(
        "pid-calls", issue: "setpriority, sched_setaffinity, ioprio_set, … on the host's pid (issue 20)",
        expected: { _ in .contained },
        whileServing: { arena, outcomes in
            let host = try #require(arena.server).identifier
            #expect(SchedulingState(of: host) == SchedulingState(of: 0), "the host's scheduling changed")
            for outcome in outcomes {
                let label = try #require(outcome.label, "no report: \(outcome.codes)")
                #expect(!label.contains("NOT-REFUSED"), "a call failed otherwise than by seccomp's refusal: \(label)")
                #expect(label.contains("setpriority(host \(host), 19): refused: Operation not permitted"), "\(label)")
                #expect(label.contains("sched_setaffinity(host, cpu 0): refused"), "\(label)")
                #expect(label.contains("fcntl(F_SETOWN host): refused"), "\(label)")
            }
        })

    /// Threads until one is refused: `pthread_create` answers EAGAIN and the call returns (the
    /// worker lives). With a user namespace of its own the worker never has more than 256 tasks,
    /// its init included, whatever the cgroup and the user; without one, the limit is what the
    /// `tasks` layer reports (weakened): 256 beyond what the worker's user had when it started.
    static let threadBomb = Attack(
        "thread-bomb", issue: "1,500 threads in one worker, documented 256 (issue 20)",
        expected: { _ in .contained },
        whileServing: { arena, outcomes in
            let layer = try #require(try tasksLayer(arena), "server.describe reports no tasks layer")
            var standardError = StandardError()
            var earlierPeak = 0
            for outcome in outcomes {
                let label = try #require(outcome.label, "no report: \(outcome.codes)")
                let report = try #require(BombReport(label), "unreadable report: \(label)")
                print("THREAD BOMB (\(arena.mode.rawValue), uid \(geteuid())): \(report); tasks layer \(layer.status): \(layer.detail)",
                      to: &standardError)
                #expect(report.error == "Resource temporarily unavailable", "\(label)")
                #expect(report.peak <= report.limit, "\(label)")
                switch arena.mode {
                case .full:
                    #expect(layer.status == "active", "\(layer)")
                    #expect(report.limit == TaskLimit.perWorker, "\(label)")
                    // Its init is the 256th task.
                    #expect(report.peak + 1 <= TaskLimit.perWorker, "\(label)")
                case .fallback:
                    #expect(layer.status == "weakened", "\(layer)")
                    // The limit was the user's tasks when the worker started, plus 256: no more than
                    // the user has now plus 256, give or take what ended since: other hosts' workers
                    // (256 of slack), and an earlier round's bomb whose threads, joined, were still
                    // exiting when this round's worker started (they count until the kernel reaps them).
                    let user = geteuid() == 0 ? uid_t(65534) : geteuid()
                    let now = try #require(TaskLimit.tasks(ofUser: user))
                    let bound = now + 2 * TaskLimit.perWorker + earlierPeak
                    #expect(report.limit > TaskLimit.perWorker && report.limit <= bound,
                            "\(label); uid \(user) has \(now) tasks now, an earlier round peaked at \(earlierPeak)")
                }
                earlierPeak = max(earlierPeak, report.peak)
            }
        })

    /// server.describe's `tasks` layer.
    static func tasksLayer(_ arena: Arena) throws -> (status: String, detail: String)? {
        let described = try #require(arena.client).call("server.describe")
        for entry in described["sandbox"]?.arrayValue ?? [] where entry["layer"]?.stringValue == "tasks" {
            return (entry["status"]?.stringValue ?? "", entry["detail"]?.stringValue ?? "")
        }
        return nil
    }
}

/// What the thread bomb reported: "made N, then ERROR; peak P threads; RLIMIT_NPROC L".
struct BombReport: CustomStringConvertible {
    var made: Int
    var error: String
    var peak: Int
    var limit: Int

    init?(_ label: String) {
        guard label.hasPrefix("contained: made "),
              let then = label.range(of: ", then "), let semicolon = label.range(of: "; peak ", range: then.upperBound..<label.endIndex),
              let threads = label.range(of: " threads; RLIMIT_NPROC ", range: semicolon.upperBound..<label.endIndex),
              let made = Int(label[label.index(label.startIndex, offsetBy: "contained: made ".count)..<then.lowerBound]),
              let peak = Int(label[semicolon.upperBound..<threads.lowerBound]),
              let limit = Int(label[threads.upperBound...].prefix { $0.isNumber || $0 == "-" })
        else { return nil }
        self.made = made
        error = String(label[then.upperBound..<semicolon.lowerBound])
        self.peak = peak
        self.limit = limit
    }

    var description: String { "made \(made) threads, then \(error); peak \(peak); RLIMIT_NPROC \(limit)" }
}

/// What a process's scheduling is: nice value, policy, CPU affinity (0: the test's own).
struct SchedulingState: Equatable {
    var nice: Int32
    var policy: Int32
    var affinity: String

    init(of pid: pid_t) {
        errno = 0
        nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid))
        policy = sched_getscheduler(pid)
        let status = ProcessStatus(path: pid == 0 ? "/proc/self/status" : "/proc/\(pid)/status")
        affinity = status?.fields("Cpus_allowed_list").joined(separator: " ") ?? "unknown"
    }
}
