import Synchronization
import TidingsBase

/// Each app's badge, as notifications (`aps.badge`) and the app (`badge.set`) set it (0 removes it):
/// recorded in the server's state before it changes, pushed to the app's
/// subscribers (`app.badge-changed`) when it changes.
package final class AppBadges: Sendable {
    /// Each app's badge; an app without one is absent.
    private let counts: Mutex<[String: Int64]>
    private let state: (any ServerState)?
    private let subscribers: Subscribers

    /// The badges `kept` (across a restart), recording in `state`, pushing to `subscribers`.
    package init(kept: [(app: String, count: Int64)], state: (any ServerState)?, subscribers: Subscribers) {
        var counts: [String: Int64] = [:]
        for (app, count) in kept where count != 0 { counts[app] = count }
        self.counts = Mutex(counts)
        self.state = state
        self.subscribers = subscribers
    }

    /// Each app's badge, by app (apps without one are absent).
    package var all: [String: Int64] {
        counts.withLock { $0 }
    }

    /// Makes the badge of `app` `count` (0: none): records it, then pushes
    /// `app.badge-changed` when it changed.
    /// - Throws: when it changes and its record cannot be written; it then does not change.
    package func set(_ count: Int64, of app: String) throws(Diagnostic) {
        try counts.withLock { (counts: inout [String: Int64]) throws(Diagnostic) in
            guard counts[app, default: 0] != count else { return }
            try state?.recordBadge(count, of: app)
            counts[app] = count == 0 ? nil : count
            subscribers.publish("app.badge-changed", .object([("app", .string(app)), ("badge", .integer(count))]), app: app)
        }
    }
}
