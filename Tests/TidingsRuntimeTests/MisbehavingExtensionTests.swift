import RuntimeTestSupport
import Foundation
import Testing
import TestSupport
import TidingsABI
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// Completions that never come, come twice, come late or carry nonsense, and
/// host calls that break the rules: handled and reported, never a crash or a hang.
@Suite struct MisbehavingExtensionTests {
    let fixture = Fixture()
    static let actions = ["dismiss-now", "stay", "forward", "never", "twice", "async", "late", "invalid", "again-later",
                          "dismiss-me", "open-app"]

    func host(deadline: Double = 0.2, overridesTitle: Bool = false) throws -> NotificationHost {
        try fixture.installMisbehaving(overridesTitle: overridesTitle)
        let host = fixture.host(deadline: deadline)
        host.register([NotificationCategory(identifier: "misbehave",
                                            actions: Self.actions.map { NotificationAction(identifier: $0, title: $0) })],
                      for: "com.example.tests")
        return host
    }

    func deliverAndRespond(_ action: String, host: NotificationHost) throws -> ResponseOutcome {
        _ = host.deliverOpened(notification("n", category: "misbehave"), to: "com.example.tests")
        return try host.respond(to: "n", with: ResponseRequest(actionIdentifier: action))
    }

    @Test func doNotDismissKeepsTheNotification() throws {
        let host = try host()
        let outcome = try deliverAndRespond("stay", host: host)
        #expect(outcome.option == .doNotDismiss)
        #expect(!outcome.presentation.dismissed)
        #expect(outcome.forwarded.isEmpty)
        #expect(host.presentation(of: "n") != nil)
    }

    @Test func dismissAndForwardTellsTheApp() throws {
        let outcome = try deliverAndRespond("forward", host: host())
        #expect(outcome.presentation.dismissed)
        #expect(outcome.forwarded.map(\.actionIdentifier) == ["forward"])
    }

    @Test func completionThatNeverComesTimesOutAndForwards() throws {
        let started = MonotonicClock.now()
        let outcome = try deliverAndRespond("never", host: host(deadline: 0.2))
        let waited = Double(MonotonicClock.now() - started) / 1e9
        #expect(outcome.option == nil)
        #expect(outcome.diagnostics.codes == ["response.completion-timeout"])
        #expect(outcome.presentation.dismissed)
        #expect(outcome.forwarded.map(\.actionIdentifier) == ["never"])  // the app still learns of it
        #expect(waited >= 0.2)
    }

    @Test func secondCompletionIsRefusedAndReported() throws {
        let outcome = try deliverAndRespond("twice", host: host())
        #expect(outcome.option == .dismiss)
        #expect(outcome.diagnostics.codes == ["response.completion-repeated"])
        // The extension saw OK, then INVALID_COMPLETION.
        #expect(outcome.presentation.view?.text(of: "count") == "\(TIDINGS_STATUS_OK) \(TIDINGS_STATUS_INVALID_COMPLETION)")
    }

    @Test func completionFromAnotherThreadWithinTheDeadlineCounts() throws {
        let outcome = try deliverAndRespond("async", host: host(deadline: 2))
        #expect(outcome.option == .dismiss)
        #expect(outcome.diagnostics.isEmpty)
    }

    /// The host lives on after the response (a host that is gone has nobody to report to).
    @Test func lateCompletionIsIgnoredAndReportedAsAnEvent() throws {
        try withExtendedLifetime(host(deadline: 0.1)) { host in
            let outcome = try deliverAndRespond("late", host: host)
            #expect(outcome.diagnostics.codes == ["response.completion-timeout"])
            // Its own event (extension.late-completion on a server), not a failure.
            try waitFor { fixture.events.lateCompletions.map(\.1.code) == [.completionLate] }
            #expect(fixture.events.lateCompletions.first?.0.notificationIdentifier == "n")
            #expect(fixture.events.diagnostics.isEmpty)
        }
    }

    @Test func repeatedCompletionAfterTheResponseIsReportedAsAnEvent() throws {
        try withExtendedLifetime(host(deadline: 2)) { host in
            let outcome = try deliverAndRespond("again-later", host: host)
            #expect(outcome.option == .dismiss)
            try waitFor { fixture.events.diagnostics.codes == ["response.completion-repeated"] }
        }
    }

    @Test func invalidOptionIsReportedAndForwarded() throws {
        let outcome = try deliverAndRespond("invalid", host: host())
        #expect(outcome.option == nil)
        #expect(outcome.diagnostics.codes == ["response.invalid-option"])
        #expect(outcome.presentation.dismissed)
        #expect(outcome.forwarded.count == 1)
    }

    @Test func extensionMayDismissItself() throws {
        let host = try host()
        let outcome = try deliverAndRespond("dismiss-me", host: host)
        #expect(outcome.option == .doNotDismiss)
        // dismissNotificationContentExtension closes the interface; the notification stays.
        #expect(!outcome.presentation.expanded && !outcome.presentation.dismissed)
        #expect(host.presentation(of: "n")?.expanded == false)
    }

    @Test func extensionMayPerformTheDefaultAction() throws {
        let host = try host()
        let outcome = try deliverAndRespond("open-app", host: host)
        #expect(outcome.forwarded.map(\.actionIdentifier) == [ActionIdentifier.default])
        #expect(host.presentation(of: "n") == nil)
    }

    @Test func misuseOfHostCallsIsReportedNotFatal() throws {
        let delivery = try host().deliverOpened(notification("n", category: "misbehave"), to: "com.example.tests")
        #expect(delivery.diagnostics.codes == ["view.no-such-element", "extension.title-not-permitted"])
        #expect(delivery.diagnostics.allSatisfy { $0.severity == .warning })
        #expect(delivery.presentation.header == "com.example.tests")  // the title was not allowed
        #expect(delivery.log.map(\.message) == ["received"])
        #expect(!delivery.extensionFailed)
    }

    @Test func titleOverrideIsHonouredWhenTheManifestAllowsIt() throws {
        let delivery = try host(overridesTitle: true).deliverOpened(notification("n", category: "misbehave"), to: "com.example.tests")
        #expect(delivery.presentation.header == "A title nobody allowed")
        #expect(delivery.diagnostics.codes == ["view.no-such-element"])
    }

    @Test func threadMatesDeliveredWhileOpenReachItsInstance() throws {
        let host = try host()
        let first = host.deliverOpened(notification("a", category: "misbehave", thread: "t"), to: "com.example.tests")
        _ = host.deliver(notification("b", category: "misbehave", thread: "t"), to: "com.example.tests")
        #expect(first.presentation.view?.text(of: "count") == "1")
        #expect(host.presentation(of: "a")?.view?.text(of: "count") == "2")  // the same instance, called again
        #expect(host.presentation(of: "b")?.view == nil)  // a banner
        let other = host.deliverOpened(notification("c", category: "misbehave", thread: "u"), to: "com.example.tests")
        #expect(other.presentation.view?.text(of: "count") == "1")  // another interface, another instance
    }

    @Test func theInstanceIsDestroyedWhenItsInterfaceCloses() throws {
        let host = try host()
        _ = host.deliverOpened(notification("a", category: "misbehave", thread: "t"), to: "com.example.tests")
        _ = host.deliver(notification("b", category: "misbehave", thread: "t"), to: "com.example.tests")
        _ = host.deliver(notification("c", category: "misbehave", thread: "t"), to: "com.example.tests")
        #expect(host.presentation(of: "a")?.view?.text(of: "count") == "3")
        _ = try host.respond(to: "a", with: ResponseRequest(actionIdentifier: "dismiss-now"))
        // Its interface closed with it: "b" opens a new instance, though "b" and "c" still show.
        let fresh = try host.open("b")
        #expect(fresh.presentation.view?.text(of: "count") == "1")
    }

    @Test func concurrentDeliveriesOfOneRequestLeaveOneInstance() async throws {
        let host = try host()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<50 { _ = host.deliverOpened(notification("same", category: "misbehave"), to: "com.example.tests") }
                }
            }
        }
        // "same" shows once; opening the probe closed its interface. Every other instance was destroyed.
        let probe = host.deliverOpened(notification("probe", category: "misbehave"), to: "com.example.tests")
        let counts = try #require(probe.presentation.view?.text(of: "instances"))
        let numbers = counts.split(separator: " ").compactMap { Int($0) }
        // How many instances were made depends on how the deliveries interleave (one delivered while
        // "same" is open goes to its open instance); that all but the probe's were destroyed does not.
        #expect(numbers.count == 2 && (2...201).contains(numbers[0]) && numbers[0] - numbers[1] == 1, "\(counts)")
    }

    @Test func staleContextIsRefusedNotFatal() throws {
        let library = try fixture.installMisbehaving()
        let host = fixture.host()
        host.register([NotificationCategory(identifier: "misbehave", actions: [NotificationAction(identifier: "dismiss-now", title: "x")])],
                      for: "com.example.tests")
        _ = host.deliverOpened(notification("n", category: "misbehave"), to: "com.example.tests")
        _ = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: "dismiss-now"))
        // The library the host loaded from the bundle, looked up again by its path.
        let bundled = fixture.directory.path + "/Misbehaving.appex/" + (library as NSString).lastPathComponent
        let handle = try #require(dlopen(bundled, RTLD_NOW | RTLD_NOLOAD))
        let call = unsafeBitCast(try #require(dlsym(handle, "misbehaving_stale_call")), to: (@convention(c) () -> Int32).self)
        #expect(call() == TIDINGS_STATUS_INVALID_CONTEXT)
    }

    @Test func mediaButtonTapsPlayThenPause() throws {
        let host = try host()
        let delivery = host.deliverOpened(notification("n", category: "misbehave"), to: "com.example.tests")
        let button = try #require(delivery.presentation.mediaButton)
        #expect(button.type == 2)
        #expect(button.tint?.description == "#FFFFFF")
        #expect(!delivery.presentation.mediaPlaying)
        let playing = try host.tapMediaButton(of: "n").presentation
        #expect(playing.mediaPlaying)
        #expect(playing.view?.text(of: "count") == "play")
        let paused = try host.tapMediaButton(of: "n").presentation
        #expect(!paused.mediaPlaying)
        #expect(paused.view?.text(of: "count") == "pause")
    }

    @Test func tappingWithoutAMediaButtonIsRefused() throws {
        try fixture.installEventInvite()
        let host = fixture.host()
        _ = host.deliverOpened(notification("n", category: "event-invite"), to: "com.example.events")
        let error = #expect(throws: Diagnostic.self) { try host.tapMediaButton(of: "n") }
        #expect(error?.code == .mediaNoButton)
    }

    @Test func unknownCompletionTokenIsRefused() {
        #expect(HostFunctions.table(callRate: .standard).pointer.pointee.complete_response(UInt64.max, 1) == TIDINGS_STATUS_INVALID_COMPLETION)
    }

    /// Waits for `condition`, which another thread makes true (see `eventually`).
    private func waitFor(_ condition: () -> Bool) throws {
        let held = eventually(condition)
        try #require(held, "the condition did not hold")
    }
}
