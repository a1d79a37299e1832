// Tests that attack: a hostile extension (Tests/Fixtures/Extensions/Hostile.c)
// served by the real `tidings serve`, beside a healthy extension of another app.
//
// Run as root (the host is root, its workers run as nobody, with a cgroup):
//
//     swift build --build-tests && swift test --skip-build --filter AttackTests
//
// and as an unprivileged user (the workers run as that user, without a
// cgroup; the build products must be readable by it, /tmp writable):
//
//     setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/nobody-home \
//         .build/debug/TidingsPackageTests.xctest --testing-library swift-testing --filter AttackTests
//
// Every attack runs twice: with the whole sandbox, and with the fallback
// (config.json {"sandbox": {"namespaces": false, "cgroup": false}}: no
// namespaces, so no view of its own; Landlock, seccomp and the sandbox's init
// as subreaper). A layer server.describe reports missing or weakened is
// printed as one loud line on standard error, and the attack is judged by
// what that layer's fallback documents. Each case also prints one line
// "ATTACK name (mode, uid): …" with what its deliveries came to (the labels'
// verdicts, the faults recorded), passed or not.
import Foundation
import Glibc
import ServerTestSupport
import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsCrypto
import TidingsIsolation

/// Each attack of the security issue ("Tests that attack"), and a few more,
/// delivered every tenth round of a hundred deliveries of a healthy
/// extension of another app. After each: the server lives and answers, the
/// healthy extension was served 100 times out of 100, the attack was refused
/// or contained (its fault of the right class, and the quarantine after
/// three), no process is left once the server stopped, and nothing outside
/// the sandbox changed.
///
/// Serialized: the attacks burn CPU and memory, and CPU budgets are measured
/// in CPU time, which parallel attacks on two cores would stretch.
@Suite(.serialized) struct AttackTests {
    @Test(arguments: Attack.all.filter { !$0.dependsOnTheWorkersOwnUse }, SandboxMode.allCases)
    func attackIsContained(_ attack: Attack, _ mode: SandboxMode) throws {
        try Self.contain(attack, mode)
    }

    /// Delivers `attack` among a hundred healthy deliveries in `mode` and
    /// checks what every attack must come to (see the suite's summary), and
    /// the attack's own checks. Shared with the suites of other fixtures
    /// (`ChannelAttackTests`, `StoreAttackTests`).
    static func contain(_ attack: Attack, _ mode: SandboxMode) throws {
        let arena = try Arena(mode: mode, service: attack.service, fixture: attack.fixture, limits: attack.limits)
        defer { arena.cleanUp() }
        try arena.start()
        attack.beforeRounds(arena)
        let layers = try arena.sandboxLayers()
        let expected = attack.expected(layers)
        let parameters = arena.parameters(for: attack)
        var outcomes: [AttackOutcome] = []
        var healthyServed = 0
        var faultsSeen = 0
        for round in 0..<Arena.rounds {
            if try arena.deliverHealthy(round) { healthyServed += 1 }
            guard round % 10 == 5 else { continue }
            let outcome = try arena.deliverAttack(attack, round: round, parameters: parameters)
            outcomes.append(outcome)
            try attack.afterEachDelivery(arena, outcome)
            arena.noteDescendants()
            // A fault after the call (a thread left spinning) is awaited before the next attack.
            if case .fault = expected, outcome.reachedWorker {
                faultsSeen += 1
                #expect(arena.waitForFaults(faultsSeen, identifier: attack.bundleIdentifier), "\(attack.name): no fault came after attack \(outcomes.count)")
            }
        }
        try attack.whileServing(arena, outcomes)

        // The server lives and answers; the healthy extension was served every time.
        #expect(arena.server?.isRunning == true, "the server died: \(arena.log)")
        #expect((try? arena.client?.call("server.describe"))??["name"] != nil, "the server does not answer")
        #expect(healthyServed == Arena.rounds, "the healthy extension was served \(healthyServed) times of \(Arena.rounds)")

        // Refused or contained, never leaked; faults of the right class, and the quarantine.
        arena.expectContained(outcomes, as: expected, attack: attack)
        arena.summarize(attack, outcomes, expected: expected)

        // Nothing is left once the server stops; nothing outside the sandbox changed.
        try arena.stopServer()
        arena.expectNothingLeft()
        arena.expectNothingChanged()
        try attack.afterServing(arena, outcomes)
    }

    /// The attacks whose outcome depends on what the worker itself uses
    /// beside the extension, as `attackIsContained`. Not under a sanitizer,
    /// whose runtime in the worker changes that: its memory counts against
    /// the worker's limit (a call storm then ends as a memory fault, not as
    /// abuse; the service extension's attachment runs out of memory; the
    /// thread `cpu-spin-thread` would leave spinning is never started, its
    /// 8 MiB stack beyond what the runtime left of the data limit — see the
    /// "Sanitizers and fuzzing" in Docs/contributing/testing.md).
    @Test(.disabled(if: Sanitizer.current != nil,
                    "a sanitizer's runtime in the worker uses the memory and CPU time these attacks are judged by"),
          arguments: Attack.all.filter(\.dependsOnTheWorkersOwnUse), SandboxMode.allCases)
    func attackOnTheWorkersLimitsIsContained(_ attack: Attack, _ mode: SandboxMode) throws {
        try Self.contain(attack, mode)
    }

    /// A fault quarantine is kept by content: an attacker who touches its
    /// library's and manifest's modification times (here the test does it
    /// for the attacker, who may or may not manage it from inside the
    /// sandbox) lifts nothing, in this host or in the next; new content does.
    @Test(arguments: SandboxMode.allCases)
    func quarantineSurvivesATouchedLibrary(_ mode: SandboxMode) throws {
        let arena = try Arena(mode: mode, service: false)
        defer { arena.cleanUp() }
        try arena.start()
        _ = try arena.sandboxLayers()
        let attack = Attack("touch-and-crash", issue: nil) { _ in .fault("crash") }
        var faults = 0
        while faults < 3 {
            let outcome = try arena.deliverAttack(attack, round: faults, parameters: arena.parameters(for: attack))
            try #require(outcome.reachedWorker, "the worker was not reached: \(outcome.codes)")
            faults += 1
            try #require(arena.waitForFaults(faults), "no fault came")
        }
        let entry = try #require(arena.ledgerEntry(), "no ledger entry: \(arena.ledgerText)")
        #expect(entry.classes == ["crash", "crash", "crash"])
        #expect(entry.quarantined)

        try arena.touchBundle(arena.hostileBundle)
        let touched = try arena.deliverAttack(attack, round: 10, parameters: [:])
        #expect(touched.codes.contains("worker.quarantined"), "touching the files lifted the quarantine: \(touched.codes)")
        try arena.stopServer()
        try arena.start()
        let later = try arena.deliverAttack(attack, round: 11, parameters: [:])
        #expect(later.codes.contains("worker.quarantined"), "a later host lifted the quarantine: \(later.codes)")

        // New content lifts it: the worker starts again (and crashes again).
        try arena.appendByte(to: arena.hostileBundle + "/libHostile.so")
        let changed = try arena.deliverAttack(attack, round: 12, parameters: [:])
        #expect(!changed.codes.contains("worker.quarantined"), "new content did not lift the quarantine: \(changed.codes)")
        #expect(changed.codes.contains("worker.crash"), "\(changed.codes)")
        try arena.stopServer()
        arena.expectNothingLeft()
    }

    /// The CPU budget is one call's (and the time between two calls'), as server.describe says:
    /// an extension that uses 60 % of it in each of five calls in a row is never stopped.
    /// A server killed outright cannot end its workers: their sandboxes' inits find it gone and
    /// end everything in them.
    @Test(arguments: SandboxMode.allCases)
    func aKilledServerLeavesNoProcess(_ mode: SandboxMode) throws {
        let arena = try Arena(mode: mode, service: false)
        defer { arena.cleanUp() }
        try arena.start()
        _ = try arena.sandboxLayers()
        #expect(try arena.deliverHealthy(0))
        let attack = Attack("fork-and-outlive", issue: nil) { _ in .contained }
        let outcome = try arena.deliverAttack(attack, round: 1, parameters: arena.parameters(for: attack))
        #expect(outcome.reachedWorker, "the worker was not reached: \(outcome.codes)")
        arena.noteDescendants()
        try arena.stopServer(with: SIGKILL)
        arena.expectNothingLeft()
    }

    @Test(arguments: SandboxMode.allCases)
    func cpuBudgetIsPerCall(_ mode: SandboxMode) throws {
        let arena = try Arena(mode: mode, service: false)
        defer { arena.cleanUp() }
        try arena.start()
        let layers = try arena.sandboxLayers()
        #expect(layers.status("cpu") == "active")
        let work = Attack("burn", issue: nil) { _ in .contained }
        let milliseconds = Int(Arena.cpuSecondsPerCall * 600)
        var outcomes: [AttackOutcome] = []
        for call in 0..<5 {
            outcomes.append(try arena.deliverAttack(work, round: call, parameters: ["burn-ms": "\(milliseconds)"]))
        }
        arena.expectContained(outcomes, as: .contained, attack: work)
        try arena.stopServer()
        arena.expectNothingLeft()
    }
}

// MARK: - Attacks

/// How an attack must end.
enum Expectation: Equatable, CustomStringConvertible {
    /// Every step refused or bounded: the call returns and says so, the worker lives.
    case contained
    /// The worker faults with this class each time (or, where two of the
    /// host's limits race to end the same flood, with `or`); the third fault
    /// quarantines the bundle.
    case fault(String, or: String? = nil)
    /// Either: refused or bounded, or a fault of this class (a memory limit that the kernel enforces by killing).
    case containedOrFault(String)

    var description: String {
        switch self {
        case .contained: "contained"
        case .fault(let kind, let other): "a fault of class \(kind)\(other.map { " or \($0)" } ?? "")"
        case .containedOrFault(let kind): "contained, or a fault of class \(kind)"
        }
    }
}

/// The sandbox mode a test asks for in config.json.
enum SandboxMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Every layer the machine allows.
    case full
    /// No namespaces (so no view of its own) and no cgroup: Landlock, seccomp, the subreaper.
    case fallback

    var testDescription: String { rawValue }

    /// The "sandbox" member of config.json.
    var configuration: String {
        switch self {
        case .full: "{}"
        case .fallback: #"{"namespaces": false, "cgroup": false}"#
        }
    }
}

/// One attack: the fixture's attack name, what it must come to, and checks of its own.
struct Attack: Sendable, CustomTestStringConvertible {
    /// userInfo "attack".
    let name: String
    /// The line of the security issue it covers; nil for an attack beyond the issue's list.
    let issue: String?
    /// Served by the service extension (built with -DHOSTILE_SERVICE) instead of the content extension.
    var service = false
    /// The fixture (Tests/Fixtures/Extensions/NAME.c) the hostile bundles are built from.
    var fixture = "Hostile"
    /// Its outcome depends on how much memory and CPU time the worker itself
    /// uses beside the extension, which a sanitizer's runtime changes.
    var dependsOnTheWorkersOwnUse = false
    /// userInfo of its own, beside the arena's (`Arena.parameters(for:)`).
    var parameters: [String: String] = [:]
    /// Members of config.json's `limits` of its own, beside the arena's.
    var limits: [String: Int] = [:]
    /// What it must come to, given the layers the sandbox has here.
    let expected: @Sendable (Layers) -> Expectation
    /// Called once the server runs, before the rounds.
    var beforeRounds: @Sendable (Arena) -> Void = { _ in }
    /// Checks after each of its deliveries, while the server runs.
    var afterEachDelivery: @Sendable (Arena, AttackOutcome) throws -> Void = { _, _ in }
    /// Checks while the server still runs, after the rounds.
    var whileServing: @Sendable (Arena, [AttackOutcome]) throws -> Void = { _, _ in }
    /// Checks once the server stopped.
    var afterServing: @Sendable (Arena, [AttackOutcome]) throws -> Void = { _, _ in }

    init(_ name: String, issue: String?, service: Bool = false, fixture: String = "Hostile",
         dependsOnTheWorkersOwnUse: Bool = false, parameters: [String: String] = [:], limits: [String: Int] = [:],
         expected: @escaping @Sendable (Layers) -> Expectation,
         beforeRounds: @escaping @Sendable (Arena) -> Void = { _ in },
         afterEachDelivery: @escaping @Sendable (Arena, AttackOutcome) throws -> Void = { _, _ in },
         whileServing: @escaping @Sendable (Arena, [AttackOutcome]) throws -> Void = { _, _ in },
         afterServing: @escaping @Sendable (Arena, [AttackOutcome]) throws -> Void = { _, _ in }) {
        self.name = name
        self.issue = issue
        self.service = service
        self.fixture = fixture
        self.beforeRounds = beforeRounds
        self.afterEachDelivery = afterEachDelivery
        self.dependsOnTheWorkersOwnUse = dependsOnTheWorkersOwnUse
        self.parameters = parameters
        self.limits = limits
        self.expected = expected
        self.whileServing = whileServing
        self.afterServing = afterServing
    }

    var testDescription: String { name }

    /// The identifier of the hostile bundle that serves it.
    var bundleIdentifier: String { service ? "com.example.hostile.service" : "com.example.hostile.content" }

    /// Memory: refused (seccomp), bounded, or killed at the cgroup's limit when there is one.
    static let memory: @Sendable (Layers) -> Expectation = { $0.cgroup ? .containedOrFault("memory") : .contained }

    static let all: [Attack] = [
        Attack("kill-host", issue: "kill the host (kill(getppid()), kill(-1), kill(0), its pid)") { _ in .contained },
        Attack("open-host-memory", issue: "open /proc/<host>/mem, ptrace the host") { _ in .contained },
        Attack("read-secret", issue: "read a secret in the user's home, list the home") { _ in .contained },
        Attack("write-ledger", issue: "write or truncate the fault ledger and the index cache") { _ in .contained },
        Attack("connect-socket", issue: "connect to the server's socket, remove another app's notification",
               expected: { _ in .contained },
               whileServing: { arena, _ in
                   let listed = try arena.client?.call("notifications.list")["notifications"]?.arrayValue ?? []
                   let identifiers = Set(listed.compactMap { $0["notification"]?["identifier"]?.stringValue })
                   #expect(identifiers.contains(Arena.victim), "another app's notification was removed")
               }),
        Attack("memfd", issue: "memfd bomb: memfd_create + ftruncate + write/mmap", expected: memory),
        Attack("shared-anonymous", issue: "memfd bomb: mmap MAP_SHARED|MAP_ANONYMOUS", expected: memory),
        Attack("dev-zero", issue: "memfd bomb: MAP_SHARED of /dev/zero", expected: memory),
        // Full /tmp (a 16 MiB tmpfs, or the scratch directory the host counts) or a file beyond
        // RLIMIT_FSIZE: refused writes, or a fault of class disk.
        Attack("fill-tmp", issue: "memfd bomb: fill /tmp", expected: { _ in .containedOrFault("disk") }),
        Attack("fork-and-outlive", issue: "fork; setsid; double fork; children that sleep forever",
               expected: { _ in .contained },
               whileServing: { arena, _ in
                   // A worker starts no process (seccomp refuses fork): there is none to outlive it.
                   #expect(Processes.named("hostile-orphan").isEmpty, "a child of the extension's exists")
               }),
        Attack("exec-shell", issue: "execve /bin/sh, posix_spawn, system()",
               expected: { _ in .contained },
               afterServing: { arena, _ in
                   #expect(!FileManager.default.fileExists(atPath: arena.marker), "the shell ran: \(arena.marker) exists")
               }),
        Attack("call-storm", issue: "10^6 host calls on one thread, 50 threads calling", dependsOnTheWorkersOwnUse: true) { _ in
            .fault("abuse")
        },
        Attack("touch-own-library", issue: "utimensat/futimens/write its own library and Info.plist") { _ in .contained },
        Attack("network", issue: "socket(AF_INET) + connect to a local port; AF_UNIX",
               expected: { _ in .contained },
               whileServing: { arena, _ in
                   #expect(arena.listenerWasReached() == false, "the extension connected to 127.0.0.1:\(arena.port)")
               }),
        Attack("dumpable", issue: "prctl(PR_SET_DUMPABLE, 1)") { _ in .contained },
        Attack("cpu-spin-thread", issue: "a thread that spins after the call returned, SIGXCPU ignored and blocked",
               dependsOnTheWorkersOwnUse: true) { _ in
            .fault("cpu-time")
        },
        Attack("stderr-forge", issue: "a forged host log line on standard error, 10,000 times",
               expected: { _ in .contained },
               afterServing: { arena, _ in arena.expectOutputContained() }),
        Attack("rewrite-attachment", issue: "rewrite an attachment through a kept descriptor after create_attachment",
               service: true, dependsOnTheWorkersOwnUse: true,
               expected: { _ in .contained },
               whileServing: { arena, outcomes in arena.expectStoredAttachmentsIntact(outcomes) }),
        // Beyond the issue's list.
        Attack("fork-spin", issue: nil,
               expected: { _ in .contained },
               whileServing: { arena, _ in arena.expectChildrenWithinCPUBudget() }),
        Attack("fork-memory", issue: nil, expected: memory,
               whileServing: { arena, _ in arena.expectChildrenWithinMemoryLimit() }),
        Attack("socket-buffers", issue: nil, expected: memory),
        Attack("sysv-ipc", issue: nil,
               expected: { _ in .contained },
               afterServing: { arena, _ in arena.expectNoSystemVObjects() }),
        Attack("inotify-home", issue: nil) { _ in .contained },
    ]
}

/// What one attack delivery came to.
struct AttackOutcome: Sendable {
    /// The label "result" of the extension's view (or, for the service, the title it handed back); nil without one.
    var label: String?
    /// The delivery's diagnostic codes.
    var codes: [String]
    /// The delivery's whole answer.
    var answer: JSON
    /// The codes of the answers before it, each `worker.restarting` (tried again after the restart's backoff).
    var earlierCodes: [[String]] = []
    /// The call reached a worker (it was not held back by a restart's backoff or the quarantine).
    var reachedWorker: Bool {
        !codes.contains("worker.restarting") && !codes.contains("worker.quarantined")
    }
}

/// The layers server.describe reported.
struct Layers: Sendable {
    var entries: [String: (status: String, detail: String)] = [:]

    func status(_ name: String) -> String { entries[name]?.status ?? "missing" }

    /// A cgroup counts the worker's memory, shared memory and tmpfs included.
    var cgroup: Bool { status("memory") == "active" }
}

// MARK: - The arena

/// A fresh home with a planted secret, the hostile and healthy bundles, a
/// `tidings serve` over them and a client, and what the checks compare.
final class Arena: @unchecked Sendable {
    static let rounds = 100
    /// The healthy app's notification the hostile extension tries to remove.
    static let victim = "healthy-0"
    static let marker = "HOSTILE-WROTE-THIS"
    /// The bytes beyond which memory, a file system or buffers count as escaped (the worker's
    /// cgroup allows 32 MiB + a 16 MiB /tmp + 24 MiB of its own).
    static let memoryLimit: UInt64 = 128 << 20
    /// The CPU time a worker may use per call (config.json).
    static let cpuSecondsPerCall = 0.5

    let mode: SandboxMode
    let root: TemporaryDirectory
    let home: String
    let extensions: String
    var socket: String { home + "/.run/tidings/tidings.sock" }
    var stateDirectory: String { home + "/.local/state/tidings" }
    var ledgerPath: String { stateDirectory + "/faults.json" }
    var cachePath: String { home + "/.cache/tidings/index.v1" }
    var journalPath: String { stateDirectory + "/server.journal.0" }
    var configPath: String { home + "/.config/tidings/config.json" }
    /// The server's attachment store ($XDG_STATE_HOME/tidings/attachments).
    var attachmentStore: String { stateDirectory + "/attachments" }
    var secret: String { home + "/.ssh/id_rsa" }
    var notes: String { home + "/Documents/notes.txt" }
    var marker: String { root.path + "/marker-outside" }
    var hostileBundle: String { extensions + "/Hostile.appex" }
    let serviceBundle: String?
    var logPath: String { root.path + "/serve.log" }
    /// A System V IPC key of this arena's own.
    let ipcKey: Int32
    /// A TCP listener on 127.0.0.1 the network attack aims at, and its port.
    private(set) var listener: Int32 = -1
    private(set) var port: UInt16 = 0

    private(set) var server: BackgroundProcess?
    private(set) var client: RPCClient?
    private var startedAt: UInt64 = 0
    private var starts = 0
    private(set) var servedFor: Double = 0
    /// Files outside the sandbox that must not change at all, as they were.
    private var untouchable: [String: FileState] = [:]
    /// The private directories (under /tmp) of the fallback workers that ran when the server stopped.
    private var scratchDirectories: Set<String> = []
    /// The server's descendants (its sandboxes' inits, workers and what they started), as seen
    /// after each attack and when it stopped, by pid and start time.
    private var descendants: [String: Processes.Entry] = [:]

    /// The fixture the hostile bundles are built from (their names and identifiers are the same whichever).
    let fixture: String

    /// An arena in `mode`, with the service extension when `service`, its hostile bundles built
    /// from `fixture`, and `limits` added to config.json's.
    init(mode: SandboxMode, service: Bool, fixture: String = "Hostile", limits: [String: Int] = [:]) throws {
        self.mode = mode
        self.fixture = fixture
        root = TemporaryDirectory("attack")
        home = root.path + "/home"
        extensions = root.path + "/extensions"
        serviceBundle = service ? root.path + "/extensions/HostileService.appex" : nil
        ipcKey = 0x4800_0000 | Int32(getpid() & 0xFFFF) << 8 | Int32(mode == .full ? 1 : 2)
        let files = FileManager.default
        // World-traversable: the workers may run as another user (nobody) than the test.
        for directory in [root.path, home, home + "/Documents", extensions] {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, 0o755)
        }
        for directory in [home + "/.ssh", home + "/.run", home + "/.local/state/tidings", home + "/.cache",
                          home + "/.config/tidings"] {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                      attributes: [.posixPermissions: 0o700])
        }
        try write("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
                  to: secret, mode: 0o600)
        try write("My bank's PIN is 1234.\n", to: notes, mode: 0o644)
        let more = limits.sorted { $0.key < $1.key }.map { ", \"\($0.key)\": \($0.value)" }.joined()
        try write("""
            {"limits": {"memory-mib": 32, "cpu-seconds-per-call": \(Self.cpuSecondsPerCall), "call-timeout": 5\(more)},
             "sandbox": \(mode.configuration)}

            """, to: configPath, mode: 0o600)
        // A ledger there to be attacked (the host's own empty one).
        try write("{\"bundles\": {}}\n", to: ledgerPath, mode: 0o600)
        try install()
        untouchable = Dictionary(uniqueKeysWithValues: untouchablePaths.map { ($0, FileState(path: $0)) })
        try openListener()
    }

    /// Stops what still runs and removes what an attack left (the test failed then): System V
    /// objects, the private directories of its workers.
    func cleanUp() {
        server?.stop(with: SIGKILL)
        if listener >= 0 { close(listener) }
        for object in SystemV.objects(key: ipcKey) { SystemV.remove(object) }
        for directory in scratchDirectories { try? FileManager.default.removeItem(atPath: directory) }
    }

    // MARK: Setting up

    private func write(_ text: String, to path: String, mode: mode_t) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, mode)
    }

    /// The hostile bundles (content, and the service when asked) and the healthy one.
    private func install() throws {
        let build = root.path + "/build"
        try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
        func interface(_ label: String) throws -> String {
            let path = build + "/\(label)/MainInterface.json"
            try FileManager.default.createDirectory(atPath: build + "/\(label)", withIntermediateDirectories: true)
            try #"{"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "\#(label)"}]}}"#
                .write(toFile: path, atomically: false, encoding: .utf8)
            return path
        }
        let hostile = try CCompiler.fixture(fixture, into: build, output: "libHostile.so", extraFlags: ["-pthread"])
        try BundleMaker.make("Hostile", in: extensions, manifest: BundleMaker.contentManifest(
            identifier: "com.example.hostile.content", executable: "libHostile.so", categories: ["attack"],
            interface: "MainInterface"), library: hostile, resources: [try interface("result")])
        if serviceBundle != nil {
            let service = try CCompiler.fixture(fixture, into: build, output: "libHostileService.so",
                                                extraFlags: ["-pthread", "-DHOSTILE_SERVICE"])
            try BundleMaker.make("HostileService", in: extensions, manifest: BundleMaker.serviceManifest(
                identifier: "com.example.hostile.service", executable: "libHostileService.so"), library: service)
        }
        let healthy = try CCompiler.fixture("Faulty", into: build, output: "libFaulty.so")
        try BundleMaker.make("Healthy", in: extensions, manifest: BundleMaker.contentManifest(
            identifier: "com.example.healthy.content", executable: "libFaulty.so", categories: ["healthy"],
            interface: "MainInterface"), library: healthy, resources: [try interface("state")])
        _ = try ProcessRunner.run("/bin/chmod", ["-R", "a+rX", extensions])
    }

    /// The files no attack may change: the user's, the host's configuration, every bundle's.
    private var untouchablePaths: [String] {
        var paths = [secret, notes, configPath, hostileBundle + "/libHostile.so", hostileBundle + "/Info.plist",
                     hostileBundle + "/MainInterface.json", extensions + "/Healthy.appex/libFaulty.so",
                     extensions + "/Healthy.appex/Info.plist"]
        if let serviceBundle { paths += [serviceBundle + "/libHostileService.so", serviceBundle + "/Info.plist"] }
        return paths
    }

    private func openListener() throws {
        listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        try #require(listener >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 8) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        try #require(bound, "no listener: \(String(cString: strerror(errno)))")
        port = UInt16(bigEndian: address.sin_port)
    }

    /// True when something connected to the listener.
    func listenerWasReached() -> Bool {
        let accepted = accept(listener, nil, nil)
        if accepted >= 0 { close(accepted) }
        return accepted >= 0
    }

    // MARK: The server

    var environment: [String: String] {
        ["HOME": home, "XDG_STATE_HOME": home + "/.local/state", "XDG_CACHE_HOME": home + "/.cache",
         "XDG_CONFIG_HOME": home + "/.config", "XDG_RUNTIME_DIR": home + "/.run", "NO_COLOR": "1"]
    }

    /// Starts `tidings serve` (isolated, the default), connects, subscribes to every event
    /// and registers both apps' categories.
    func start() throws {
        try? FileManager.default.removeItem(atPath: socket)
        let server = try BackgroundProcess(Locations.product("tidings"), [
            "serve", "--socket", socket, "--extensions", extensions,
        ], environment: environment, log: logPath + ".\(starts + 1)")
        starts += 1
        self.server = server
        try #require(BackgroundProcess.wait(forListener: socket), "the server did not start: \(log)")
        startedAt = MonotonicClock.now()
        // The socket's file comes with bind, before listen: connect until the server listens.
        var connected: RPCClient?
        eventually {
            connected = try? RPCClient(path: socket)
            return connected != nil || !server.isRunning
        }
        let client = try #require(connected, "no connection to the server: \(log)")
        self.client = client
        _ = try client.call("events.subscribe", .object([]))
        for (app, category) in [("com.example.hostile", "attack"), ("com.example.healthy", "healthy")] {
            _ = try client.call("categories.register", .object([
                ("app", .string(app)), ("categories", .array([.object([("identifier", .string(category))])])),
            ]))
        }
    }

    /// What the server wrote to its standard error, over all its starts.
    var log: String {
        (0..<starts).compactMap { try? String(contentsOfFile: logPath + ".\($0 + 1)", encoding: .utf8) }.joined()
    }

    /// server.describe's sandbox layers, each one not active said loudly on standard error; in
    /// the fallback mode, the layers config.json turned off must be reported so.
    func sandboxLayers() throws -> Layers {
        let described = try #require(client).call("server.describe")
        var layers = Layers()
        for entry in described["sandbox"]?.arrayValue ?? [] {
            guard let name = entry["layer"]?.stringValue, let status = entry["status"]?.stringValue else { continue }
            let detail = entry["detail"]?.stringValue ?? ""
            layers.entries[name] = (status, detail)
            if status != "active" {
                var standardError = StandardError()
                print("SANDBOX LAYER \(status.uppercased()) (\(mode.rawValue) mode, uid \(geteuid())): \(name): \(detail)",
                      to: &standardError)
            }
        }
        for name in ["namespaces", "processes", "filesystem", "network", "memory", "tasks", "landlock", "cpu", "seccomp"] {
            #expect(layers.entries[name] != nil, "server.describe reports no \(name) layer: \(described)")
        }
        // Landlock and seccomp are what every mode relies on: without them nothing below holds.
        #expect(layers.status("landlock") == "active")
        #expect(layers.status("seccomp") == "active")
        if mode == .fallback {
            #expect(layers.status("namespaces") == "missing", "config.json did not turn the namespaces off")
            #expect(layers.status("processes") == "weakened")
            #expect(layers.status("filesystem") == "weakened")
            #expect(layers.status("memory") == "weakened", "config.json did not turn the cgroup off")
        }
        return layers
    }

    /// Stops the server with `signal`, remembering its descendants as last seen.
    func stopServer(with signal: Int32 = SIGTERM) throws {
        guard let server else { return }
        if server.isRunning {
            let running = Processes.descendants(of: server.identifier)
            noteDescendants(running)
            scratchDirectories.formUnion(running.compactMap { Processes.environment(of: $0.pid)["TMPDIR"] }
                .filter { $0.hasPrefix("/tmp/tidings-worker-") })
        }
        servedFor = Double(MonotonicClock.now() - startedAt) / 1e9
        client = nil
        server.stop(with: signal)
        self.server = nil
    }

    /// Remembers the server's descendants as they are now.
    func noteDescendants(_ running: [Processes.Entry]? = nil) {
        guard let server, server.isRunning else { return }
        for entry in running ?? Processes.descendants(of: server.identifier) {
            descendants["\(entry.pid)/\(entry.started)"] = entry
        }
    }

    // MARK: Deliveries

    /// Delivers healthy notification `round`; true when the healthy extension drew its view
    /// and nothing went wrong.
    func deliverHealthy(_ round: Int) throws -> Bool {
        let answer = try #require(client).call("notifications.deliver", .object([
            ("app", .string("com.example.healthy")), ("identifier", .string("healthy-\(round)")), ("open", .bool(true)),
            ("payload", .object([("aps", .object([("alert", .object([("title", .string("Hello \(round)"))])),
                                                  ("category", .string("healthy"))]))])),
        ]))
        let state = Self.text(of: "state", in: answer["presentation"]?["view"])
        let diagnostics = answer["diagnostics"]?.arrayValue ?? []
        #expect(state == "ok" && diagnostics.isEmpty, "healthy round \(round): \(state ?? "no view"), \(diagnostics)")
        return state == "ok" && diagnostics.isEmpty
    }

    /// userInfo of an attack: paths, pids and sizes it needs.
    func parameters(for attack: Attack) -> [String: String] {
        ["host-pid": "\(server?.identifier ?? 0)", "secret": secret, "notes": notes, "home": home,
         "config": configPath, "ledger": ledgerPath, "cache": cachePath, "journal": journalPath, "socket": socket,
         "victim": Self.victim, "marker": marker, "port": "\(port)", "limit": "\(Self.memoryLimit)",
         "bytes": "\(UInt64(8) << 30)", "ipc-key": "\(ipcKey)", "children": "16", "child-bytes": "\(24 << 20)"]
            .merging(attack.parameters) { _, own in own }
    }

    /// Delivers the attack; while its worker waits out a restart's backoff, delivers it again
    /// (each one an attack) until it reaches a worker or the bundle is quarantined.
    func deliverAttack(_ attack: Attack, round: Int, parameters: [String: String]) throws -> AttackOutcome {
        var aps: [(String, JSON)] = [("alert", .object([("title", .string("Attack")), ("body", .string(attack.name))])),
                                     ("category", .string("attack"))]
        if attack.service { aps.append(("mutable-content", .integer(1))) }
        var payload: [(String, JSON)] = [("aps", .object(aps)), ("attack", .string(attack.name))]
        payload += parameters.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }
        var attempt = 0
        var earlier: [[String]] = []
        var outcome: AttackOutcome?
        // The backoff after a fault is the host's timer: wait for it by trying again.
        try eventually {
            attempt += 1
            let answer = try #require(client).call("notifications.deliver", .object([
                ("app", .string("com.example.hostile")), ("identifier", .string("attack-\(round)-\(attempt)")),
                ("open", .bool(true)),
                ("payload", .object(payload)),
            ]))
            let codes = (answer["diagnostics"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
            let label = attack.service ? Self.serviceTitle(in: answer) : Self.text(of: "result", in: answer["presentation"]?["view"])
            outcome = AttackOutcome(label: label, codes: codes, answer: answer, earlierCodes: earlier)
            if codes.contains("worker.restarting") { earlier.append(codes) }
            return !codes.contains("worker.restarting")
        }
        return try #require(outcome)
    }

    /// The text of label `identifier` in a view.
    static func text(of identifier: String, in view: JSON?) -> String? {
        guard let view else { return nil }
        if view["id"]?.stringValue == identifier { return view["text"]?.stringValue }
        for child in view["children"]?.arrayValue ?? [] {
            if let text = text(of: identifier, in: child) { return text }
        }
        return nil
    }

    /// The title the service extension handed back, where it reports its attack.
    static func serviceTitle(in answer: JSON) -> String? {
        let title = answer["notification"]?["title"]?.stringValue
        return title == "Attack" ? nil : title
    }

    // MARK: Faults

    /// The hostile content extension's ledger entry: its fault classes, and whether it is quarantined.
    func ledgerEntry(identifier: String = "com.example.hostile.content") -> (classes: [String], quarantined: Bool)? {
        guard let json = try? JSON.parse(Array(ledgerText.utf8)) else { return nil }
        for (_, entry) in json["bundles"]?.objectMembers ?? [] where entry["identifier"]?.stringValue == identifier {
            let classes = (entry["faults"]?.arrayValue ?? []).compactMap { $0["class"]?.stringValue }
            return (classes, entry["quarantine"] != nil)
        }
        return nil
    }

    var ledgerText: String { (try? String(contentsOfFile: ledgerPath, encoding: .utf8)) ?? "" }

    /// Waits for the ledger to hold `count` faults of the hostile extension (a fault
    /// after a call comes when the worker's CPU budget runs out).
    func waitForFaults(_ count: Int, identifier: String = "com.example.hostile.content") -> Bool {
        eventually { (ledgerEntry(identifier: identifier)?.classes.count ?? 0) >= count }
    }

    /// Every delivery was refused or contained, or faulted as `expected` says; nothing leaked.
    func expectContained(_ outcomes: [AttackOutcome], as expected: Expectation, attack: Attack,
                         sourceLocation: SourceLocation = #_sourceLocation) {
        let name = "\(attack.name) [\(attack.issue ?? "beyond the issue's list")] (\(mode.rawValue), uid \(geteuid()))"
        for (index, outcome) in outcomes.enumerated() {
            // Every delivery's verdict is judged: without a view, a worker's code must say why there is none.
            if let label = outcome.label {
                #expect(!label.contains("ESCAPED") && !label.contains("LEAKED"),
                        "\(name), attack \(index + 1) got through: \(label)", sourceLocation: sourceLocation)
            } else {
                #expect(outcome.codes.contains { $0.hasPrefix("worker.") },
                        "\(name), attack \(index + 1): no view, and no worker's fault or refusal says why: \(outcome.codes)",
                        sourceLocation: sourceLocation)
            }
        }
        let entry = ledgerEntry(identifier: attack.bundleIdentifier)
        let classes = entry?.classes ?? []
        let events = (client?.events ?? []).compactMap { $0["params"]?["diagnostic"]?["code"]?.stringValue }
        switch expected {
        case .contained:
            for (index, outcome) in outcomes.enumerated() {
                let verdict = outcome.label.map { label in ["contained:", "forked:", "spinning:", "made:"].contains { label.hasPrefix($0) } }
                #expect(verdict == true, "\(name), attack \(index + 1): \(outcome.label ?? "no view") \(outcome.codes)",
                        sourceLocation: sourceLocation)
            }
            #expect(classes.isEmpty, "\(name) faulted: \(classes)", sourceLocation: sourceLocation)
        case .fault(let kind, let other):
            let kinds = Set([kind] + (other.map { [$0] } ?? []))
            #expect(classes.count >= 3 && classes.allSatisfy(kinds.contains) && (other != nil || classes.count == 3),
                    "\(name) must fault with \(kinds.sorted().joined(separator: " or ")) three times: \(classes)",
                    sourceLocation: sourceLocation)
            #expect(entry?.quarantined == true, "\(name) is not quarantined", sourceLocation: sourceLocation)
            // A fault the worker survives is reported with its own code.
            let codes = kinds.map { $0 == WorkerFault.Kind.store.rawValue ? "attachment.store-abuse" : "worker.\($0)" }
            let code = codes.first(where: events.contains) ?? "worker.\(kind)"
            #expect(events.contains(code), "no extension.failed event of \(code): \(events)", sourceLocation: sourceLocation)
            let last = outcomes.last
            #expect(last?.codes.contains("worker.quarantined") == true,
                    "\(name): the last delivery is not refused as quarantined: \(last.map { "\($0.codes)" } ?? "no delivery")",
                    sourceLocation: sourceLocation)
        case .containedOrFault(let kind):
            for (index, outcome) in outcomes.enumerated() where outcome.reachedWorker {
                let contained = outcome.label?.hasPrefix("contained:") == true
                #expect(contained || outcome.codes.contains("worker.\(kind)"),
                        "\(name), attack \(index + 1): \(outcome.label ?? "no view") \(outcome.codes)",
                        sourceLocation: sourceLocation)
            }
            #expect(classes.allSatisfy { $0 == kind }, "\(name) faulted otherwise than \(kind): \(classes)",
                    sourceLocation: sourceLocation)
            if classes.count >= 3 {
                #expect(entry?.quarantined == true, "\(name) is not quarantined after 3 faults", sourceLocation: sourceLocation)
            }
        }
    }

    /// One line on standard error: what the attack came to here (the labels' verdicts, the faults).
    func summarize(_ attack: Attack, _ outcomes: [AttackOutcome], expected: Expectation) {
        var verdicts: [String: Int] = [:]
        for outcome in outcomes {
            let verdict = outcome.label.map { String($0.prefix { $0 != ":" }) }
                ?? outcome.codes.first { $0.hasPrefix("worker.") }.map { "no view (\($0))" } ?? "no view"
            verdicts[verdict, default: 0] += 1
        }
        let entry = ledgerEntry(identifier: attack.bundleIdentifier)
        let faults = entry.map { "faults \($0.classes)\($0.quarantined ? ", quarantined" : "")" } ?? "no faults"
        var standardError = StandardError()
        print("ATTACK \(attack.name) (\(mode.rawValue), uid \(geteuid())), expected \(expected): "
              + verdicts.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: ", ") + "; \(faults)",
              to: &standardError)
    }

    // MARK: After the server

    /// No process of the server's sandboxes is left, none of the hostile extension's names
    /// anywhere, and no scratch directory of a fallback worker.
    func expectNothingLeft(sourceLocation: SourceLocation = #_sourceLocation) {
        // The sandboxes' inits end what is left once they find the server gone: wait for that.
        var left: [Processes.Entry] = []
        eventually {
            left = descendants.values.filter(\.isAlive) + Processes.named("hostile-orphan") + Processes.named("hostile-spinner")
                + Processes.named("hostile-hog")
            return left.isEmpty
        }
        // The server has ended: what it did not remove stays.
        let scratch = scratchDirectories.filter { FileManager.default.fileExists(atPath: $0) }
        #expect(left.isEmpty, "processes left after the server stopped: \(left.map(\.description))",
                sourceLocation: sourceLocation)
        #expect(scratch.isEmpty, "scratch directories left after the server stopped: \(scratch.sorted()) (\(Self.sizes(scratch)))",
                sourceLocation: sourceLocation)
    }

    /// The user's files, the configuration and every bundle are as they were; the ledger, the
    /// cache and the journal are the host's alone; nothing carries the hostile marker.
    func expectNothingChanged(sourceLocation: SourceLocation = #_sourceLocation) {
        for (path, before) in untouchable.sorted(by: { $0.key < $1.key }) {
            let now = FileState(path: path)
            #expect(now == before, "\(path) changed: \(before) → \(now)", sourceLocation: sourceLocation)
        }
        let ledger = ledgerText
        let parsed = try? JSON.parse(Array(ledger.utf8))
        #expect(parsed?["bundles"] != nil, "the ledger is no ledger: \(ledger)", sourceLocation: sourceLocation)
        let known = Set(WorkerFault.Kind.allCases.map(\.rawValue))
        for (_, entry) in parsed?["bundles"]?.objectMembers ?? [] {
            #expect(["com.example.hostile.content", "com.example.hostile.service", "com.example.healthy.content"]
                .contains(entry["identifier"]?.stringValue ?? ""), "a record of the ledger is no host's: \(entry)",
                    sourceLocation: sourceLocation)
            for fault in entry["faults"]?.arrayValue ?? [] {
                #expect(known.contains(fault["class"]?.stringValue ?? ""), "a fault no host records: \(fault)",
                        sourceLocation: sourceLocation)
            }
        }
        for path in [cachePath, journalPath] where FileManager.default.fileExists(atPath: path) {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(size > 0, "\(path) was emptied", sourceLocation: sourceLocation)
        }
        let marked = Self.files(under: home).filter { path in
            (try? Data(contentsOf: URL(fileURLWithPath: path))).map { $0.range(of: Data(Self.marker.utf8)) != nil } ?? false
        } + (Self.files(under: home) + Self.files(under: extensions)).filter { path in
            path.hasSuffix(".hostile") || path.hasSuffix(".moved")
        }
        #expect(marked.isEmpty, "the extension wrote outside its sandbox: \(marked)", sourceLocation: sourceLocation)
    }

    // MARK: Checks of single attacks

    /// The forged log lines reach the server's log only quoted, in reports at most 4 a second per worker.
    func expectOutputContained() {
        let lines = log.split(separator: "\n")
        let forged = lines.filter { $0.hasPrefix("tidings serve: error: FORGED") || $0.hasPrefix("FORGED") }
        #expect(forged.isEmpty, "a forged line reached the server's log as it was written: \(forged.first ?? "")")
        let reports = lines.filter { $0.contains("[worker.output]") }.count
        #expect(reports > 0, "the extension's output was never reported")
        // Four a second per worker, and one more as a worker ends: with a worker per opened interface,
        // the attack's few interfaces add their last reports to the rate.
        #expect(Double(reports) <= 8 * (servedFor.rounded(.up) + 1), "\(reports) output reports in \(servedFor) s")
    }

    /// The attachments the service extension made are the PNG it had when it attached them:
    /// the store's copy, 0600, unchanged by what the extension did to its file and descriptors after.
    func expectStoredAttachmentsIntact(_ outcomes: [AttackOutcome]) {
        var checked = 0
        for outcome in outcomes {
            for attachment in Self.objects(in: outcome.answer) where attachment["identifier"]?.stringValue == "evil" {
                guard let url = attachment["url"]?.stringValue, url.hasPrefix("file://") else { continue }
                let path = String(url.dropFirst("file://".count)).removingPercentEncoding ?? ""
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))).map(Array.init) ?? []
                #expect(bytes == Self.png, "the stored attachment \(path) is not the PNG attached: \(bytes.count) bytes")
                var status = stat()
                #expect(stat(path, &status) == 0 && status.st_mode & 0o7777 == 0o600,
                        "the stored attachment's mode is \(String(status.st_mode & 0o7777, radix: 8))")
                checked += 1
            }
        }
        #expect(checked > 0, "no attachment was made: \(outcomes.map { $0.label ?? $0.codes.description })")
    }

    /// The children a worker forked may not use more CPU time than its budget: their CPU time
    /// stays within twice the per-call budget until they are gone.
    func expectChildrenWithinCPUBudget() {
        let budget = 2 * Self.cpuSecondsPerCall
        var used = 0.0
        var spinners: [Processes.Entry] = []
        // Watched until they are gone (or over budget), however slowly a loaded machine ends them.
        eventually {
            spinners = Processes.named("hostile-spinner")
            used = spinners.map(\.cpuSeconds).reduce(0, +)
            return spinners.isEmpty || used > budget
        }
        #expect(used <= budget,
                "\(spinners.count) forked children used \(used) s of CPU time, beyond the worker's budget of \(Self.cpuSecondsPerCall) s per call")
    }

    /// The children a worker forked may not hold more memory together than the worker may.
    func expectChildrenWithinMemoryLimit() {
        var held: UInt64 = 0
        eventually {
            held = Processes.named("hostile-hog").map(\.proportionalBytes).reduce(0, +)
            return held < Self.memoryLimit
        }
        #expect(held < Self.memoryLimit, "forked children hold \(held >> 20) MiB, beyond \(Self.memoryLimit >> 20) MiB")
    }

    /// No System V message queue or semaphore set of the attack outlives its worker.
    func expectNoSystemVObjects() {
        let left = SystemV.objects(key: ipcKey)
        #expect(left.isEmpty, "System V objects outlived the worker: \(left)")
    }

    // MARK: The server's threads

    /// The most threads the server had at once since `watchThreads()`.
    var mostThreads: Int { threadPeak.load(ordering: .relaxed) }
    private let threadPeak = Atomic<Int>(0)

    /// Samples the server's thread count (`Threads:` of /proc/PID/status) about
    /// every millisecond, on a thread of the test's, until the server is gone.
    func watchThreads() {
        guard let server else { return }
        let pid = server.identifier
        Thread.detachNewThread { [self] in
            while server.isRunning, let count = Self.threads(of: pid) {
                var seen = threadPeak.load(ordering: .relaxed)
                while count > seen {
                    let (exchanged, original) = threadPeak.compareExchange(expected: seen, desired: count, ordering: .relaxed)
                    if exchanged { break }
                    seen = original
                }
                usleep(1_000)
            }
        }
    }

    /// The number of threads of process `pid`; nil when it cannot be read.
    static func threads(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") })
        else { return nil }
        return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
    }

    // MARK: Helpers

    /// Sets the modification times of a bundle's library and manifest to 2001, as an attacker would.
    func touchBundle(_ bundle: String) throws {
        for file in ["libHostile.so", "Info.plist"] {
            var times = [timespec(tv_sec: 978_307_200, tv_nsec: 0), timespec(tv_sec: 978_307_200, tv_nsec: 0)]
            try #require(utimensat(AT_FDCWD, bundle + "/" + file, &times, 0) == 0)
        }
    }

    func appendByte(to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
    }

    /// Every object in a JSON tree.
    static func objects(in json: JSON) -> [JSON] {
        switch json {
        case .object(let members): [json] + members.flatMap { objects(in: $0.1) }
        case .array(let values): values.flatMap { objects(in: $0) }
        default: []
        }
    }

    /// Every regular file under `directory`.
    static func files(under directory: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        return walker.compactMap { ($0 as? String).map { directory + "/" + $0 } }.filter { path in
            var status = stat()
            return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        }
    }

    static func sizes(_ directories: Set<String>) -> String {
        directories.sorted().map { directory in
            let bytes = files(under: directory).compactMap { path -> Int? in
                var status = stat()
                return lstat(path, &status) == 0 ? Int(status.st_size) : nil
            }.reduce(0, +)
            return "\(directory): \(bytes >> 20) MiB"
        }.joined(separator: ", ")
    }

    /// The fixture's PNG (Hostile.c, `png`).
    static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
        0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
        0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}

/// A file's content digest, modification time and mode.
struct FileState: Equatable, CustomStringConvertible {
    var sha256: String
    var modified: Int64
    var mode: UInt32

    init(path: String) {
        var status = stat()
        if stat(path, &status) == 0 {
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
            mode = UInt32(status.st_mode & 0o7777)
        } else {
            modified = -1
            mode = 0
        }
        sha256 = (try? SHA256.hex(of: (try? Data(contentsOf: URL(fileURLWithPath: path))).map(Array.init) ?? [])) ?? "unavailable"
    }

    var description: String { "sha256 \(sha256.prefix(12))…, mtime \(modified), mode \(String(mode, radix: 8))" }
}

/// Processes, as /proc shows them.
enum Processes {
    struct Entry: CustomStringConvertible {
        var pid: Int32
        var parent: Int32
        var name: String
        /// Clock ticks since boot when it started: with the pid, the process's identity.
        var started: UInt64
        var cpuSeconds: Double

        /// True while the same process (not a later one with its pid) runs.
        var isAlive: Bool {
            Processes.entry(pid).map { $0.started == started && !$0.isZombie } ?? false
        }

        var isZombie = false

        var description: String { "\(pid) \(name) (parent \(parent))" }

        /// Its share of the anonymous and shared memory it maps (smaps_rollup's Pss_Anon + Pss_Shmem):
        /// pages it shares with its parent and siblings counted once over all of them.
        var proportionalBytes: UInt64 {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return 0 }
            return text.split(separator: "\n").reduce(0) { total, line in
                guard line.hasPrefix("Pss_Anon:") || line.hasPrefix("Pss_Shmem:") else { return total }
                let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { UInt64($0) } ?? 0
                return total + kilobytes * 1024
            }
        }
    }

    static func entry(_ pid: Int32) -> Entry? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 21, let parent = Int32(fields[1]), let started = UInt64(fields[19]),
              let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var entry = Entry(pid: pid, parent: parent, name: String(stat[stat.index(after: open)..<close]), started: started,
                          cpuSeconds: (user + system) / ticks)
        entry.isZombie = fields[0] == "Z" || fields[0] == "X"
        return entry
    }

    /// The environment of process `pid` (empty when it cannot be read).
    static func environment(of pid: Int32) -> [String: String] {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")) else { return [:] }
        var found: [String: String] = [:]
        for entry in data.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            if let equals = text.firstIndex(of: "=") {
                found[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
        }
        return found
    }

    static func all() -> [Entry] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init).compactMap(entry)
    }

    /// Living processes named `name`.
    static func named(_ name: String) -> [Entry] {
        all().filter { $0.name == name && !$0.isZombie }
    }

    /// Every process below `pid`.
    static func descendants(of pid: Int32) -> [Entry] {
        let entries = all()
        var found: [Entry] = []
        var parents: Set<Int32> = [pid]
        var known: Set<Int32> = [pid]
        while true {
            let next = entries.filter { parents.contains($0.parent) && !known.contains($0.pid) }
            if next.isEmpty { return found }
            found += next
            parents = Set(next.map(\.pid))
            known.formUnion(parents)
        }
    }
}

/// System V IPC objects, as /proc/sysvipc lists them.
enum SystemV {
    struct Object: CustomStringConvertible {
        var kind: String
        var identifier: Int32
        var description: String { "\(kind) \(identifier)" }
    }

    /// The message queues and semaphore sets of `key` this process can see.
    static func objects(key: Int32) -> [Object] {
        var found: [Object] = []
        for kind in ["msg", "sem"] {
            guard let text = try? String(contentsOfFile: "/proc/sysvipc/\(kind)", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > 1, Int32(fields[0]) == key, let identifier = Int32(fields[1]) {
                    found.append(Object(kind: kind, identifier: identifier))
                }
            }
        }
        return found
    }

    static func remove(_ object: Object) {
        // semctl is variadic, out of Swift's reach: ipcrm does both.
        _ = try? ProcessRunner.run("/usr/bin/ipcrm", [object.kind == "msg" ? "-q" : "-s", "\(object.identifier)"])
    }
}

/// Standard error, for the loud lines.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
