import Foundation
import RuntimeTestSupport
import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRegistry
import TidingsRuntime

/// A delivery waiting on its service extension holds no thread: many
/// deliveries whose extension never calls its content handler (the Service
/// fixture's "never") each return once the extension has been asked, the
/// process keeps no thread for any of them, and each is delivered exactly
/// once, with the original content, after its deadline and grace period (by
/// a clock the test moves forward).
@Suite struct WaitingServiceTests {
    static let app = "com.example.svc"
    static let waiting = 100
    /// More threads than these once every request has returned would be a thread per wait.
    static let spareThreads = 8
    let fixture = Fixture()

    init() throws {
        let library = try CCompiler.fixture("Service", into: fixture.directory.path, extraFlags: ["-pthread"])
        try BundleMaker.make("Service", in: fixture.directory.path, manifest: BundleMaker.serviceManifest(
            identifier: "com.example.svc.service", executable: "libService.so"), library: library)
    }

    /// The process's threads now.
    var threads: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    @Test func manyDeliveriesWaitingOnTheirServiceExtensionHoldNoThread() {
        let time = TestClock()
        var configuration = NotificationHost.Configuration()
        configuration.clock = time.clock
        configuration.serviceDeadline = 30
        configuration.serviceGracePeriod = 2
        let host = fixture.host(configuration: configuration)
        var first = notification("warm", category: "", userInfo: [("mode", .string("rewrite"))])
        first.content.mutableContent = true
        #expect(host.deliver(first, to: Self.app).presentation.notification.content.title == "Rewritten: Title")
        let before = threads

        let deliveries = Mutex<[String: [Delivery]]>([:])
        for number in 0..<Self.waiting {
            var request = notification("n\(number)", category: "", userInfo: [("mode", .string("never"))])
            request.content.mutableContent = true
            let identifier = request.identifier
            host.deliver(request, to: Self.app, recordingWith: { (_: UserNotification, _: Double, _: [NotificationKey]) throws(Never) in }) {
                delivery in
                deliveries.withLock { $0[identifier, default: []].append(delivery.get()) }
            }
        }
        #expect(deliveries.withLock { $0.isEmpty })
        // Each did_receive_request has returned ("never" returns at once); nothing waits on a thread.
        #expect(eventually { threads <= before + Self.spareThreads }, "\(threads) threads, \(before) before")

        // The deadlines pass, time-will-expire comes (and is not answered), then the grace periods pass.
        #expect(eventually {
            time.advance(seconds: 10)
            return deliveries.withLock { $0.count } == Self.waiting
        })
        let all = deliveries.withLock { $0 }
        #expect(all.values.allSatisfy { $0.count == 1 })
        #expect(all.values.allSatisfy { deliveries in
            guard case .kept(_, .timedOut, _) = deliveries[0].service else { return false }
            return deliveries[0].presentation.notification.content.title == "Title"
                && deliveries[0].diagnostics.contains { $0.code == .serviceTimeout }
        })
        #expect(host.presentedIdentifiers.count == Self.waiting + 1)
    }

    /// A request whose call fails (its worker could not start it, say) is
    /// answered at once, with the original content and the failure: by a
    /// clock that never moves, a wait for the deadline would never end.
    @Test func aRequestWhoseCallFailsIsAnsweredAtOnceNotAtTheDeadline() {
        let time = TestClock()
        var configuration = NotificationHost.Configuration()
        configuration.clock = time.clock
        let host = fixture.host(configuration: configuration, launcher: RefusingLauncher())
        var request = notification("refused", category: "", title: "As sent", userInfo: [("mode", .string("rewrite"))])
        request.content.mutableContent = true
        let delivered = Mutex<Delivery?>(nil)
        host.deliver(request, to: Self.app, recordingWith: { (_: UserNotification, _: Double, _: [NotificationKey]) throws(Never) in }) { delivery in
            delivered.withLock { $0 = delivery.get() }
        }
        #expect(eventually { delivered.withLock { $0 } != nil })
        let delivery = delivered.withLock { $0 }
        #expect(delivery?.presentation.notification.content.title == "As sent")
        #expect(delivery?.diagnostics.codes.contains(RefusingLauncher.refusal.code.rawValue) == true)
    }
}

/// Starts service extensions whose `did_receive_request` call always fails,
/// as a worker's does when it cannot start the request.
private struct RefusingLauncher: ExtensionLauncher {
    static let refusal = Diagnostic.error(Diagnostic.Code("worker.busy"), "The worker did not start the request.")

    func launch(_ bundle: ExtensionBundle, for host: HostEndpoint) throws(Diagnostic) -> any ExtensionProvider {
        Provider()
    }

    struct Provider: ExtensionProvider {
        var handlesResponses: Bool { false }
        var handlesMedia: Bool { false }
        var handlesElementEvents: Bool { false }
        func makeInstance(context: InstanceContext) throws(Diagnostic) -> any ExtensionInstance { Instance() }
    }

    struct Instance: ExtensionInstance {
        func didReceive(_ notification: UserNotification) {}
        func didReceive(_ response: ResponseRequest, to notification: UserNotification, token: UInt64, deadline: UInt64) {}
        func didReceive(request: UserNotification, token: UInt64, deadline: UInt64) throws(Diagnostic) {
            throw RefusingLauncher.refusal
        }
        func serviceExtensionTimeWillExpire() {}
        func mediaPlay() {}
        func mediaPause() {}
        func handle(_ event: ElementEvent) {}
        func destroy() {}
    }
}
