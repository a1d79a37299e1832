import RuntimeTestSupport
import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// A response to a notification whose interface is closed opens it first;
/// a thread-mate delivered while it is open reaches its instance, which ends
/// when the interface closes. Deliveries and responses racing on one thread
/// (a new chat message arriving while the user answers the last), each
/// response opening its own notification's interface and so closing
/// another's, must neither reach a destroyed instance nor another one.
/// Before the fix, a delivery could find the thread's instance while a
/// response released it (`extension.create-failed: The instance … was
/// already destroyed`), and a response whose interface another response
/// closed as it opened went to the app unanswered.
@Suite(.serialized) struct SharedInstanceRaceTests {
    let fixture = Fixture()

    init() throws {
        try fixture.installLedger()
    }

    /// What went wrong, collected from every client.
    final class Tally: Sendable {
        private let found = Mutex<(misrouted: [String], fallbacks: [String])>(([], []))

        /// A response that did not reach, or was not seen by, the instance of its notification.
        func misrouted(_ what: String) { found.withLock { $0.misrouted.append(what) } }
        /// A delivery shown with default content instead of its extension's view.
        func fellBack(_ what: String) { found.withLock { $0.fallbacks.append(what) } }

        var misroutedResponses: [String] { found.withLock { $0.misrouted } }
        var fallbacks: [String] { found.withLock { $0.fallbacks } }
    }

    /// Four clients, 600 deliver/respond pairs each, all on thread "chat":
    /// interfaces are opened, given thread-mates and closed over and over
    /// while the others deliver and respond. Every delivery is shown, every
    /// response reaches the instance that received its notification (the
    /// Ledger fixture forwards a response it never saw the notification of,
    /// which the outcome's option tells).
    @Test(arguments: IsolationMode.allCases)
    func deliveriesAndResponsesOnOneThreadReachTheirInstance(_ mode: IsolationMode) {
        let host = fixture.host(configuration: NotificationHost.Configuration(), launcher: mode.launcher())
        host.register([NotificationCategory(identifier: LedgerFixture.category, actions: [
            NotificationAction(identifier: "close", title: "Close"),
        ])], for: LedgerFixture.app)
        let tally = Tally()
        onThreads(4) { client in
            for pair in 0..<600 {
                let identifier = "c\(client)-\(pair)"
                let delivery = host.deliver(notification(identifier, category: LedgerFixture.category, thread: "chat"),
                                            to: LedgerFixture.app)
                if delivery.presentation.extensionIdentifier == nil || delivery.diagnostics.containsError {
                    tally.fellBack("\(identifier): \(delivery.diagnostics.map(\.description))")
                }
                do {
                    let outcome = try host.respond(to: identifier, with: ResponseRequest(actionIdentifier: "close"))
                    if outcome.receiver != .extension || outcome.option != .dismiss || outcome.diagnostics.containsError {
                        tally.misrouted("\(identifier): \(outcome.receiver) \(outcome.option.map { "\($0)" } ?? "no answer") "
                                        + "\(outcome.diagnostics.map(\.description))")
                    }
                } catch {
                    tally.misrouted("\(identifier): \(error)")
                }
            }
        }
        #expect(tally.misroutedResponses.isEmpty,
                "\(tally.misroutedResponses.count) of 2400 misrouted: \(tally.misroutedResponses.prefix(3))")
        #expect(tally.fallbacks.isEmpty, "\(tally.fallbacks.count) of 2400 fell back: \(tally.fallbacks.prefix(3))")
        #expect(host.presentedIdentifiers.isEmpty)
    }
}
