import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// When the host makes, reuses and destroys extension instances: none at
/// delivery; one for the expanded interface open, made when it opens, given
/// the thread-mates delivered while it is open, destroyed when it closes.
@Suite struct InstanceLifetimeTests {
    let fixture = Fixture()
    static let app = "com.example.tests"

    /// A host serving the Echo fixture, which logs "created=N" for each
    /// instance it makes and the identifier of each notification it receives,
    /// counting the calls into it with `counter`.
    func host(counting counter: CountingLauncher = CountingLauncher(InProcessLauncher())) throws -> NotificationHost {
        let library = try CCompiler.fixture("Echo", into: fixture.directory.path)
        let manifest = BundleMaker.contentManifest(identifier: "com.example.tests.echo", executable: "libEcho.so",
                                                   categories: ["echo"])
        try BundleMaker.make("Echo", in: fixture.directory.path, manifest: manifest, library: library)
        return fixture.host(configuration: NotificationHost.Configuration(), launcher: counter)
    }

    /// Delivers `identifier` and returns what the extension logged meanwhile.
    func deliver(_ identifier: String, thread: String, to host: NotificationHost) -> [String] {
        let delivery = host.deliver(notification(identifier, category: "echo", thread: thread), to: Self.app)
        #expect(delivery.diagnostics.isEmpty)
        return delivery.log.map(\.message)
    }

    /// Opens `identifier` and tells whether a new instance was made for it.
    func open(_ identifier: String, in host: NotificationHost) throws -> Bool {
        let opened = try host.open(identifier)
        #expect(opened.diagnostics.isEmpty && opened.presentation.expanded)
        return opened.log.contains { $0.message.hasPrefix("created=") }
    }

    @Test func theOpenInterfaceGetsItsThreadMates() throws {
        let host = try host()
        #expect(deliver("a", thread: "t", to: host).isEmpty)
        #expect(try open("a", in: host))
        #expect(deliver("b", thread: "t", to: host).contains("identifier=b"))
        // Another thread, or no thread, reaches no instance.
        #expect(deliver("c", thread: "u", to: host).isEmpty)
        #expect(deliver("d", thread: "", to: host).isEmpty)
        _ = try host.close("a")
        #expect(deliver("e", thread: "t", to: host).isEmpty)
        // Opening again makes a new instance.
        #expect(try open("a", in: host))
        #expect(try !open("a", in: host))
    }

    @Test func replacingTheOpenNotificationClosesItsInterface() throws {
        let host = try host()
        _ = deliver("a", thread: "t", to: host)
        #expect(try open("a", in: host))
        // The same request identifier replaces the notification, and closes its interface.
        #expect(deliver("a", thread: "t", to: host).isEmpty)
        #expect(host.presentation(of: "a")?.expanded == false)
        #expect(try open("a", in: host))
        #expect(host.presentedIdentifiers == ["a"])
    }

    /// A host as `host(counting:)` whose category "echo" offers "go".
    func hostWithAction(counting counter: CountingLauncher) throws -> NotificationHost {
        let host = try host(counting: counter)
        host.register([NotificationCategory(identifier: "echo", actions: [NotificationAction(identifier: "go", title: "Go")])],
                      for: Self.app)
        return host
    }

    @Test func aResponseToTheThreadMateTheOpenInterfaceShowsIsServedByItsInstance() throws {
        let counter = CountingLauncher(InProcessLauncher())
        let host = try hostWithAction(counting: counter)
        _ = deliver("a", thread: "t", to: host)
        #expect(try open("a", in: host))
        #expect(deliver("b", thread: "t", to: host).contains("identifier=b"))
        let before = counter.counts
        // The open instance shows "b" already: the response goes to it, with no instance made or destroyed.
        let outcome = try host.respond(to: "b", with: ResponseRequest(actionIdentifier: "go"))
        #expect(outcome.receiver == .extension && outcome.option == .doNotDismiss)
        #expect(!outcome.log.contains { $0.message.hasPrefix("created=") })
        #expect(outcome.log.contains { $0.message == "action=go" })
        let after = counter.counts
        #expect(after.instances == before.instances && after.destroyed == before.destroyed)
        #expect(after.notifications == before.notifications)
        // The interface is "b"'s now; "a" is a banner.
        #expect(outcome.presentation.expanded && outcome.presentation.notification.identifier == "b")
        #expect(host.presentation(of: "a")?.expanded == false)
        #expect(host.presentation(of: "b")?.expanded == true)
        // Its next thread-mate still reaches the same instance.
        #expect(deliver("c", thread: "t", to: host).contains("identifier=c"))
        #expect(counter.counts.live == 1)
    }

    @Test func openingAThreadMateTheOpenInstanceHasNotShownMakesANewInstance() throws {
        let counter = CountingLauncher(InProcessLauncher())
        let host = try hostWithAction(counting: counter)
        _ = deliver("a", thread: "t", to: host)
        _ = deliver("b", thread: "t", to: host)
        #expect(try open("b", in: host))
        #expect(deliver("c", thread: "t", to: host).contains("identifier=c"))
        // "a" came before the interface opened, and "b" is not the last the instance was given: each opens anew.
        #expect(try open("a", in: host))
        #expect(counter.counts.destroyed == 1)
        #expect(try open("b", in: host))
        #expect(counter.counts.destroyed == 2 && counter.counts.live == 1)
        // Opening the one it was given last, a thread-mate of the open one's, moves the interface to it.
        #expect(deliver("d", thread: "t", to: host).contains("identifier=d"))
        #expect(try !open("d", in: host))
        #expect(counter.counts.destroyed == 2 && counter.counts.live == 1)
        #expect(host.presentation(of: "b")?.expanded == false)
    }

    /// Deliveries, openings and dismissals from several threads at once,
    /// sharing notification threads: whatever interleaving, at most one
    /// instance lives, none once everything is dismissed, and the host still serves.
    @Test func concurrentOpeningsLeaveNoInstanceBehind() async throws {
        let counter = CountingLauncher(InProcessLauncher())
        let host = try host(counting: counter)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<150 {
                        let identifier = "w\(worker)-\(round % 5)"
                        let thread = ["", "t", "u"][(worker + round) % 3]
                        let delivery = host.deliver(notification(identifier, category: "echo", thread: thread),
                                                    to: Self.app, opening: round % 2 == 0)
                        #expect(delivery.presentation.notification.identifier == identifier)
                        if round % 4 == 3 {
                            _ = try? host.respond(to: identifier, with: ResponseRequest(actionIdentifier: ActionIdentifier.dismiss))
                        }
                    }
                }
            }
        }
        #expect(counter.counts.live <= 1)
        _ = host.remove(host.presentedIdentifiers)
        #expect(host.presentedIdentifiers.isEmpty)
        #expect(counter.counts.live == 0)
        _ = deliver("t-again", thread: "t", to: host)
        #expect(try open("t-again", in: host))
        #expect(counter.counts.live == 1)
    }
}
