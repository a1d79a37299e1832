import RuntimeTestSupport
import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsRuntime

/// The service stage with a real service extension built from C: rewriting,
/// deadlines, time-will-expire and its grace period, and content that is
/// ignored as on iOS.
@Suite struct ServiceExtensionTests {
    let fixture = Fixture()

    init() throws {
        let library = try CCompiler.fixture("Service", into: fixture.directory.path, extraFlags: ["-pthread"])
        try BundleMaker.make("Service", in: fixture.directory.path, manifest: BundleMaker.serviceManifest(
            identifier: "com.example.svc.service", executable: "libService.so"), library: library)
    }

    func host(deadline: Double = 0.2, grace: Double = 0.3) -> NotificationHost {
        var configuration = NotificationHost.Configuration()
        configuration.serviceDeadline = deadline
        configuration.serviceGracePeriod = grace
        return fixture.host(configuration: configuration)
    }

    func remote(_ mode: String, mutable: Bool = true, title: String = "Hello", body: String = "World") -> UserNotification {
        var request = notification("n", category: "", title: title, body: body, userInfo: [("mode", .string(mode))])
        request.content.mutableContent = mutable
        return request
    }

    /// The codes of a delivery's diagnostics but for the note that a category-less notification has no content extension.
    func serviceCodes(_ delivery: Delivery) -> [String] {
        delivery.diagnostics.codes.filter { $0 != "route.no-category" }
    }

    @Test func rewritesAMutableNotification() {
        let delivery = host().deliver(remote("rewrite"), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "Rewritten: Hello")
        #expect(delivery.presentation.notification.content.body == "World")
        guard case .rewrote("com.example.svc.service", ["title"], false, _) = delivery.service else {
            Issue.record("unexpected stage: \(delivery.service)")
            return
        }
        #expect(serviceCodes(delivery).isEmpty)
    }

    @Test func skipsANotificationThatIsNotMutable() {
        let delivery = host().deliver(remote("rewrite", mutable: false), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "Hello")
        #expect(delivery.service == .skipped(.notMutable))
        #expect(delivery.service.sentence.contains("mutable-content is not 1"))
    }

    @Test func skipsANotificationWithoutAlertText() {
        let delivery = host().deliver(remote("rewrite", title: "", body: ""), to: "com.example.svc")
        #expect(delivery.service == .skipped(.noAlert))
    }

    @Test func skipsAnAppWithoutServiceExtension() {
        let delivery = host().deliver(remote("rewrite"), to: "com.example.other")
        #expect(delivery.service == .skipped(.noServiceExtension(app: "com.example.other")))
    }

    @Test func neverCallingTheHandlerShowsTheOriginalAfterTimeWillExpire() {
        let started = MonotonicClock.now()
        let delivery = host(deadline: 0.1, grace: 0.1).deliver(remote("never"), to: "com.example.svc")
        let waited = Double(MonotonicClock.now() - started) / 1e9
        #expect(delivery.presentation.notification.content.title == "Hello")
        #expect(delivery.log.map(\.message) == ["time will expire"])
        #expect(serviceCodes(delivery) == ["service.timeout"])
        #expect(waited >= 0.2)
        guard case .kept(_, .timedOut, _) = delivery.service else {
            Issue.record("unexpected stage: \(delivery.service)")
            return
        }
    }

    @Test func aBestAttemptDuringTimeWillExpireWins() {
        let delivery = host(deadline: 0.1).deliver(remote("expire"), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "Best attempt")
        #expect(delivery.log.map(\.message) == ["time will expire"])
        #expect(serviceCodes(delivery).isEmpty)
        guard case .rewrote(_, _, true, _) = delivery.service else {
            Issue.record("unexpected stage: \(delivery.service)")
            return
        }
    }

    @Test func anAnswerAfterTheGracePeriodIsIgnoredAndReported() throws {
        // The host lives on after the delivery (a host that is gone has nobody to report to).
        let host = host(deadline: 0.1, grace: 0.1)
        let delivery = host.deliver(remote("too-late"), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "Hello")
        #expect(serviceCodes(delivery) == ["service.timeout"])
        // Its own event (extension.late-completion on a server), naming the request.
        try #require(fixture.events.wait {
            $0.lateCompletions.contains { $0.0.notificationIdentifier == "n" && $0.1.code == .completionLate }
        }, "no late-completion event")
        withExtendedLifetime(host) {}
    }

    @Test func contentWithoutAlertTextIsIgnored() {
        let delivery = host().deliver(remote("remove-alert"), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "Hello")
        #expect(serviceCodes(delivery) == ["service.removed-alert"])
    }

    @Test func handingBackNothingShowsTheOriginal() {
        let delivery = host().deliver(remote("original"), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "Hello")
        guard case .kept(_, .handedBackNothing, _) = delivery.service else {
            Issue.record("unexpected stage: \(delivery.service)")
            return
        }
    }

    @Test func theResponseFunctionCannotCompleteARequest() throws {
        let delivery = host().deliver(remote("wrong-function"), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "complete_response said 7")
        // Reported with the delivery it misused the token of, while that was under way.
        #expect(delivery.diagnostics.codes.contains("response.completion-wrong-function"))
        #expect(fixture.events.diagnostics.isEmpty)
    }

    @Test func anAnswerFromAnotherThreadCounts() {
        let delivery = host(deadline: 2).deliver(remote("async"), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title == "Late")
        #expect(delivery.presentation.notification.content.body == "Late body")
    }

    @Test func theContentExtensionReceivesTheRewrittenNotification() throws {
        try fixture.installMisbehaving()
        // A service extension of the misbehaving fixture's app, serving all its notifications.
        let library = try CCompiler.fixture("Service", into: fixture.directory.path, output: "libService2.so",
                                            extraFlags: ["-pthread"])
        try BundleMaker.make("TestsService", in: fixture.directory.path, manifest: BundleMaker.serviceManifest(
            identifier: "com.example.tests.service", executable: "libService2.so"), library: library)
        var request = notification("n", category: "misbehave", title: "Original", userInfo: [("mode", .string("rewrite"))])
        request.content.mutableContent = true
        let delivery = host().deliver(request, to: "com.example.tests")
        #expect(delivery.presentation.extensionIdentifier == "com.example.tests.misbehaving")
        #expect(delivery.presentation.notification.content.title == "Rewritten: Original")
        #expect(delivery.presentation.defaultContent?.title == "Rewritten: Original")
    }
}
