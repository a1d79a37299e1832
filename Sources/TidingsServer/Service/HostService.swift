import Synchronization
import TidingsBase
import TidingsRegistry
import TidingsRuntime

/// The server's methods over one long-running `NotificationHost`: what a
/// front end calls, whatever transport carries the call.
///
/// Safe from any thread; a call blocks only its own caller (a delivery waits
/// for its extension, never for another delivery's).
package final class HostService: Sendable {
    /// Settings of the service.
    package struct Configuration: Sendable {
        /// The host's settings (deadlines, width, attachment store).
        package var host = NotificationHost.Configuration()
        /// The largest APNs payload accepted, in bytes.
        package var payloadSizeLimit = Payload.defaultSizeLimit
        /// The layers of the sandbox isolated extensions run in, as
        /// `server.describe` lists them (`{"layer", "status", "detail"}`);
        /// asked the first time it is described.
        package var sandbox: @Sendable () -> [JSON] = { [] }
        /// The warm workers kept for content extensions and the memory they
        /// hold, as `server.describe` lists them; null when none are kept.
        package var workers: @Sendable () -> JSON = { .null }

        /// How many delivered notifications a server keeps unless told
        /// otherwise (`host.deliveredLimit`): far more than a front end
        /// shows or a user reads, while it bounds what the server holds
        /// (about 4 KB of memory and 0.6 KB of state file per notification:
        /// some 40 MB and 6 MB) and how long folding its journal takes.
        package static let defaultKept = 10_000
        /// How many delivered notifications a server keeps of each app
        /// unless told otherwise (`host.deliveredLimitPerApp`): the whole
        /// room, for an app alone; once the total is reached, the app
        /// keeping the most gives up its oldest, so one app's flood expires
        /// its own notifications and never a quieter app's.
        package static let defaultKeptPerApp = defaultKept

        /// How an app that never asked for authorization is delivered
        /// (`serve --unasked-apps`): as authorized by default.
        package var unaskedApps = UnaskedApps.deliver
        /// The most entries each app's inbox keeps (`AppInbox`); one more drops the oldest.
        package var inboxLimit = AppInbox.defaultLimit
        /// The most entries the inboxes keep in all; one more drops the
        /// oldest of the app keeping the most.
        package var inboxTotalLimit = AppInbox.defaultTotalLimit
        /// The most events kept for subscribers that resume (`events.subscribe`
        /// with `after`); one further behind is told to re-list.
        package var eventReplayLimit = 1_000
        /// How long an app in the foreground has to answer `app.willPresent`, in seconds.
        package var willPresentDeadline = 1.0
        /// The most requests pending per app (`requests.add`); one more drops the latest-firing.
        package var pendingLimit = PendingScheduler.defaultLimit
        /// The most requests pending in all apps (`requests.add`); one more is refused (-32012).
        package var pendingTotalLimit = PendingScheduler.defaultTotalLimit
        /// The clocks pending requests are scheduled by. With the system's
        /// (`SystemScheduleClock`), a thread of the scheduler's own fires them
        /// when due; a test gives a clock it moves and fires what is due with
        /// `schedule.runDue()`.
        package var scheduleClock: any ScheduleClock = SystemScheduleClock()
        /// Told of what the server itself has to report outside any call
        /// (an inbox entry dropped or not recorded), for its log.
        package var log: @Sendable (Diagnostic) -> Void = { _ in }
        /// Remote notifications: where registrations are kept, the rate each app may receive.
        package var push = PushSettings()

        /// The defaults.
        package init() {
            host.deliveredLimit = Self.defaultKept
            host.deliveredLimitPerApp = Self.defaultKeptPerApp
        }
    }

    /// The host the methods drive.
    package let host: NotificationHost
    /// Who hears events.
    package let subscribers: Subscribers
    /// What each app received and its front end has not taken.
    package let inbox: AppInbox
    /// Each app's badge.
    package let badges: AppBadges
    /// Each app's authorization, and the requests waiting for the user.
    package let authorizations: AppAuthorizations
    /// The apps in the foreground, and how their notifications are presented.
    package let foreground: ForegroundApps
    /// What became of the requests the server sent its clients.
    package let serverRequestTally = ServerRequestTally()
    /// The requests pending, and the one timer that fires them.
    package let schedule: PendingScheduler
    /// The push registrations, one per app, and the ids of the messages they accepted.
    package let push: PushStore
    /// How many pushes each app may receive.
    package let pushLimiter: PushRateLimiter
    let configuration: Configuration
    /// Where categories and delivered notifications are kept across restarts; nil keeps nothing.
    let state: ServerState?
    /// Gives what removed notifications leave back to the system.
    let memory = MemoryReturn()
    /// The cursors of `notifications.list`.
    let cursors = ListCursor()
    /// Held while categories and app registrations are recorded and
    /// registered, so that they are registered in the order they were recorded.
    let registrations = Mutex(())
    /// The limits of the transport serving the service, which `server.describe`
    /// lists beside its own; told by the `Server` made over it.
    let transportLimits = Mutex<[(String, JSON)]>([])

    /// A service over the bundles of `index`, keeping its state in `state` when given.
    /// - Parameter launcher: makes the launcher of extensions, given where
    ///   to report what workers report outside calls (subscribers hear it as
    ///   events); in this process by default.
    package init(index: ExtensionIndex, configuration: Configuration = Configuration(), state: ServerState? = nil,
                 launcher: (@escaping @Sendable (Diagnostic) -> Void) -> any ExtensionLauncher = { _ in InProcessLauncher() }) {
        let log = configuration.log
        let subscribers = Subscribers(replayLimit: configuration.eventReplayLimit, after: state?.kept.eventSequence ?? 0) { last in
            do throws(Diagnostic) {
                try state?.recordSequence(through: last)
            } catch {
                log(.warning(.sequenceNotRecorded,
                             "Event sequence numbers up to \(last) could not be reserved in the state; after a restart some may be given again: \(error.message)"))
            }
        }
        self.subscribers = subscribers
        self.configuration = configuration
        self.state = state
        push = PushStore(directory: configuration.push.directory, rememberedIDs: configuration.push.rememberedIDs)
        pushLimiter = PushRateLimiter(burst: configuration.push.burst, rate: configuration.push.rate, clock: configuration.push.clock)
        if let unavailable = push.unavailable {
            configuration.log(.error(unavailable.code, "Remote notifications are refused: \(unavailable.message)"))
        }
        let inbox = AppInbox(limit: configuration.inboxLimit, totalLimit: configuration.inboxTotalLimit, entries: state?.kept.inbox ?? [], state: state,
                             subscribers: subscribers, log: configuration.log)
        self.inbox = inbox
        badges = AppBadges(kept: state?.kept.badges ?? [], state: state, subscribers: subscribers)
        let authorizations = AppAuthorizations(kept: state?.kept.authorizations ?? [], unasked: configuration.unaskedApps,
                                               state: state, subscribers: subscribers, clock: configuration.host.clock)
        self.authorizations = authorizations
        // The host asks, app by app, how a notification may show: as the user authorized the app.
        var hostConfiguration = configuration.host
        hostConfiguration.presentationPolicy = { app in authorizations.policy(of: app) }
        schedule = PendingScheduler(clock: configuration.scheduleClock, limit: configuration.pendingLimit,
                                    totalLimit: configuration.pendingTotalLimit,
                                    kept: state?.kept.pending.take() ?? [], state: state, subscribers: subscribers,
                                    drivingItself: configuration.scheduleClock is SystemScheduleClock, log: configuration.log)
        let shows = HostReference()
        let memory = self.memory
        let foreground = ForegroundApps(deadline: configuration.willPresentDeadline)
        self.foreground = foreground
        let reported = launcher { diagnostic in
            subscribers.publish(.diagnostic(diagnostic, app: shows.host.flatMap { Self.app(of: diagnostic, in: $0.index) }))
        }
        host = NotificationHost(index: index, configuration: hostConfiguration, launcher: reported, onEvent: { event in
            // What a notification that left for good held goes back to the system; one replaced or
            // expired made room for a delivery that takes as much, and trimming then only gets in the way.
            if case .dismissed(_, _, let reason) = event, reason != .replaced, reason != .expired {
                memory.noteRemoval()
            }
            // What the app received is kept in its inbox until taken, and pushed from there; it already
            // happened, so an entry that cannot be recorded is kept all the same (and logged).
            if case .forwarded(let response) = event {
                _ = try? inbox.keep(.response(response), refusingUnrecorded: false)
                return
            }
            subscribers.publish(event)
        }, onDismissal: { key in
            do throws(Diagnostic) {
                try state?.recordRemoval(of: [key])
                return nil
            } catch {
                return error
            }
        }, decider: { app, notification, answer in foreground.decide(app, notification, answer: answer) })
        shows.host = host
        if let state {
            for (app, categories) in state.kept.categories { host.register(categories, for: app) }
            for (app, registration) in state.kept.registrations { host.register(registration, for: app) }
            for (app, notification, width) in state.kept.delivered { host.restore(notification, to: app, width: width) }
            // Weakly: the subscribers reserve sequence numbers in the state, which would hold them for good.
            state.observe { [weak subscribers] health in
                subscribers?.announce(health.isDegraded ? "state.degraded" : "state.recovered", health.json)
            }
        }
        schedule.start { [weak self] firing in self?.deliverFired(firing) }
    }

    // MARK: Bundles

    /// Serves `index` from now on (the search path changed), keeping the last
    /// good version of a bundle whose manifest stopped validating; tells
    /// subscribers of each such bundle, and returns the warnings.
    @discardableResult
    package func reload(_ index: ExtensionIndex) -> [Diagnostic] {
        let (merged, warnings) = IndexReload.merge(old: host.index, new: index)
        host.replaceIndex(with: merged)
        for warning in warnings { subscribers.publish(.diagnostic(warning, app: Self.app(of: warning, in: merged))) }
        return warnings
    }

    /// Makes `server.describe` list `limits` (each a name and a value: sizes
    /// in bytes, counts) beside the service's own: the transport's, such as
    /// the longest message it reads.
    package func describeTransportLimits(_ limits: [(String, JSON)]) {
        transportLimits.withLock { $0 = limits }
    }

    // MARK: Helpers

    /// The notifications `value` names: one identifier, or an array of them
    /// (what is not a string names none; the call itself reports it).
    static func notifications(_ value: JSON?) -> Set<RequestScope.Part> {
        switch value {
        case .string(let identifier)?: [.notification(identifier)]
        case .array(let elements)?: Set(elements.compactMap { $0.stringValue.map(RequestScope.Part.notification) })
        default: []
        }
    }

    /// Tells subscribers of `app` of the errors a call ended with (an
    /// extension that failed to load, to make an instance, to answer in time).
    func publishFailures(_ diagnostics: [Diagnostic], of app: String) {
        for diagnostic in diagnostics where diagnostic.severity == .error {
            subscribers.publish(.diagnostic(diagnostic, app: app))
        }
    }

    /// The app whose bundle in `index` `diagnostic` is about (its file is
    /// the bundle or inside it), if any.
    private static func app(of diagnostic: Diagnostic, in index: ExtensionIndex) -> String? {
        guard let file = diagnostic.location.file else { return nil }
        return index.bundles.first { file == $0.path || file.hasPrefix($0.path + "/") }?.manifest?.appIdentifier
    }
}

extension Diagnostic.Code {
    /// A block of event sequence numbers could not be recorded: a restart may number events again.
    package static let sequenceNotRecorded = Self("events.sequence-not-recorded")
}

/// The host, for the handlers the host itself is made with.
private final class HostReference: @unchecked Sendable {
    // Set once, right after the host is made, before any worker can report.
    weak var host: NotificationHost?
}
