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
/// A subscriber names the apps it follows, or none for every app; a
/// response forwarded to an app goes only to subscribers that name that app.
package final class Subscribers: Sendable {
    /// One subscription.
    private struct Subscription {
        weak var receiver: (any EventReceiver)?
        /// The apps followed; nil for all.
        var apps: Set<String>?
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

    /// Pushes `event` to those who follow it.
    package func publish(_ event: HostEvent) {
        guard let (method, params, app, appOnly) = Self.notification(for: event) else { return }
        push(method, params, app: app, appOnly: appOnly)
    }

    /// Pushes the event `method`, about the server rather than an app, to every subscriber.
    package func announce(_ method: String, _ params: JSON) {
        push(method, params, app: nil, appOnly: false)
    }

    /// Pushes the event `method` with `params` to the subscribers of `app`
    /// (those of every app too, unless `appOnly`); to all when `app` is nil.
    private func push(_ method: String, _ params: JSON, app: String?, appOnly: Bool) {
        let receivers = subscriptions.withLock { subscriptions -> [any EventReceiver] in
            subscriptions = subscriptions.filter { $0.value.receiver != nil }
            return subscriptions.values.compactMap { subscription in
                guard let receiver = subscription.receiver else { return nil }
                if let app {
                    if let apps = subscription.apps { return apps.contains(app) ? receiver : nil }
                    return appOnly ? nil : receiver
                }
                return receiver
            }
        }
        guard !receivers.isEmpty else { return }
        let line = RPCReply.notification(method, params: params)
        for receiver in receivers { _ = receiver.push(line) }
    }

    /// The notification an event becomes: its method, its parameters, the
    /// app it concerns, and whether only that app's subscribers may hear it.
    private static func notification(for event: HostEvent) -> (String, JSON, String?, Bool)? {
        switch event {
        case .presentationChanged(let presentation):
            return ("presentation.changed", .object([("presentation", presentation.json)]), presentation.app, false)
        case let .dismissed(identifier, app, reason):
            return ("notification.dismissed", .object([
                ("identifier", .string(identifier)), ("app", .string(app)), ("reason", .string(reason.rawValue)),
            ]), app, false)
        case .forwarded(let response):
            return ("response.forwarded", response.json, response.app, true)
        case .diagnostic(let diagnostic):
            guard diagnostic.severity != .note else { return nil }
            return ("extension.failed", .object([("diagnostic", diagnostic.json)]), nil, false)
        }
    }
}
