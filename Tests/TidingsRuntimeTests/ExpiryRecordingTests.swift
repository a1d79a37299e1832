import RuntimeTestSupport
import Synchronization
import Testing
import TidingsBase
import TidingsProtocol
import TidingsRegistry
import TidingsRuntime

/// The cap on notifications kept, on a host whose changes are journaled:
/// expiring the oldest is a change like a dismissal, recorded (through
/// `onDismissal`) before the notification leaves; when its record cannot
/// be written, the notification stays, and the delivery says why.
@Suite struct ExpiryRecordingTests {
    /// A journal of dismissals that can be made to refuse its records.
    final class Journal: Sendable {
        /// The identifiers whose dismissal was recorded, in order.
        let recorded = Mutex<[String]>([])
        /// True while records cannot be written (a full disk).
        let refusing = Atomic<Bool>(false)

        /// Records the dismissal of `identifier`, or says why it cannot.
        func record(_ identifier: String) -> Diagnostic? {
            if refusing.load(ordering: .acquiring) { return ExpiryRecordingTests.refusal }
            recorded.withLock { $0.append(identifier) }
            return nil
        }

        /// What was recorded so far.
        var identifiers: [String] { recorded.withLock { $0 } }
    }

    let fixture = Fixture()
    let journal = Journal()
    /// What a record that cannot be written answers.
    static let refusal = Diagnostic.error(.init("test.unwritten"), "The record could not be written.")

    /// A host keeping at most `limit` notifications, recording into `journal`.
    func host(keeping limit: Int) -> NotificationHost {
        var configuration = NotificationHost.Configuration()
        configuration.deliveredLimit = limit
        let (events, journal) = (fixture.events, journal)
        return NotificationHost(index: Discovery.scan(SearchPath(directories: [fixture.directory.path], origin: .option)),
                                configuration: configuration, onEvent: { events.append($0) },
                                onDismissal: { journal.record($0.identifier) })
    }

    /// A notification no extension serves.
    func deliver(_ identifier: String, to host: NotificationHost) -> Delivery {
        host.deliver(notification(identifier, category: "story"), to: "com.example.news")
    }

    @Test func theOldestExpiresOnlyOnceItsDismissalIsRecorded() {
        let host = host(keeping: 2)
        _ = deliver("n1", to: host)
        _ = deliver("n2", to: host)
        #expect(journal.identifiers.isEmpty)

        // The record cannot be written: n1 stays, beyond the limit, and the delivery says why.
        journal.refusing.store(true, ordering: .releasing)
        let refused = deliver("n3", to: host)
        #expect(refused.diagnostics.contains { $0.code == Self.refusal.code })
        #expect(host.delivered().map(\.notification.identifier) == ["n1", "n2", "n3"])
        #expect(fixture.events.dismissals.isEmpty)

        // Writing works again: the next delivery expires both, oldest first, each recorded.
        journal.refusing.store(false, ordering: .releasing)
        let made = deliver("n4", to: host)
        #expect(!made.diagnostics.contains { $0.code == Self.refusal.code })
        #expect(journal.identifiers == ["n1", "n2"])
        #expect(host.delivered().map(\.notification.identifier) == ["n3", "n4"])
        #expect(fixture.events.dismissals.map(\.0) == ["n1", "n2"])
        #expect(fixture.events.dismissals.map(\.1) == [.expired, .expired])
    }

    /// A journaled delivery at the limit: the oldest's dismissal is
    /// recorded with the delivery, as one change, and not again through
    /// `onDismissal`; when that record cannot be written, neither happens.
    @Test func aJournaledDeliveryRecordsTheOldestItExpiresWithItself() {
        let host = host(keeping: 2)
        let records = Mutex<[(String, [String])]>([])
        let refusing = Atomic<Bool>(false)
        func deliver(_ identifier: String) -> Diagnostic? {
            do throws(Diagnostic) {
                _ = try host.deliver(notification(identifier, category: "story"), to: "com.example.news") {
                    (made: UserNotification, _: Double, expiring: [NotificationKey]) throws(Diagnostic) in
                    if refusing.load(ordering: .acquiring) { throw Self.refusal }
                    records.withLock { $0.append((made.identifier, expiring.map(\.identifier))) }
                }
                return nil
            } catch {
                return error
            }
        }
        #expect(deliver("n1") == nil)
        #expect(deliver("n2") == nil)
        #expect(deliver("n3") == nil)
        #expect(records.withLock { $0.map(\.0) } == ["n1", "n2", "n3"])
        #expect(records.withLock { $0.map(\.1) } == [[], [], ["n1"]])
        #expect(journal.identifiers.isEmpty)
        #expect(host.delivered().map(\.notification.identifier) == ["n2", "n3"])
        #expect(fixture.events.dismissals.map(\.0) == ["n1"])
        #expect(fixture.events.dismissals.map(\.1) == [.expired])

        // Replacing one makes no room.
        #expect(deliver("n3") == nil)
        #expect(records.withLock { $0.last?.1 } == [])
        #expect(host.delivered().map(\.notification.identifier) == ["n2", "n3"])
        #expect(fixture.events.dismissals.map(\.1) == [.expired, .replaced])

        // The record refused: nothing delivered, nothing expired.
        refusing.store(true, ordering: .releasing)
        #expect(deliver("n4")?.code == Self.refusal.code)
        #expect(host.delivered().map(\.notification.identifier) == ["n2", "n3"])
        #expect(fixture.events.dismissals.map(\.0) == ["n1", "n3"])
    }

    @Test func aRestoredNotificationBeyondTheLimitExpiresRecorded() {
        let host = host(keeping: 1)
        host.restore(notification("kept-1", category: "story"), to: "com.example.news", width: 360)
        host.restore(notification("kept-2", category: "story"), to: "com.example.news", width: 360)
        #expect(journal.identifiers == ["kept-1"])
        #expect(host.presentedIdentifiers == ["kept-2"])
    }
}
