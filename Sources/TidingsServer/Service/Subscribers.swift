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
/// subscriber. A subscriber may also name the events it hears.
///
/// Each event is numbered (`seq`) and kept, the last few (`EventRing`), as
/// it is pushed, under one lock with the subscriptions: a subscription that
/// resumes after a number is pushed what it missed and then what comes,
/// nothing twice and nothing lost, and every subscriber hears events in
/// the order of their numbers. Pushing never waits (`EventReceiver.push`).
package final class Subscribers: Sendable {
    /// One subscription.
    private struct Subscription {
        weak var receiver: (any EventReceiver)?
        /// The apps followed; nil for all.
        var apps: Set<String>?
        /// The events heard, by name; nil for all.
        var events: Set<String>?

        /// True when the subscription hears `event`.
        func hears(_ event: EventRing.Event) -> Bool {
            guard events?.contains(event.method) ?? true else { return false }
            guard !event.aboutServer, let apps else { return true }
            return event.app.map(apps.contains) ?? false
        }
    }

    /// What a subscription that resumes is told.
    package enum Resumption: Sendable, Equatable {
        /// The events missed, this many, were pushed first.
        case resumed(replayed: Int)
        /// Some events after the one given are no longer kept: the front end re-lists.
        case tooFarBehind
        /// The one given is from before the server restarted, and the
        /// events after it went with the restart: the front end re-lists.
        case restarted
    }

    /// The subscriptions, and the events lately pushed: changed together,
    /// so that a subscription that resumes misses nothing and hears nothing twice.
    private let state: Mutex<(subscriptions: [ObjectIdentifier: Subscription], ring: EventRing)>
    /// Records the end of each block of sequence numbers reserved.
    private let reserve: @Sendable (UInt64) -> Void

    /// No subscribers yet; the last `replayLimit` events are kept for those
    /// that resume, numbered past `reserved` (the last number reserved
    /// before a restart), each block of numbers reserved through `reserve`.
    package init(replayLimit: Int = 1_000, after reserved: UInt64 = 0,
                 reserve: @escaping @Sendable (UInt64) -> Void = { _ in }) {
        state = Mutex(([:], EventRing(limit: replayLimit, after: reserved)))
        self.reserve = reserve
    }

    /// Makes `receiver` hear the events `events` names (nil: all) of `apps`
    /// (nil: every app), replacing what it followed; when `after` is given,
    /// first pushes it the events it hears with a larger sequence number.
    /// Returns how that went (nil without `after`) and the last sequence number given.
    package func subscribe(_ receiver: any EventReceiver, apps: Set<String>?, events: Set<String>? = nil,
                           after: UInt64? = nil) -> (resumption: Resumption?, last: UInt64) {
        state.withLock { state in
            let subscription = Subscription(receiver: receiver, apps: apps, events: events)
            state.subscriptions[ObjectIdentifier(receiver)] = subscription
            let last = state.ring.next - 1
            guard let after else { return (nil, last) }
            guard let missed = state.ring.events(after: after) else {
                return (after < state.ring.began ? .restarted : .tooFarBehind, last)
            }
            let heard = missed.filter(subscription.hears)
            for event in heard { _ = receiver.push(event.line.bytes) }
            return (.resumed(replayed: heard.count), last)
        }
    }

    /// Records the last sequence number given as the last reserved, as the
    /// server stops: a front end that heard the last event resumes after it
    /// once the server is started again (`EventRing.settle`).
    package func settle() {
        state.withLock { $0.ring.settle(reserving: reserve) }
    }

    /// Stops `receiver` hearing events; true when it was subscribed.
    @discardableResult
    package func unsubscribe(_ receiver: any EventReceiver) -> Bool {
        state.withLock { $0.subscriptions.removeValue(forKey: ObjectIdentifier(receiver)) != nil }
    }

    /// Pushes `event` to those who follow its app.
    package func publish(_ event: HostEvent) {
        if case .diagnostic(let diagnostic, _) = event, diagnostic.severity == .note { return }
        publish(Self.method(of: event), about: Self.app(of: event), aboutServer: false) { Self.params(of: event) }
    }

    /// Pushes the event `method` about `app` to those who follow it.
    package func publish(_ method: String, _ params: JSON, app: String) {
        publish(method, about: app, aboutServer: false) { params }
    }

    /// Pushes the event `method`, about the server rather than an app, to every subscriber.
    package func announce(_ method: String, _ params: JSON) {
        publish(method, about: nil, aboutServer: true) { params }
    }

    /// Numbers the event `method`, keeps it for those that resume, and
    /// pushes it to the subscriptions that hear it; subscriptions whose
    /// receiver is gone are dropped. Its `params` are made only when
    /// someone hears it (`EventLine`).
    private func publish(_ method: String, about app: String?, aboutServer: Bool,
                         params: @escaping () -> JSON) {
        state.withLock { state in
            let seq = state.ring.take(reserving: reserve)
            let line = EventLine {
                RPCReply.notification(method, params: .object((params().objectMembers ?? []) + [("seq", .integer(Int64(clamping: seq)))]),
                                      kept: true)
            }
            let event = EventRing.Event(seq: seq, app: app, aboutServer: aboutServer, method: method, line: line)
            state.ring.keep(event)
            var gone: [ObjectIdentifier] = []
            for (key, subscription) in state.subscriptions {
                guard let receiver = subscription.receiver else {
                    gone.append(key)
                    continue
                }
                if subscription.hears(event) { _ = receiver.push(line.bytes) }
            }
            for key in gone { state.subscriptions[key] = nil }
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

    /// The event's method (its name).
    private static func method(of event: HostEvent) -> String {
        switch event {
        case .delivered: "notification.delivered"
        case .presentationChanged: "presentation.changed"
        case .dismissed: "notification.dismissed"
        case .forwarded: "response.forwarded"
        case .lateCompletion: "extension.late-completion"
        case .diagnostic: "extension.failed"
        }
    }

    /// The event's params, `seq` aside.
    private static func params(of event: HostEvent) -> JSON {
        switch event {
        case .delivered(let presentation):
            .object([
                ("app", .string(presentation.app)), ("notification", presentation.notification.json),
                ("presentation", presentation.json),
            ])
        case .presentationChanged(let presentation):
            .object([("app", .string(presentation.app)), ("presentation", presentation.json)])
        case let .dismissed(identifier, app, reason):
            .object([("identifier", .string(identifier)), ("app", .string(app)), ("reason", .string(reason.rawValue))])
        case .forwarded(let response):
            response.json
        case let .lateCompletion(late, diagnostic):
            .object([
                ("app", .string(late.app)), ("notification", .string(late.notificationIdentifier)),
                ("extension", .string(late.extensionIdentifier)), ("diagnostic", diagnostic.json),
            ])
        case let .diagnostic(diagnostic, app):
            .object([("app", app.map(JSON.string) ?? .null), ("diagnostic", diagnostic.json)])
        }
    }
}
