import Foundation
import RuntimeTestSupport
import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation
import TidingsProtocol
import TidingsRuntime

/// Completion as a contract, not a trap: past the response deadline the host
/// applies dismissAndForwardAction, and a completion that comes later is
/// reported and is no fault; only misuse of a token counts toward the
/// quarantine, once per token. Against the Misbehaving fixture, whose "hold"
/// keeps a response's completion until another response's "release", in
/// this process and in a worker.
@Suite(.serialized) struct CompletionContractTests {
    static let app = "com.example.tests"
    let fixture = Fixture()
    let ledger: FaultLedger
    /// What the worker launcher reported outside calls: faults, restarts, the quarantine.
    let reported = EventLog()

    init() throws {
        // "hold" and "release" pass a completion between instances through
        // the fixture's globals: its interfaces share one worker.
        try fixture.installMisbehaving(sharedWorker: true)
        ledger = FaultLedger(path: fixture.directory.file("state/faults.json"))
    }

    /// A host running the fixture as `mode` says, its response deadline
    /// `deadline` seconds by `clock`, faults recorded in the test's ledger.
    func host(_ mode: IsolationMode, deadline: Double = NotificationHost.Configuration.defaultResponseDeadline,
              clock: DeadlineClock = .monotonic) -> NotificationHost {
        var configuration = NotificationHost.Configuration()
        configuration.responseDeadline = deadline
        configuration.clock = clock
        let reported = self.reported
        let launcher: any ExtensionLauncher = mode == .worker
            ? WorkerLauncher(settings: IsolationMode.workerSettings, ledger: ledger) { reported.append(.diagnostic($0, app: nil)) }
            : InProcessLauncher()
        let host = fixture.host(configuration: configuration, launcher: launcher)
        host.register([NotificationCategory(identifier: "misbehave", actions: [
            NotificationAction(identifier: "hold", title: "Hold"),
            NotificationAction(identifier: "release", title: "Release"),
            NotificationAction(identifier: "abuse-token", title: "Abuse"),
        ])], for: Self.app)
        return host
    }

    /// Delivers `identifier` in a thread of its own and opens its interface (an instance of its own).
    func deliver(_ identifier: String, to host: NotificationHost) {
        let delivery = host.deliver(notification(identifier, category: "misbehave", thread: identifier), to: Self.app,
                                    opening: true)
        #expect(delivery.presentation.view != nil, "\(delivery.diagnostics.map(\.description))")
    }

    /// The fixture's label "count" of `identifier`.
    func count(_ identifier: String, in host: NotificationHost) -> String? {
        host.presentation(of: identifier)?.view?.text(of: "count")
    }

    /// Waits for `condition`, which another thread makes true (see `eventually`).
    func waitFor(_ condition: () -> Bool) -> Bool {
        eventually(condition)
    }

    /// Faults the ledger holds for the fixture's bundle, and whether it is quarantined.
    var ledgerEntry: FaultLedger.Entry? {
        ledger.entries()[fixture.directory.path + "/Misbehaving.appex"]
    }

    /// Five responses whose completion comes after the deadline: each is
    /// closed and forwarded at the deadline, each late completion is reported
    /// (on the event, with app, notification and extension), none is a
    /// fault, and the extension keeps serving.
    @Test(arguments: IsolationMode.allCases)
    func lateCompletionsAreReportedAndNeverQuarantine(_ mode: IsolationMode) throws {
        let host = host(mode, deadline: 0.1)
        deliver("keeper", to: host)
        for round in 0..<5 {
            deliver("n\(round)", to: host)
            let outcome = try host.respond(to: "n\(round)", with: ResponseRequest(actionIdentifier: "hold"))
            #expect(outcome.diagnostics.map(\.code) == [.completionTimeout], "round \(round)")
            #expect(outcome.diagnostics.first?.message.contains("applied dismissAndForwardAction") == true)
            #expect(outcome.forwarded.map(\.actionIdentifier) == ["hold"], "round \(round)")
            #expect(outcome.presentation.dismissed, "round \(round)")
            // The held completion comes now, well after the deadline: refused, and reported.
            let released = try host.respond(to: "keeper", with: ResponseRequest(actionIdentifier: "release"))
            #expect(released.presentation.view?.text(of: "count") == "released 7", "round \(round)")
            #expect(fixture.events.wait { $0.lateCompletions.count == round + 1 }, "round \(round)")
        }
        let late = fixture.events.lateCompletions
        #expect(late.map(\.0.notificationIdentifier) == (0..<5).map { "n\($0)" })
        #expect(late.allSatisfy { $0.0.app == Self.app && $0.0.extensionIdentifier == "com.example.tests.misbehaving" })
        #expect(late.allSatisfy { $0.1.code == .completionLate && $0.1.severity == .warning })
        // No fault: nothing counted, nothing recorded, and the extension still serves.
        #expect(reported.diagnostics.isEmpty, "\(reported.diagnostics.map(\.description))")
        #expect(ledgerEntry == nil)
        deliver("after", to: host)
    }

    /// The done-when: a completion 20 s after its response (by a clock the
    /// test moves forward) is on time under the default deadline, the
    /// response's answer, and no fault. Meanwhile the waiting response holds
    /// back no other: the release comes through another notification's
    /// response, which could not run if the first one blocked it.
    @Test(arguments: IsolationMode.allCases)
    func aCompletionTwentySecondsLaterIsOnTimeAndBlocksNothing(_ mode: IsolationMode) throws {
        let time = TestClock()
        let host = host(mode, clock: time.clock)
        deliver("slow", to: host)
        deliver("other", to: host)
        let answered = Latch()
        let outcome = Answer()
        Thread.detachNewThread {
            outcome.value.withLock { $0 = try? host.respond(to: "slow", with: ResponseRequest(actionIdentifier: "hold")) }
            answered.open()
        }
        #expect(waitFor { count("slow", in: host) == "holding" })
        time.advance(seconds: 20)
        // Another notification is delivered and responded to while "slow" waits for its completion.
        deliver("third", to: host)
        let released = try host.respond(to: "other", with: ResponseRequest(actionIdentifier: "release"))
        #expect(released.presentation.view?.text(of: "count") == "released 0", "\(released.diagnostics.map(\.description))")
        #expect(answered.wait(until: MonotonicClock.deadline(after: patience)))
        let slow = try #require(outcome.value.withLock { $0 })
        #expect(slow.option == .dismiss)
        // The response opened "slow" again ("other" had closed it): only the
        // fixture's own misuse of its view is reported, nothing of the completion.
        #expect(slow.diagnostics.allSatisfy { ["view.no-such-element", "extension.title-not-permitted"].contains($0.code.rawValue) },
                "\(slow.diagnostics.map(\.description))")
        #expect(slow.forwarded.isEmpty)
        #expect(fixture.events.lateCompletions.isEmpty)
        #expect(reported.diagnostics.isEmpty)
        #expect(ledgerEntry == nil)
    }

    /// Every misuse of one token (the wrong function, another instance, an
    /// undefined option, a second call) is reported and counts as one fault;
    /// in a worker, three misused tokens quarantine the bundle.
    @Test(arguments: IsolationMode.allCases)
    func misuseCountsOncePerTokenAndQuarantinesAtTheThreshold(_ mode: IsolationMode) throws {
        let host = host(mode)
        deliver("neighbour", to: host)
        for round in 0..<3 {
            deliver("n\(round)", to: host)
            let outcome = try host.respond(to: "n\(round)", with: ResponseRequest(actionIdentifier: "abuse-token"))
            #expect(outcome.diagnostics.map(\.code) == [.completionWrongKind, .completionWrongInstance,
                                                        .completionInvalidOption, .completionRepeated],
                    "round \(round): \(outcome.diagnostics.map(\.description))")
            // Option 7 is the answer, taken as dismissAndForwardAction.
            #expect(outcome.forwarded.map(\.actionIdentifier) == ["abuse-token"])
            #expect(outcome.presentation.view?.text(of: "count") == "7 7 0 7", "round \(round)")
            guard mode == .worker else { continue }
            // One fault per token, however many calls misused it.
            #expect(ledgerEntry?.faults.map(\.kind) == Array(repeating: "completion", count: round + 1), "round \(round)")
            #expect(ledgerEntry?.isQuarantined == (round == 2), "round \(round)")
        }
        guard mode == .worker else { return }
        #expect(reported.diagnostics.filter { $0.code == .workerQuarantined }.count == 1)
        let later = host.deliver(notification("later", category: "misbehave", thread: "later"), to: Self.app,
                                 opening: true)
        #expect(later.presentation.view == nil)
        #expect(later.diagnostics.map(\.code).contains(.workerQuarantined))
    }
}

/// A response's outcome, handed from the thread that waited for it.
private final class Answer: Sendable {
    let value = Mutex<ResponseOutcome?>(nil)
}
