import TidingsBase
import TidingsProtocol
import TidingsRegistry
import TidingsRuntime

/// The runtime's operations, through `NotificationHost` with the NoOp
/// extension in this process. Each benchmark gets a host of its own, checks
/// before timing that the runtime really does the work it claims to (the
/// extension serves, the instance is or is not reused, the response reaches
/// the extension), and returns the operation to time.
struct RuntimeBenchmarks {
    /// The action registered for category "noop", which `respond` answers with.
    static let action = "ack"

    /// The bundles the hosts serve.
    let index: ExtensionIndex
    /// Notifications each host keeps presented besides the measured ones.
    let presented: Int

    /// Delivery to a thread whose interface is open: "anchor" of thread
    /// "bench" stays open, so every delivery of "reuse" (same thread, same
    /// request identifier, replacing the previous one) reaches its instance.
    func deliverToPresentedThread() throws(BenchmarkFailure) -> LoopBenchmark {
        let host = try makeHost()
        try check(host.deliver(try SamplePayload.notification(identifier: "anchor", thread: "bench"), to: BundleFarm.app,
                               opening: true))
        let notification = try SamplePayload.notification(identifier: "reuse", thread: "bench")
        try expectInstances(0, perDeliveryOf: notification, to: host)
        return LoopBenchmark(key: "deliver-reuse", title: "deliver → presentation, thread presented (reuse)") {
            Self.digest(host.deliver(notification, to: BundleFarm.app))
        }
    }

    /// Delivery of a notification value made anew for each operation, as a
    /// front end makes one for each notification that arrives: otherwise
    /// deliver-reuse (thread "bench" open, the same request identifier
    /// "fresh" each time), but nothing marshalled for an earlier delivery can
    /// be reused, so every operation pays the first delivery's cost,
    /// making the value included.
    func deliverFresh() throws(BenchmarkFailure) -> LoopBenchmark {
        let host = try makeHost()
        try check(host.deliver(try SamplePayload.notification(identifier: "anchor", thread: "bench"), to: BundleFarm.app,
                               opening: true))
        let template = try SamplePayload.notification(identifier: "fresh", thread: "bench")
        try expectInstances(0, perDeliveryOf: template, to: host)
        let (identifier, date, content) = (template.identifier, template.date, template.content)
        return LoopBenchmark(key: "deliver-fresh", title: "deliver → presentation, each a new value") {
            Self.digest(host.deliver(UserNotification(identifier: identifier, date: date, content: content),
                                     to: BundleFarm.app))
        }
    }

    /// Delivery that makes a new instance: a notification without a thread,
    /// always under request identifier "new", opened at once, so each
    /// replaces the last — whose interface closes and instance is destroyed —
    /// and gets an instance of its own.
    func deliverReplacing() throws(BenchmarkFailure) -> LoopBenchmark {
        let host = try makeHost()
        let notification = try SamplePayload.notification(identifier: "new", thread: "")
        try check(host.deliver(notification, to: BundleFarm.app, opening: true))
        try expectInstances(1, perDeliveryOf: notification, to: host, opening: true)
        return LoopBenchmark(key: "deliver-new", title: "deliver → presentation, opened, replaced (create+destroy)") {
            Self.digest(host.deliver(notification, to: BundleFarm.app, opening: true))
        }
    }

    /// A response with the registered action "ack" to one open interface;
    /// NoOp completes at once with doNotDismiss, so the interface stays open
    /// and the next response goes to it again.
    func respond() throws(BenchmarkFailure) -> LoopBenchmark {
        let host = try makeHost()
        let notification = try SamplePayload.notification(identifier: "respond", thread: "")
        try check(host.deliver(notification, to: BundleFarm.app, opening: true))
        let response = ResponseRequest(actionIdentifier: Self.action)
        let outcome: ResponseOutcome
        do {
            outcome = try host.respond(to: notification.identifier, with: response)
        } catch {
            throw BenchmarkFailure("The response failed: \(error.message)")
        }
        guard outcome.receiver == .extension, outcome.option == .doNotDismiss, !outcome.presentation.dismissed,
              outcome.diagnostics.isEmpty
        else {
            throw BenchmarkFailure("The response did not reach NoOp or was not answered with doNotDismiss: \(outcome.diagnostics.map(\.message))")
        }
        return LoopBenchmark(key: "respond", title: "respond → outcome (doNotDismiss)") {
            guard let outcome = try? host.respond(to: notification.identifier, with: response) else {
                fatalError("a response failed during the benchmark")
            }
            return UInt64(outcome.diagnostics.count &+ outcome.forwarded.count &+ outcome.presentation.actions.count)
        }
    }

    /// A host over the index, with category "noop" of the app registered and
    /// its action "ack", showing `presented` notifications without a thread.
    private func makeHost() throws(BenchmarkFailure) -> NotificationHost {
        let host = NotificationHost(index: index)
        host.register([NotificationCategory(identifier: BundleFarm.category,
                                            actions: [NotificationAction(identifier: Self.action, title: "Acknowledge")])],
                      for: BundleFarm.app)
        for number in 0..<presented {
            try check(host.deliver(try SamplePayload.notification(identifier: "presented-\(number)", thread: ""),
                                   to: BundleFarm.app))
        }
        return host
    }

    /// A number derived from a delivery, for the sink.
    private static func digest(_ delivery: Delivery) -> UInt64 {
        UInt64(delivery.diagnostics.count &+ delivery.presentation.actions.count)
    }

    /// Checks that NoOp served the delivery without a problem.
    private func check(_ delivery: Delivery) throws(BenchmarkFailure) {
        guard delivery.presentation.extensionIdentifier == BundleFarm.identifier, delivery.diagnostics.isEmpty else {
            throw BenchmarkFailure("NoOp did not serve the delivery: \(delivery.diagnostics.map(\.message))")
        }
    }

    /// Checks that each delivery of `notification` (`opening` its interface
    /// or not) makes `expected` new instances, by counting the context
    /// handles issued meanwhile (each instance gets one, and handles are never reused).
    private func expectInstances(_ expected: UInt64, perDeliveryOf notification: UserNotification,
                                 to host: NotificationHost, opening: Bool = false) throws(BenchmarkFailure) {
        let deliveries: UInt64 = 3
        let before = host.endpoint.contexts.handlesMade
        for _ in 0..<deliveries { try check(host.deliver(notification, to: BundleFarm.app, opening: opening)) }
        let made = host.endpoint.contexts.handlesMade - before
        guard made == expected * deliveries else {
            throw BenchmarkFailure("\(deliveries) deliveries of \(notification.identifier) made \(made) instances, not \(expected * deliveries).")
        }
    }
}
