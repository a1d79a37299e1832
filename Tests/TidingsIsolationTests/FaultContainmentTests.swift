import RuntimeTestSupport
import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsRegistry
import TidingsIsolation
import TidingsProtocol
import TidingsRuntime

/// Each class of extension fault, delivered 100 times in a row to an
/// extension in a worker process: the host keeps serving, shows every
/// notification with its default content (a response goes to the app),
/// reports each fault with its class, and quarantines the bundle after the
/// third. In this process, the completion faults are contained as well. A
/// completion that never comes is no fault (the deadline only closes the
/// response).
///
/// Serialized: a CPU-time budget is measured in CPU time, which parallel
/// tests on two cores would stretch past the call timeout. Workers restart
/// without a backoff here (the backoff has a test of its own), so that the
/// rounds need not wait for it.
@Suite(.serialized) struct FaultContainmentTests {
    /// A fault class: the fixture's flag, and the class the host reports.
    struct Case: Sendable, CustomTestStringConvertible {
        var flag: String
        var kind: String
        var testDescription: String { "\(flag) → \(kind)" }
    }

    /// Faults of did_receive_notification.
    static let deliveryFaults = [
        Case(flag: "FAULT_SEGV", kind: "crash"),
        Case(flag: "FAULT_ABORT", kind: "abort"),
        Case(flag: "FAULT_EXIT", kind: "exit"),
        Case(flag: "FAULT_STACK_OVERFLOW", kind: "stack-overflow"),
        Case(flag: "FAULT_LOOP", kind: "cpu-time"),
        Case(flag: "FAULT_STOP_READING", kind: "unresponsive"),
        Case(flag: "FAULT_HANG", kind: "hang"),
    ]

    /// Faults of did_receive_response (misuse of its completion), with the diagnostic each response carries.
    static let completionFaults = [
        Case(flag: "FAULT_COMPLETION_TWICE", kind: "response.completion-repeated"),
        Case(flag: "FAULT_COMPLETION_INVALID", kind: "response.invalid-option"),
    ]

    static let rounds = 100

    @Test(arguments: deliveryFaults)
    func deliveryFaultIsContainedAndQuarantined(_ fault: Case) throws {
        let bench = try Bench(fault: fault.flag)
        let host = bench.host()
        for round in 0..<Self.rounds {
            let delivery = host.deliverOpened(notification("n\(round)", category: "faulty"), to: "com.example.tests")
            // Default content, never the extension's view, never hidden.
            #expect(delivery.presentation.view == nil, "round \(round)")
            #expect(delivery.presentation.defaultContent?.title == "Title", "round \(round)")
            #expect(delivery.diagnostics.containsError, "round \(round)")
        }
        let faults = bench.reported.filter { $0.code.rawValue == "worker.\(fault.kind)" }
        #expect(faults.count == 3, "\(bench.reported.map(\.description))")
        #expect(bench.reported.filter { $0.code == .workerQuarantined }.count == 1)
        #expect(bench.ledger.entries()[bench.faultyBundle]?.isQuarantined == true)
        #expect(bench.ledger.entries()[bench.faultyBundle]?.faults.map(\.kind) == Array(repeating: fault.kind, count: 3))
        bench.expectHealthyStillServes(host)
    }

    /// Memory exhaustion, as the other delivery faults. Not under a
    /// sanitizer: the worker's memory limit is then reached by the
    /// sanitizer's runtime (shadow memory, its allocator and quarantine) as
    /// often as by the extension, and the runtime then ends the process
    /// itself, with its own status: the fault is not told as memory.
    @Test(.disabled(if: Sanitizer.current != nil,
                    "a sanitizer's runtime shares the worker's memory limit and ends the process itself when it runs out"))
    func memoryFaultIsContainedAndQuarantined() throws {
        try deliveryFaultIsContainedAndQuarantined(Case(flag: "FAULT_MEMORY", kind: "memory"))
    }

    @Test(arguments: completionFaults)
    func completionFaultGoesToTheAppAndQuarantines(_ fault: Case) throws {
        let bench = try Bench(fault: fault.flag)
        let host = bench.host()
        for round in 0..<Self.rounds {
            _ = host.deliverOpened(notification("n\(round)", category: "faulty"), to: "com.example.tests")
            let outcome = try host.respond(to: "n\(round)", with: ResponseRequest(actionIdentifier: "go"))
            // Twice: the first completion (dismiss) counts, so nothing goes to the app but through
            // the quarantine; otherwise the app gets the action.
            let answered = fault.flag == "FAULT_COMPLETION_TWICE" && outcome.receiver == .extension
            #expect(outcome.forwarded.map(\.actionIdentifier) == (answered ? [] : ["go"]), "round \(round)")
            #expect(outcome.presentation.dismissed, "round \(round)")
        }
        let faults = bench.reported.filter { $0.code.rawValue == fault.kind }
        #expect(faults.count == 3, "\(bench.reported.map(\.description))")
        #expect(bench.reported.filter { $0.code == .workerQuarantined }.count == 1)
        #expect(bench.ledger.entries()[bench.faultyBundle]?.isQuarantined == true)
        // Quarantined: later notifications show their default content.
        let later = host.deliverOpened(notification("later", category: "faulty"), to: "com.example.tests")
        #expect(later.presentation.view == nil)
        #expect(later.diagnostics.map(\.code).contains(.workerQuarantined))
        bench.expectHealthyStillServes(host)
    }

    /// A response never completed ends at its deadline and goes to the app,
    /// every time, and is no fault: the bundle is never quarantined.
    @Test func aCompletionThatNeverComesIsNoFault() throws {
        let bench = try Bench(fault: "FAULT_COMPLETION_NEVER")
        let host = bench.host(responseDeadline: 0.05)
        for round in 0..<10 {
            _ = host.deliver(notification("n\(round)", category: "faulty"), to: "com.example.tests")
            let outcome = try host.respond(to: "n\(round)", with: ResponseRequest(actionIdentifier: "go"))
            #expect(outcome.diagnostics.map(\.code) == [.completionTimeout], "round \(round)")
            #expect(outcome.forwarded.map(\.actionIdentifier) == ["go"], "round \(round)")
            #expect(outcome.presentation.dismissed, "round \(round)")
        }
        #expect(bench.reported.isEmpty, "\(bench.reported.map(\.description))")
        #expect(bench.ledger.entries()[bench.faultyBundle] == nil)
        let later = host.deliver(notification("later", category: "faulty"), to: "com.example.tests", opening: true)
        #expect(later.presentation.view?.text(of: "state") == "ok")
    }

    @Test func outputIsContainedAndReportedWithoutFault() throws {
        let bench = try Bench(fault: "FAULT_STDOUT")
        let host = bench.host()
        for round in 0..<Self.rounds {
            let delivery = host.deliverOpened(notification("n\(round)", category: "faulty"), to: "com.example.tests")
            #expect(delivery.presentation.view?.text(of: "state") == "ok", "round \(round)")
            #expect(!delivery.diagnostics.containsError, "round \(round)")
        }
        #expect(bench.wait { $0.contains { $0.code == .workerOutput } })
        #expect(bench.reported.allSatisfy { $0.code == .workerOutput })
        let output = try #require(bench.reported.first)
        #expect(output.message.contains("standard output or standard error"))
        // What it wrote reaches no one's output: the forged line is only ever quoted, made printable.
        #expect(bench.reported.allSatisfy { !$0.message.hasPrefix("tidings serve:") })
        #expect(bench.ledger.entries()[bench.faultyBundle] == nil)
    }

    @Test func quarantineLiftsWhenTheLibraryChanges() throws {
        let bench = try Bench(fault: "FAULT_SEGV")
        let host = bench.host()
        for round in 0..<3 {
            _ = host.deliverOpened(notification("n\(round)", category: "faulty"), to: "com.example.tests")
        }
        #expect(bench.ledger.entries()[bench.faultyBundle]?.isQuarantined == true)
        // A host started later keeps the quarantine, without starting a worker.
        let second = bench.host()
        #expect(second.deliverOpened(notification("m", category: "faulty"), to: "com.example.tests").diagnostics.map(\.code)
            .contains(.workerQuarantined))
        // The fixed library replaces the faulty one: the quarantine lifts and the extension serves.
        try bench.replaceLibrary(withFault: nil)
        let fixed = host.deliverOpened(notification("fixed", category: "faulty"), to: "com.example.tests")
        #expect(fixed.presentation.view?.text(of: "state") == "ok")
        #expect(bench.ledger.entries()[bench.faultyBundle]?.isQuarantined == false)
    }

    @Test func faultsOfEarlierHostsCountTowardTheQuarantine() throws {
        // One-shot commands are hosts of one delivery each: the ledger carries their count.
        let bench = try Bench(fault: "FAULT_ABORT")
        for round in 0..<3 {
            _ = bench.host().deliverOpened(notification("n\(round)", category: "faulty"), to: "com.example.tests")
        }
        #expect(bench.ledger.entries()[bench.faultyBundle]?.faults.count == 3)
        #expect(bench.ledger.entries()[bench.faultyBundle]?.isQuarantined == true)
        #expect(bench.reported.filter { $0.code == .workerQuarantined }.count == 1)
    }

    @Test func faultOutsideAnyCallIsReportedAndRestarts() throws {
        // The worker of a response that never completes is killed from outside (by a signal the
        // host did not send): the pending response ends at once instead of waiting out its
        // deadline, and goes to the app.
        let bench = try Bench(fault: "FAULT_COMPLETION_NEVER")
        let host = bench.host(responseDeadline: 600)
        _ = host.deliverOpened(notification("n", category: "faulty"), to: "com.example.tests")
        let killer = Thread {
            // Once the extension is in its response handler (it says so in its view), its worker is killed.
            eventually { host.presentation(of: "n")?.view?.text(of: "state") == "responding" }
            for pid in bench.workerProcesses() { kill(pid, SIGKILL) }
        }
        killer.start()
        let outcome = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: "go"))
        // Abandoned as the worker ended, not timed out: the response deadline is ten minutes away.
        #expect(outcome.diagnostics.map(\.code).contains(.completionAbandoned), "\(outcome.diagnostics)")
        #expect(outcome.forwarded.map(\.actionIdentifier) == ["go"])
        #expect(bench.wait { $0.contains { $0.code.rawValue == "worker.killed" } })
    }

    @Test func aWorkerWaitingForItsRestartShowsDefaultContentAtOnce() throws {
        let bench = try Bench(fault: "FAULT_SEGV")
        let host = bench.host(initialBackoff: 3600)
        let first = host.deliverOpened(notification("first", category: "faulty"), to: "com.example.tests")
        #expect(first.diagnostics.map(\.code.rawValue).contains("worker.crash"))
        let during = host.deliverOpened(notification("during", category: "faulty"), to: "com.example.tests")
        #expect(during.presentation.view == nil)
        #expect(during.diagnostics.map(\.code) == [.workerRestarting], "\(during.diagnostics)")
        #expect(during.diagnostics.first?.message.contains("restarts in") == true)
        bench.expectHealthyStillServes(host)
    }

    @Test func inProcessHostContainsCompletionFaults() throws {
        for fault in Self.completionFaults + [Case(flag: "FAULT_COMPLETION_NEVER", kind: "response.completion-timeout")] {
            let bench = try Bench(fault: fault.flag)
            var configuration = NotificationHost.Configuration()
            configuration.responseDeadline = 0.1
            let host = Bench.registered(NotificationHost(index: bench.index(), configuration: configuration))
            _ = host.deliverOpened(notification("n", category: "faulty"), to: "com.example.tests")
            let outcome = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: "go"))
            #expect(outcome.forwarded.map(\.actionIdentifier) == (fault.flag == "FAULT_COMPLETION_TWICE" ? [] : ["go"]))
            #expect(outcome.presentation.dismissed)
            #expect(outcome.diagnostics.map(\.code.rawValue).contains(fault.kind))
        }
    }
}

/// A faulty bundle and a healthy one, a ledger, and what the host reported outside calls.
private final class Bench: @unchecked Sendable {
    let directory = TemporaryDirectory("faults")
    let ledger: FaultLedger
    private let lock = NSLock()
    private var diagnostics: [Diagnostic] = []

    /// Where the bundles are (the builds stay beside it).
    var bundles: String { directory.file("bundles") }
    var faultyBundle: String { bundles + "/Faulty.appex" }

    /// The name of this bench's worker executable, a copy of `tidings`:
    /// its workers' name (their comm) tells them from every other test's.
    let workerName = "tidings-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
    /// The copy's path.
    var workerExecutable: String { directory.file(workerName) }

    init(fault: String?) throws {
        ledger = FaultLedger(path: directory.file("state/faults.json"))
        try FileManager.default.copyItem(atPath: Locations.product("tidings"), toPath: directory.file(workerName))
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        try install("Faulty", identifier: "com.example.tests.faulty", category: "faulty", fault: fault)
        try install("Healthy", identifier: "com.example.tests.healthy", category: "healthy", fault: nil)
    }

    /// What the launcher reported outside the calls.
    var reported: [Diagnostic] { lock.lock(); defer { lock.unlock() }; return diagnostics }

    /// Waits for `condition` on the reports (see `eventually`).
    func wait(_ condition: ([Diagnostic]) -> Bool) -> Bool {
        eventually { condition(reported) }
    }

    func index() -> ExtensionIndex {
        Discovery.scan(SearchPath(directories: [bundles], origin: .option))
    }

    /// A host running every extension in a worker, with short limits and,
    /// unless told otherwise, no wait before a restart.
    func host(responseDeadline: Double = 0.2, initialBackoff: Double = 0) -> NotificationHost {
        var settings = WorkerSettings(executable: workerExecutable)
        // The CPU budget (0.2–0.4 s of CPU time) must run out well before the call timeout (wall
        // time) even on a loaded machine, or an endless loop is taken for a hang.
        settings.cpuTimePerCall = 0.2
        settings.callTimeout = 4
        settings.memoryLimit = 32 << 20
        settings.restarts.initialBackoff = initialBackoff
        var configuration = NotificationHost.Configuration()
        configuration.responseDeadline = responseDeadline
        let launcher = WorkerLauncher(settings: settings, ledger: ledger) { [weak self] diagnostic in
            guard let self else { return }
            lock.lock()
            diagnostics.append(diagnostic)
            lock.unlock()
        }
        return Self.registered(NotificationHost(index: index(), configuration: configuration, launcher: launcher))
    }

    /// `host`, with the categories of both bundles registered.
    static func registered(_ host: NotificationHost) -> NotificationHost {
        host.register([NotificationCategory(identifier: "faulty", actions: [NotificationAction(identifier: "go", title: "Go")]),
                       NotificationCategory(identifier: "healthy", actions: [])],
                      for: "com.example.tests")
        return host
    }

    /// Expects the healthy bundle still served in a worker, by the same host.
    func expectHealthyStillServes(_ host: NotificationHost, sourceLocation: SourceLocation = #_sourceLocation) {
        let delivery = host.deliverOpened(notification("healthy", category: "healthy"), to: "com.example.tests")
        #expect(delivery.presentation.view?.text(of: "state") == "ok", sourceLocation: sourceLocation)
        #expect(delivery.diagnostics.isEmpty, sourceLocation: sourceLocation)
    }

    /// Puts a build with `fault` (nil: none) in place of the faulty bundle's library.
    func replaceLibrary(withFault fault: String?) throws {
        let built = try CCompiler.fixture("Faulty", into: directory.path, output: "libReplacement.so",
                                          extraFlags: fault.map { ["-D\($0)"] } ?? [])
        let library = faultyBundle + "/libFaulty.so"
        try FileManager.default.removeItem(atPath: library)
        try FileManager.default.moveItem(atPath: built, toPath: library)
    }

    /// The pids of this bench's worker processes: the children named
    /// `workerName` of the test process's sandboxes' inits (its own
    /// children, copies of it that never ran another program). Not the
    /// workers of the tests that run beside this one, which a kill must
    /// not reach; nor the test process's other children: a compiler another
    /// suite runs meanwhile, or a `tidings serve`, whose sandboxes are its own.
    func workerProcesses() -> [Int32] {
        /// A process's parent and name (its comm), from /proc/PID/stat.
        func entry(_ pid: String) -> (parent: Int32, name: Substring)? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 ? Int32(fields[1]).map { ($0, stat[stat.index(after: open)..<close]) } : nil
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let processes = Dictionary(uniqueKeysWithValues: entries.compactMap { pid in
            Int32(pid).flatMap { number in entry(pid).map { (number, $0) } }
        })
        let children = processes.filter { $0.value.parent == getpid() && $0.value.name != "tidings" }
        let workers = processes.filter { children[$0.value.parent] != nil && $0.value.name == workerName }
        return workers.map(\.key)
    }

    private func install(_ name: String, identifier: String, category: String, fault: String?) throws {
        let library = try CCompiler.fixture("Faulty", into: directory.path, output: "lib\(name)Build.so",
                                            extraFlags: fault.map { ["-D\($0)"] } ?? [])
        let interface = try directory.write("""
            {"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "state"}]}}
            """, to: "\(name)Interface.json")
        let manifest = BundleMaker.contentManifest(identifier: identifier, executable: "libFaulty.so",
                                                   categories: [category], hidden: true, interface: "MainInterface")
        let renamed = directory.file("MainInterface.json")
        try? FileManager.default.removeItem(atPath: renamed)
        try FileManager.default.moveItem(atPath: interface, toPath: renamed)
        let bundleLibrary = directory.file("libFaulty.so")
        try? FileManager.default.removeItem(atPath: bundleLibrary)
        try FileManager.default.moveItem(atPath: library, toPath: bundleLibrary)
        try BundleMaker.make(name, in: bundles, manifest: manifest, library: bundleLibrary, resources: [renamed])
    }
}
