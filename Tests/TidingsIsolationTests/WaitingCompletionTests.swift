import RuntimeTestSupport
import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation
import TidingsProtocol
import TidingsRuntime

/// A waiting completion holds no thread: many responses wait on their
/// extension's completion at once (the Misbehaving fixture's "park" keeps
/// each until an "unpark", "never" keeps it for ever), each returns at once
/// after its handler's call, the process has no more threads for them, and
/// each is answered exactly once: at its completion, or at its deadline (by
/// a clock the test moves forward).
@Suite(.serialized) struct WaitingCompletionTests {
    static let app = "com.example.tests"
    /// How many responses wait at once.
    static let waiting = 200
    /// More threads than these with all of them waiting would be a thread for every fourth wait or
    /// more (a thread per wait is 200): beside the deadline timer and the finishing thread (alone,
    /// the count grows by one), the count is the whole process's, and in a full run the suites
    /// beside this one start threads meanwhile (12 once, in a fresh-clone CI run).
    static let spareThreads = waiting / 4
    let fixture = Fixture()

    init() throws {
        try fixture.installMisbehaving(sharedWorker: true)
    }

    /// A host running the fixture as `mode` says, its deadlines by `clock`.
    func host(_ mode: IsolationMode, clock: DeadlineClock) -> NotificationHost {
        var configuration = NotificationHost.Configuration()
        configuration.responseDeadline = 600
        configuration.clock = clock
        let launcher: any ExtensionLauncher = mode == .worker
            ? WorkerLauncher(settings: IsolationMode.workerSettings, ledger: nil) { _ in }
            : InProcessLauncher()
        let host = fixture.host(configuration: configuration, launcher: launcher)
        host.register([NotificationCategory(identifier: "misbehave", actions: [
            NotificationAction(identifier: "park", title: "Park"),
            NotificationAction(identifier: "unpark", title: "Unpark"),
            NotificationAction(identifier: "never", title: "Never"),
            NotificationAction(identifier: "stay", title: "Stay"),
        ])], for: Self.app)
        return host
    }

    /// The process's threads now.
    var threads: Int {
        Int(ProcessStatus(of: "self")?.numbers("Threads").first ?? 0)
    }

    @Test(arguments: IsolationMode.allCases)
    func manyWaitingResponsesHoldNoThreadAndEachIsAnsweredOnce(_ mode: IsolationMode) throws {
        let time = TestClock()
        let host = host(mode, clock: time.clock)
        for number in 0..<Self.waiting {
            _ = host.deliver(notification("n\(number)", category: "misbehave", thread: "n\(number)"), to: Self.app)
        }
        _ = host.deliver(notification("keeper", category: "misbehave", thread: "keeper"), to: Self.app)
        // The extension started (its worker and reader too) before the count.
        let warm = try host.respond(to: "keeper", with: ResponseRequest(actionIdentifier: "stay"))
        #expect(warm.option == .doNotDismiss)
        let before = threads

        let outcomes = Mutex<[String: [ResponseOutcome]]>([:])
        for number in 0..<Self.waiting {
            let identifier = "n\(number)"
            host.respond(to: identifier, with: ResponseRequest(actionIdentifier: number.isMultiple(of: 2) ? "park" : "never")) {
                outcome in
                let outcome = try? outcome.get()
                outcomes.withLock { $0[identifier, default: []] += outcome.map { [$0] } ?? [] }
            }
        }
        // Every response has returned, none answered, and no thread waits for one.
        #expect(outcomes.withLock { $0.isEmpty })
        #expect(threads <= before + Self.spareThreads, "\(threads) threads with \(Self.waiting) waiting, \(before) before")

        // The parked half is completed (through another notification's response): each answered, at once.
        let unparked = try host.respond(to: "keeper", with: ResponseRequest(actionIdentifier: "unpark"))
        #expect(unparked.presentation.view?.text(of: "count") == "unparked \(Self.waiting / 2)")
        #expect(eventually { outcomes.withLock { $0.count } == Self.waiting / 2 })
        let completed = outcomes.withLock { $0 }
        #expect(completed.keys.allSatisfy { Int($0.dropFirst())!.isMultiple(of: 2) })
        #expect(completed.values.allSatisfy { $0.count == 1 && $0[0].option == .dismiss && $0[0].presentation.dismissed })

        // The other half meets its deadline: each closed and forwarded, once.
        time.advance(seconds: 601)
        #expect(eventually { outcomes.withLock { $0.count } == Self.waiting })
        let timedOut = outcomes.withLock { $0 }.filter { !Int($0.key.dropFirst())!.isMultiple(of: 2) }
        #expect(timedOut.count == Self.waiting / 2)
        #expect(timedOut.values.allSatisfy { outcomes in
            outcomes.count == 1 && outcomes[0].option == nil && outcomes[0].forwarded.map(\.actionIdentifier) == ["never"]
                && outcomes[0].diagnostics.contains { $0.code == .completionTimeout }
        })
        #expect(outcomes.withLock { $0.values.allSatisfy { $0.count == 1 } })
        #expect(host.presentedIdentifiers == ["keeper"])
    }
}
