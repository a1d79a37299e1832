import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsRuntime

/// When the host makes, reuses and destroys extension instances: one per
/// thread while any notification of the thread shows, one per notification
/// without a thread, a new one when a notification replaces another.
@Suite struct InstanceLifetimeTests {
    let fixture = Fixture()
    static let app = "com.example.tests"

    /// A host serving the Echo fixture, which logs "created=N" for each instance it makes.
    func host() throws -> NotificationHost {
        let library = try CCompiler.fixture("Echo", into: fixture.directory.path)
        let manifest = BundleMaker.contentManifest(identifier: "com.example.tests.echo", executable: "libEcho.so",
                                                   categories: ["echo"])
        try BundleMaker.make("Echo", in: fixture.directory.path, manifest: manifest, library: library)
        return fixture.host()
    }

    /// Delivers `identifier` and tells whether a new instance was made for it.
    func deliver(_ identifier: String, thread: String, to host: NotificationHost) -> Bool {
        let delivery = host.deliver(notification(identifier, category: "echo", thread: thread), to: Self.app)
        #expect(delivery.diagnostics.isEmpty)
        return delivery.log.contains { $0.message.hasPrefix("created=") }
    }

    /// Dismisses `identifier` (the category has no customDismissAction, so the presentation just closes).
    func dismiss(_ identifier: String, in host: NotificationHost) throws {
        let outcome = try host.respond(to: identifier, with: ResponseRequest(actionIdentifier: ActionIdentifier.dismiss))
        #expect(outcome.presentation.dismissed)
    }

    @Test func aThreadSharesOneInstanceWhileAnyOfItShows() throws {
        let host = try host()
        #expect(deliver("a", thread: "t", to: host))
        #expect(!deliver("b", thread: "t", to: host))
        // Replacing "a" retires it, but "b" still shows the instance.
        #expect(!deliver("a", thread: "t", to: host))
        try dismiss("a", in: host)
        #expect(!deliver("c", thread: "t", to: host))
        try dismiss("b", in: host)
        try dismiss("c", in: host)
        // Nothing of the thread shows: the instance is gone, the next one is new.
        #expect(deliver("d", thread: "t", to: host))
        #expect(host.presentedIdentifiers == ["d"])
    }

    @Test func notificationsWithoutAThreadGetAnInstanceEach() throws {
        let host = try host()
        #expect(deliver("a", thread: "", to: host))
        #expect(deliver("b", thread: "", to: host))
        // The same request identifier replaces the presentation, and its instance.
        #expect(deliver("a", thread: "", to: host))
        #expect(host.presentedIdentifiers == ["a", "b"])
    }

    @Test func threadsAreSeparate() throws {
        let host = try host()
        #expect(deliver("a", thread: "t", to: host))
        #expect(deliver("b", thread: "u", to: host))
        // A notification moving to another thread leaves its old thread's instance behind.
        #expect(deliver("a", thread: "u", to: host) == false)
        #expect(deliver("c", thread: "t", to: host))
    }

    /// Deliveries and dismissals from several threads at once, sharing
    /// notification threads (each worker its own request identifiers):
    /// whatever interleaving, once everything is dismissed no instance is
    /// left behind, and the host still serves.
    @Test func concurrentDeliveriesLeaveNoInstanceBehind() async throws {
        let host = try host()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<150 {
                        let identifier = "w\(worker)-\(round % 5)"
                        let thread = ["", "t", "u"][(worker + round) % 3]
                        let delivery = host.deliver(notification(identifier, category: "echo", thread: thread), to: Self.app)
                        #expect(delivery.presentation.notification.identifier == identifier)
                        if round % 4 == 3 {
                            _ = try? host.respond(to: identifier, with: ResponseRequest(actionIdentifier: ActionIdentifier.dismiss))
                        }
                    }
                }
            }
        }
        for identifier in host.presentedIdentifiers { try dismiss(identifier, in: host) }
        #expect(host.presentedIdentifiers.isEmpty)
        #expect(deliver("t-again", thread: "t", to: host))
        #expect(deliver("u-again", thread: "u", to: host))
        #expect(!deliver("t-more", thread: "t", to: host))
    }
}
