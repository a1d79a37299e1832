import Synchronization
import TidingsBase
import TidingsRuntime

/// Something events can be pushed to: a client's connection.
package protocol EventReceiver: AnyObject, Sendable {
    /// Queues `line` for the client without waiting; false when the client is gone.
    func push(_ line: [UInt8]) -> Bool
}

/// Who hears which events, and the events as JSON-RPC notifications.
///
/// Every event of the host concerns an app. A subscriber names the apps it
/// follows and hears their events only, or follows every app and hears
/// every event. An event whose app is not known (a warning about a bundle
/// no longer on the search path, say) goes to subscribers of every app
/// only. Events about the server itself (the state's health) go to every
/// subscriber.
package final class Subscribers: Sendable {
    /// One subscription.
    private struct Subscription {
        weak var receiver: (any EventReceiver)?
        /// The apps followed; nil for all.
        var apps: Set<String>?

        /// True when the subscription hears the events of `app` (nil: an app not known).
        func follows(_ app: String?) -> Bool {
            guard let apps else { return true }
            return app.map(apps.contains) ?? false
        }
    }

    private let subscriptions = Mutex<[ObjectIdentifier: Subscription]>([:])

    /// No subscribers yet.
    package init() {}

    /// Makes `receiver` hear events of `apps` (nil: every app), replacing what it followed.
    package func subscribe(_ receiver: any EventReceiver, apps: Set<String>?) {
        subscriptions.withLock { $0[ObjectIdentifier(receiver)] = Subscription(receiver: receiver, apps: apps) }
    }

    /// Stops `receiver` hearing events; true when it was subscribed.
    @discardableResult
    package func unsubscribe(_ receiver: any EventReceiver) -> Bool {
        subscriptions.withLock { $0.removeValue(forKey: ObjectIdentifier(receiver)) != nil }
    }

    /// Pushes `event` to those who follow its app; the notification is made
    /// only when someone does.
    package func publish(_ event: HostEvent) {
        if case .diagnostic(let diagnostic, _) = event, diagnostic.severity == .note { return }
        let app = Self.app(of: event)
        let receivers = receivers(where: { $0.follows(app) })
        guard !receivers.isEmpty else { return }
        let (method, params) = Self.notification(for: event)
        let line = RPCReply.notification(method, params: params)
        for receiver in receivers { _ = receiver.push(line) }
    }

    /// Pushes the event `method`, about the server rather than an app, to every subscriber.
    package func announce(_ method: String, _ params: JSON) {
        let line = RPCReply.notification(method, params: params)
        for receiver in receivers(where: { _ in true }) { _ = receiver.push(line) }
    }

    /// The receivers of the subscriptions `hears` accepts; subscriptions
    /// whose receiver is gone are dropped.
    private func receivers(where hears: (Subscription) -> Bool) -> [any EventReceiver] {
        subscriptions.withLock { subscriptions -> [any EventReceiver] in
            var receivers: [any EventReceiver] = []
            var gone: [ObjectIdentifier] = []
            for (key, subscription) in subscriptions {
                if let receiver = subscription.receiver {
                    if hears(subscription) { receivers.append(receiver) }
                } else {
                    gone.append(key)
                }
            }
            for key in gone { subscriptions[key] = nil }
            return receivers
        }
    }

    /// The app `event` concerns, when known.
    private static func app(of event: HostEvent) -> String? {
        switch event {
        case .diagnostic(_, let app): app
        case .delivered(let presentation), .presentationChanged(let presentation): presentation.app
        case .dismissed(_, let app, _): app
        case .forwarded(let response): response.app
        case .lateCompletion(let late, _): late.app
        }
    }

    /// The notification an event becomes: its method and its parameters.
    private static func notification(for event: HostEvent) -> (String, JSON) {
        switch event {
        case .delivered(let presentation):
            ("notification.delivered", .object([
                ("app", .string(presentation.app)), ("notification", presentation.notification.json),
                ("presentation", presentation.json),
            ]))
        case .presentationChanged(let presentation):
            ("presentation.changed", .object([("app", .string(presentation.app)), ("presentation", presentation.json)]))
        case let .dismissed(identifier, app, reason):
            ("notification.dismissed", .object([
                ("identifier", .string(identifier)), ("app", .string(app)), ("reason", .string(reason.rawValue)),
            ]))
        case .forwarded(let response):
            ("response.forwarded", response.json)
        case let .lateCompletion(late, diagnostic):
            ("extension.late-completion", .object([
                ("app", .string(late.app)), ("notification", .string(late.notificationIdentifier)),
                ("extension", .string(late.extensionIdentifier)), ("diagnostic", diagnostic.json),
            ]))
        case let .diagnostic(diagnostic, app):
            ("extension.failed", .object([("app", app.map(JSON.string) ?? .null), ("diagnostic", diagnostic.json)]))
        }
    }
}
