import Glibc
import Synchronization
import TidingsBase
import TidingsManifest
import TidingsRegistry

/// The runtime: turns notifications into presentations through the content
/// extension their (app, category) routes to, and responses into outcomes.
///
/// A notification is never lost: when no extension serves it, or its
/// extension fails to load, to make an instance or to answer in time, it is
/// shown with its default content (and a response goes to the app), and the
/// failure is reported. Safe to use from any thread; calls to one extension
/// instance are serialised, calls to different ones are not.
package final class NotificationHost: Sendable {
    /// Settings a front end may change.
    package struct Configuration: Sendable {
        /// The content width when the front end gives none: 360 points, about
        /// an iPhone notification's width.
        package var defaultContentWidth = 360.0
        /// How long an extension has to complete a response, in seconds
        /// (`tidings deliver/serve --deadline`). Apple sets none; past it the
        /// host applies dismissAndForwardAction, and a completion that comes
        /// later is reported (`HostEvent.lateCompletion`), never a fault.
        package var responseDeadline = Self.defaultResponseDeadline
        /// Two minutes: generous enough for the guide's pattern of
        /// completing after a server round trip on a slow network.
        package static let defaultResponseDeadline = 120.0
        /// The clock completion deadlines are set and judged by: the
        /// system's monotonic clock, or a test's. (A worker process answers
        /// its extension's completion call by its own monotonic clock against
        /// the same instant; the host's judgement is what counts.)
        package var clock = DeadlineClock.monotonic
        /// How long a service extension has to call its content handler, in
        /// seconds: about 30 on iOS.
        package var serviceDeadline = 30.0
        /// How long, after time-will-expire, a service extension's content
        /// handler still counts, in seconds.
        package var serviceGracePeriod = 2.0
        /// The attachment store's directory
        /// (`AttachmentStore.defaultDirectory(in:)` for the usual one); nil
        /// for a host that keeps no store, whose service extensions cannot
        /// create attachments.
        package var attachmentDirectory: String?
        /// How fast each instance may call host functions; nil for no limit.
        package var hostCallRate: CallRate? = .standard
        /// The most notifications kept delivered (at least 1): a delivery
        /// beyond it expires the oldest, as a notification centre lets old
        /// notifications go; nil keeps every one.
        package var deliveredLimit: Int?
        /// The ABI version offered to extensions: the host's own; an older
        /// one (1 or 2) shows how an extension fares with an older host.
        package var abiVersion = HostFunctions.abiVersion

        package init() {}
    }

    /// The index it serves now (`replaceIndex(with:)` changes it).
    package var index: ExtensionIndex { currentIndex.value }
    private let currentIndex: CurrentIndex
    package let configuration: Configuration
    /// Where attachments are kept; nil when the configuration names no directory.
    package let attachments: AttachmentStore?
    private let launcher: any ExtensionLauncher
    /// Told what front ends may want to hear of; nil when nobody listens,
    /// and then no event is even made (a delivery's copies its presentation).
    private let onEvent: (@Sendable (HostEvent) -> Void)?
    /// Told under the host's lock of each notification about to leave the
    /// screen unrecorded (a response or its extension closes it, a front end
    /// removes it without `recordingWith`, it expires to make room), in order
    /// with the deliveries and removals recorded: what a journal needs to
    /// write down. Returns why it could not be written, and the notification
    /// then stays shown; nil once written.
    private let onDismissal: @Sendable (String) -> Diagnostic?
    /// What its extensions reach through the ABI: its own contexts, completions and table.
    package let endpoint: HostEndpoint
    private let providers: ProviderCache
    /// The first stage of every delivery.
    private let service: ServiceStage
    /// Where changes extensions make outside calls are looked at, in order.
    private let changes = SerialQueue()
    private let state = Mutex(State())

    /// A group of notifications a summary counts: those of one app and thread.
    private struct GroupKey: Hashable {
        /// The app.
        var app: String
        /// The notifications' thread identifier ("" for those without one).
        var thread: String

        /// The group of what `shown` shows.
        init(_ shown: Shown) {
            app = shown.app
            thread = shown.notification.content.threadIdentifier
        }
    }

    /// The instance that serves one thread of one extension, shared by its notifications.
    private struct ThreadKey: Hashable {
        /// The extension's bundle identifier.
        var extensionIdentifier: String
        /// The notifications' thread identifier.
        var thread: String
    }

    /// One delivery, as shown. A delivery is told apart from a later one of
    /// the same request identifier by its identity.
    private final class Shown: Sendable {
        /// The notification delivered.
        let notification: UserNotification
        /// The app it is addressed to.
        let app: String
        /// The content width, in points.
        let width: Double
        /// The instance serving it; nil when no extension does, or its extension failed.
        let instance: InstanceRecord?
        /// The thread whose instance it shares, if any.
        let threadKey: ThreadKey?
        /// Delivered before the host started (restored), and not shown to its
        /// content extension since: it is, before its first response.
        let restored: Bool
        /// A response claimed showing the restored notification again.
        let revived = Atomic<Bool>(false)
        /// Its place in the order of deliveries (`State.order`).
        let number: UInt64

        /// A delivery of `notification` to `app` at `width`, served by
        /// `instance` (of thread `threadKey`), `number` in the order of deliveries.
        init(notification: UserNotification, app: String, width: Double, instance: InstanceRecord?,
             threadKey: ThreadKey?, number: UInt64, restored: Bool = false) {
            self.notification = notification
            self.app = app
            self.width = width
            self.instance = instance
            self.threadKey = threadKey
            self.number = number
            self.restored = restored
        }
    }

    /// A registered category, in a class so that finding it copies one reference.
    private final class Registered: Sendable {
        /// The category.
        let category: NotificationCategory

        /// Keeps `category`.
        init(_ category: NotificationCategory) {
            self.category = category
        }
    }

    /// What the host knows of one (app, category), so that a delivery finds
    /// both with one lookup.
    private struct KnownRoute {
        /// The category the app registered under this identifier, if any.
        var registered: Registered?
        /// Where the route leads, once a delivery found that a content
        /// extension serves it (routes no extension serves are not kept).
        var target: RouteTarget?
    }

    /// What the host's lock guards.
    private struct State {
        /// Every (app, category) with a registered category or a known target.
        private(set) var routes: [ExtensionIndex.Route: KnownRoute] = [:]
        /// What is shown, by request identifier.
        private(set) var shown: [String: Shown] = [:]
        /// What is shown, in the order it was delivered, the oldest first.
        private(set) var order = SequencedList<Shown>()
        /// The number the next delivery takes in `order`.
        private var nextNumber: UInt64 = 1
        /// Each app's registration (name, icon, show previews), by app.
        private(set) var apps: [String: AppRegistration] = [:]
        /// What is shown of each group, by request identifier: `shown`, grouped.
        private var groups: [GroupKey: [String: UserNotification]] = [:]
        /// The instance of each thread shown; only instances someone holds.
        private var threads: [ThreadKey: InstanceRecord] = [:]
        /// The latest delivery of each identifier begun and not yet shown, by
        /// the number `reserve` gave it.
        private var reservations: [String: UInt64] = [:]
        /// The number the next `reserve` gives.
        private var nextReservation: UInt64 = 0

        /// The category `identifier` of `app`, if registered.
        func category(_ identifier: String, of app: String) -> NotificationCategory? {
            routes[ExtensionIndex.Route(app: app, category: identifier)]?.registered?.category
        }

        /// The category registered for what `shown` shows, boxed.
        func registered(for shown: Shown) -> Registered? {
            let route = ExtensionIndex.Route(app: shown.app, category: shown.notification.content.categoryIdentifier)
            return routes[route]?.registered
        }

        /// What the presentation of `shown` takes from its app, its registered
        /// category and the notifications of its app and thread shown now.
        func settings(for shown: Shown) -> PresentationSettings {
            PresentationSettings(app: apps.isEmpty ? AppRegistration() : apps[shown.app] ?? AppRegistration(),
                                 category: registered(for: shown)?.category,
                                 group: NotificationGroup(shown: groups[GroupKey(shown)] ?? [:], notification: shown.notification))
        }

        /// Makes `registration` that of `app`, replacing what it had.
        mutating func register(_ registration: AppRegistration, for app: String) {
            apps[app] = registration
        }

        /// Every app's registered categories, by app, sorted by identifier.
        func registeredCategories() -> [String: [NotificationCategory]] {
            var apps: [String: [NotificationCategory]] = [:]
            for (route, known) in routes {
                if let category = known.registered?.category { apps[route.app, default: []].append(category) }
            }
            return apps.mapValues { $0.sorted { $0.identifier < $1.identifier } }
        }

        /// Makes `categories` the categories of `app`, replacing those it had;
        /// of two with one identifier, the last counts.
        mutating func register(_ categories: [NotificationCategory], for app: String) {
            var updated: [ExtensionIndex.Route: KnownRoute] = [:]
            for (route, known) in routes {
                if route.app == app {
                    if let target = known.target { updated[route] = KnownRoute(target: target) }
                } else {
                    updated[route] = known
                }
            }
            for category in categories {
                updated[ExtensionIndex.Route(app: app, category: category.identifier), default: KnownRoute()].registered =
                    Registered(category)
            }
            routes = updated
        }

        /// Forgets where each route leads (the index changed), keeping the registered categories.
        mutating func forgetTargets() {
            routes = routes.compactMapValues { known in
                known.registered.map { KnownRoute(registered: $0, target: nil) }
            }
        }

        /// Keeps `target` as where `route` leads, unless a delivery on another
        /// thread kept one first; returns the one kept.
        mutating func keep(_ target: RouteTarget, for route: ExtensionIndex.Route) -> RouteTarget {
            if let kept = routes[route]?.target { return kept }
            routes[route, default: KnownRoute()].target = target
            return target
        }

        /// What shows as `identifier`, with its registered category; its
        /// instance, if any, held for the caller, who lets go of it.
        func claim(_ identifier: String) -> (Shown, Registered?)? {
            guard let entry = shown[identifier] else { return nil }
            entry.instance?.holds.add(1, ordering: .relaxed)
            return (entry, registered(for: entry))
        }

        /// The instance of thread `key`, held for the caller, who lets go of
        /// it; nil when the thread has none (or there is no thread).
        func holdInstance(of key: ThreadKey?) -> InstanceRecord? {
            guard let key, let instance = threads[key] else { return nil }
            instance.holds.add(1, ordering: .relaxed)
            return instance
        }

        /// `holdInstance(of:)`, but when the thread has no instance, the one
        /// `make` makes, kept as the thread's.
        mutating func holdInstance(of key: ThreadKey?, makingOne make: () -> InstanceRecord) -> InstanceRecord {
            if let held = holdInstance(of: key) { return held }
            let made = make()
            made.holds.add(1, ordering: .relaxed)
            if let key { threads[key] = made }
            return made
        }

        /// Forgets `instance` as the instance of thread `key` (it failed),
        /// so that the thread's next delivery makes another.
        mutating func forget(_ instance: InstanceRecord, of key: ThreadKey?) {
            if let key, threads[key] === instance { threads[key] = nil }
        }

        /// Lets go of one hold on `instance`, of thread `key`; returns it when
        /// that was the last, forgotten as its thread's: to be destroyed.
        mutating func letGo(of instance: InstanceRecord, of key: ThreadKey?) -> InstanceRecord? {
            guard instance.holds.subtract(1, ordering: .relaxed).newValue == 0 else { return nil }
            forget(instance, of: key)
            return instance
        }

        /// A number for a new delivery shown, after every other.
        mutating func takeNumber() -> UInt64 {
            defer { nextNumber += 1 }
            return nextNumber
        }

        /// Begins a delivery of `identifier`, which `show(_:reserved:…)` is to
        /// show; returns its reservation. Of two deliveries of one identifier,
        /// the one that reserves last is the one that stays shown, whichever
        /// finishes first — the order in which they were recorded.
        mutating func reserve(_ identifier: String) -> UInt64 {
            nextReservation += 1
            reservations[identifier] = nextReservation
            return nextReservation
        }

        /// Shows `entry`, delivered under `reservation`, replacing what showed
        /// under its identifier, and lets go of `instance` (of thread `key`),
        /// held by the delivery; then takes the oldest off while more than
        /// `limit` show, each once `record` has written its dismissal (see
        /// `Showing`). When a later delivery of the identifier has reserved it
        /// since, `entry` is not shown: it counts as replaced by that one at
        /// once.
        mutating func show(_ entry: Shown, reserved reservation: UInt64, limit: Int?,
                           recording record: (String) -> Diagnostic?, lettingGoOf instance: InstanceRecord? = nil,
                           of key: ThreadKey? = nil) -> Showing {
            let identifier = entry.notification.identifier
            var showing = Showing(shown: reservations[identifier] == reservation, replaced: Removal(entry: entry))
            if showing.shown {
                reservations[identifier] = nil
                entry.instance?.holds.add(1, ordering: .relaxed)
                order.insert(entry, as: entry.number)
                showing.replaced = Removal()
                if let previous = shown.updateValue(entry, forKey: identifier) {
                    order.remove(previous.number)
                    showing.replaced = release(previous)
                }
                groups[GroupKey(entry), default: [:]][identifier] = entry.notification
            }
            if let instance, let ended = letGo(of: instance, of: key) { showing.replaced.ended.append(ended) }
            while let limit, shown.count > limit, let oldest = order.first?.element, oldest !== entry {
                if let refusal = record(oldest.notification.identifier) {
                    showing.refusal = refusal
                    break
                }
                showing.expired.append(hide(oldest))
            }
            return showing
        }

        /// True when `entry` is shown: no newer delivery replaced it, nothing took it off.
        func isShowing(_ entry: Shown) -> Bool {
            shown[entry.notification.identifier] === entry
        }

        /// Stops showing `entry` unless a newer delivery replaced it; returns
        /// what it leaves to dispose of.
        mutating func hide(_ entry: Shown) -> Removal {
            guard let index = shown.index(forKey: entry.notification.identifier), shown.values[index] === entry
            else { return Removal() }
            shown.remove(at: index)
            return forget(entry)
        }

        /// Stops showing what shows as `identifier`, if anything; returns
        /// what it leaves to dispose of.
        mutating func hide(identifier: String) -> Removal {
            guard let index = shown.index(forKey: identifier) else { return Removal() }
            return forget(shown.remove(at: index).value)
        }

        /// Takes `entry`, no longer among those shown by identifier, out of
        /// the order of deliveries too, and releases it.
        private mutating func forget(_ entry: Shown) -> Removal {
            order.remove(entry.number)
            shown.releaseUnusedCapacity()
            return release(entry)
        }

        /// Lets go of the hold of `entry`'s presentation on its instance;
        /// the instance is to be destroyed when that was the last hold.
        private mutating func release(_ entry: Shown) -> Removal {
            let group = GroupKey(entry)
            groups[group]?[entry.notification.identifier] = nil
            if groups[group]?.isEmpty == true { groups[group] = nil }
            var removal = Removal(entry: entry)
            if let instance = entry.instance, let ended = letGo(of: instance, of: entry.threadKey) {
                removal.ended.append(ended)
            }
            return removal
        }
    }

    /// What taking a delivery off the screen leaves to do outside the lock.
    private struct Removal {
        /// The delivery taken off, if one was.
        var entry: Shown?
        /// The instances nobody holds any more: to be destroyed.
        var ended: [InstanceRecord] = []

        /// The attachments of the delivery taken off, which leave the store.
        var attachments: [NotificationAttachment] { entry?.notification.attachments ?? [] }
    }

    /// What showing a delivery did (`State.show`), left to do outside the lock.
    private struct Showing {
        /// True when the delivery shows: false when a later delivery of its
        /// identifier had begun meanwhile, which replaced it at once.
        var shown: Bool
        /// What the delivery it replaced leaves; when not shown, what the
        /// delivery leaves itself.
        var replaced: Removal
        /// What the notifications that expired to make room leave, the oldest first.
        var expired: [Removal] = []
        /// Why the oldest notification left did not expire: its dismissal
        /// could not be recorded. Nil when every one that had to expired.
        var refusal: Diagnostic?
    }

    /// Destroys the instances `removal` leaves and takes its delivery's
    /// attachments out of the store, but for those `kept` still carries (a
    /// new delivery of the same notification).
    private func dispose(_ removal: Removal, keeping kept: UserNotification? = nil) {
        for instance in removal.ended { instance.destroy() }
        removeUnreferenced(removal.attachments, keeping: kept)
    }

    /// Lets go of the hold a call took on `shown`'s instance (`State.claim`),
    /// destroying the instance when that was the last hold.
    private func letGo(of shown: Shown) {
        guard let instance = shown.instance else { return }
        state.withLock { $0.letGo(of: instance, of: shown.threadKey) }?.destroy()
    }

    /// Disposes of what showing a delivery took off the screen (`showing`,
    /// see `State.show`) and tells front ends: the delivery it replaced, when
    /// `announcingReplaced`, and those that expired to make room. `kept` is
    /// the notification delivered, whose attachments stay while it shows.
    /// Returns why the oldest did not expire, when its dismissal could not be recorded.
    private func finishShowing(_ showing: Showing, keeping kept: UserNotification, announcingReplaced: Bool)
        -> Diagnostic? {
        // Replaced at once by a later delivery, it keeps no attachments.
        dispose(showing.replaced, keeping: showing.shown ? kept : nil)
        if showing.shown && announcingReplaced { announce(showing.replaced, because: .replaced) }
        for expired in showing.expired { dismissed(expired, because: .expired) }
        return showing.refusal
    }

    /// Tells front ends that the delivery `removal` took off the screen, if any, left it for `reason`.
    private func announce(_ removal: Removal, because reason: DismissReason) {
        guard let entry = removal.entry else { return }
        onEvent?(.dismissed(identifier: entry.notification.identifier, app: entry.app, reason: reason))
    }

    /// Takes `attachments` out of the store, but for those `kept` or a
    /// notification still shown carries.
    private func removeUnreferenced(_ attachments: [NotificationAttachment], keeping kept: UserNotification? = nil) {
        guard !attachments.isEmpty, let store = self.attachments else { return }
        var inUse = Set(kept?.attachments.map(\.path) ?? [])
        state.withLock { state in
            for entry in state.shown.values { inUse.formUnion(entry.notification.attachments.map(\.path)) }
        }
        store.remove(attachments.filter { !inUse.contains($0.path) })
    }

    /// A host serving the bundles of `index`.
    /// - Parameters:
    ///   - launcher: how extensions are started (in this process by default).
    ///   - onEvent: hears what front ends may want to hear of (`HostEvent`):
    ///     deliveries, presentations changed, dismissals, responses sent to
    ///     the app, what happens outside any call; nil when nobody listens.
    ///   - onDismissal: told, under the host's lock, of each notification
    ///     about to leave the screen unrecorded (see `deliver(_:to:width:recordingWith:)`),
    ///     for a journal to write down in order; it must be quick and must not
    ///     call the host. When it returns a diagnostic (the record could not
    ///     be written) the notification stays shown, and the diagnostic is
    ///     reported where the dismissal would have been.
    package init(index: ExtensionIndex, configuration: Configuration = Configuration(),
                 launcher: any ExtensionLauncher = InProcessLauncher(),
                 onEvent: (@Sendable (HostEvent) -> Void)? = nil,
                 onDismissal: @escaping @Sendable (String) -> Diagnostic? = { _ in nil }) {
        currentIndex = CurrentIndex(index)
        self.configuration = configuration
        self.launcher = launcher
        self.onEvent = onEvent
        self.onDismissal = onDismissal
        let attachments = configuration.attachmentDirectory.map(AttachmentStore.init(directory:))
        self.attachments = attachments
        endpoint = HostEndpoint(table: HostFunctions.table(callRate: configuration.hostCallRate,
                                                           version: configuration.abiVersion),
                                clock: configuration.clock)
        providers = ProviderCache(for: endpoint)
        service = ServiceStage(index: currentIndex, providers: providers, launcher: launcher, endpoint: endpoint,
                               deadline: configuration.serviceDeadline, gracePeriod: configuration.serviceGracePeriod,
                               store: attachments, callRate: configuration.hostCallRate, onEvent: onEvent ?? { _ in })
    }

    // MARK: The bundles served

    /// Serves the bundles of `new` from now on (bundles added, removed or
    /// edited on the search path). Notifications shown keep the instances
    /// serving them; the next delivery of each (app, category) finds its
    /// extension in `new`. A bundle that failed to load is tried again. A
    /// library loaded in this process keeps its code: it cannot be unloaded,
    /// so a replaced library takes effect when the host restarts.
    package func replaceIndex(with new: ExtensionIndex) {
        currentIndex.replace(with: new)
        state.withLock { $0.forgetTargets() }
        providers.forgetFailures()
    }

    // MARK: Categories

    /// Sets the categories of `app`, replacing those it had (setNotificationCategories).
    package func register(_ categories: [NotificationCategory], for app: String) {
        state.withLock { $0.register(categories, for: app) }
    }

    /// The category `identifier` of `app`, if registered.
    package func category(_ identifier: String, of app: String) -> NotificationCategory? {
        state.withLock { $0.category(identifier, of: app) }
    }

    /// Sets the name, icon and show-previews setting of `app`, replacing those it had.
    package func register(_ registration: AppRegistration, for app: String) {
        state.withLock { $0.register(registration, for: app) }
    }

    /// Every app's registration, by app.
    package func registeredApps() -> [String: AppRegistration] {
        state.withLock { $0.apps }
    }

    // MARK: Delivering

    /// Delivers `notification` to `app` and returns what to show: first
    /// through the app's service extension (when the notification is mutable
    /// and has alert text), then to the content extension of its category.
    /// - Parameter width: the front end's content width in points; the configured default when nil.
    package func deliver(_ original: UserNotification, to app: String, width: Double? = nil) -> Delivery {
        deliver(original, to: app, width: width, reviving: nil) { (_: UserNotification, _: Double) throws(Never) in }
    }

    /// `deliver(_:to:width:)` for a host whose changes are journaled: once
    /// the service stage has made the notification, and before anything is
    /// shown or replaced, `record` is called with it and its content width,
    /// under the lock that orders deliveries and dismissals, so that the
    /// journal holds them in the order they take effect. The notifications
    /// that expire to make room for it are recorded through `onDismissal`
    /// (see `init`), each before it leaves the screen.
    ///
    /// When `record` throws, the delivery is not made: nothing is shown or
    /// replaced, no content extension sees it, its attachments leave the
    /// store, and the error is thrown.
    package func deliver<Failure: Error>(_ original: UserNotification, to app: String, width: Double? = nil,
                                        recordingWith record: (UserNotification, Double) throws(Failure) -> Void)
        throws(Failure) -> Delivery {
        try deliver(original, to: app, width: width, reviving: nil, recording: record)
    }

    /// Puts a notification delivered before this host started (kept by a
    /// server across a restart) back among those shown, after those shown
    /// already, with its default content; its content extension sees it
    /// again before its first response.
    package func restore(_ notification: UserNotification, to app: String, width: Double) {
        let showing = state.withLock { state in
            let entry = Shown(notification: notification, app: app, width: width, instance: nil, threadKey: nil,
                              number: state.takeNumber(), restored: true)
            return state.show(entry, reserved: state.reserve(notification.identifier),
                              limit: configuration.deliveredLimit, recording: onDismissal)
        }
        // When the oldest cannot expire, they stay: the journal reports its failure (its health).
        _ = finishShowing(showing, keeping: notification, announcingReplaced: false)
    }

    /// `deliver(_:to:width:recordingWith:)`; when `reviving` a restored
    /// notification (recorded already), it goes past the service stage,
    /// keeps its place in the order of deliveries, and front ends hear of no
    /// new delivery.
    private func deliver<Failure: Error>(_ original: UserNotification, to app: String, width: Double?,
                                         reviving revived: Shown?,
                                         recording record: (UserNotification, Double) throws(Failure) -> Void)
        throws(Failure) -> Delivery {
        let width = width.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? configuration.defaultContentWidth
        let serviced = revived == nil
            ? service.run(original, to: app) : ServiceStage.Outcome(notification: original, report: .skipped(.delivered))
        let notification = serviced.notification
        var diagnostics = serviced.diagnostics
        var log = serviced.log
        var forwarded: [ForwardedResponse] = []
        removeUnreferenced(serviced.dropped, keeping: notification)
        let route = ExtensionIndex.Route(app: app, category: notification.content.categoryIdentifier)
        let thread = notification.content.threadIdentifier
        /// The key of the thread's instance among those of `target`, for a notification of a thread.
        func threadKey(_ target: RouteTarget) -> ThreadKey? {
            thread.isEmpty ? nil : ThreadKey(extensionIdentifier: target.manifest.bundleIdentifier, thread: thread)
        }

        // One lock on the common path: record the delivery, take the previous
        // delivery of the identifier off the screen, find what is known of the
        // route (its registered category, and where it leads) and hold the
        // thread's instance, so that no response closing the thread's last
        // notification meanwhile destroys it under this delivery.
        let begun: (Removal, KnownRoute?, ThreadKey?, InstanceRecord?, UInt64)
        do throws(Failure) {
            begun = try state.withLock { (state: inout State) throws(Failure) in
                try record(notification, width)
                let reservation = state.reserve(notification.identifier)
                let retired = state.hide(identifier: notification.identifier)
                let known = state.routes[route]
                let key = known?.target.flatMap(threadKey)
                return (retired, known, key, state.holdInstance(of: key), reservation)
            }
        } catch {
            removeUnreferenced(notification.attachments)
            throw error
        }
        var (retired, known, key, instance, reservation) = begun
        dispose(retired, keeping: notification)
        if revived == nil { announce(retired, because: .replaced) }
        let categoryActions = known?.registered?.category.actions
        var target = known?.target
        if target == nil, let found = self.target(for: route, diagnostics: &diagnostics) {
            target = state.withLock { $0.keep(found, for: route) }
            key = target.flatMap(threadKey)
        }
        if instance == nil, let target {
            do throws(Diagnostic) {
                let provider = try target.provider(from: providers, launcher: launcher)
                instance = state.withLock { state in
                    state.holdInstance(of: key) {
                        InstanceRecord(target: target, provider: provider, callRate: configuration.hostCallRate,
                                       in: endpoint.contexts)
                    }
                }
                watch(instance)
            } catch {
                diagnostics.append(error)
            }
        }

        var serving: InstanceRecord?
        var revision = 0
        if let instance {
            revision = instance.context.update { state in
                state.attachments = notification.attachments
                state.categoryActions = categoryActions ?? []
                return state.revision
            }
            do throws(Diagnostic) {
                try instance.call { (extensionInstance: any ExtensionInstance) throws(Diagnostic) in try extensionInstance.didReceive(notification) }
                serving = instance
            } catch {
                instance.context.close()
                state.withLock { $0.forget(instance, of: key) }
                diagnostics.append(error)
            }
        }
        // Shown, and the delivery's hold given up, in one step: the presentation holds the instance now.
        let (shown, showing) = state.withLock { state in
            let shown = Shown(notification: notification, app: app, width: width, instance: serving,
                              threadKey: serving == nil ? nil : key, number: revived?.number ?? state.takeNumber())
            return (shown, state.show(shown, reserved: reservation, limit: configuration.deliveredLimit,
                                      recording: onDismissal, lettingGoOf: instance, of: key))
        }
        if let refusal = finishShowing(showing, keeping: notification, announcingReplaced: revived == nil) {
            diagnostics.append(refusal)
        }
        let (closes, drawn) = if let serving {
            drainReports(of: serving, for: shown, categoryActions: categoryActions, closing: false,
                         diagnostics: &diagnostics, log: &log, forwarded: &forwarded)
        } else {
            (false, self.presentation(shown, categoryActions: categoryActions, dismissed: false))
        }
        var presentation = drawn
        let closed = closes ? takeOff(shown, drawnAs: &presentation, diagnostics: &diagnostics) : Removal()
        // Front ends hear of the delivery that shows (the latest of its identifier), before its closing.
        if revived == nil && showing.shown { onEvent?(.delivered(presentation)) }
        dismissed(closed, because: .extension)
        if let serving { announceChanges(by: serving, since: revision, except: shown) }
        for response in forwarded { onEvent?(.forwarded(response)) }
        return Delivery(presentation: presentation, service: serviced.report, createdAttachments: serviced.created,
                        diagnostics: diagnostics, log: log, forwarded: forwarded)
    }

    /// The content extension `route` leads to in the index, or nil with a note saying why none serves it.
    private func target(for route: ExtensionIndex.Route, diagnostics: inout [Diagnostic]) -> RouteTarget? {
        let (app, category) = (route.app, route.category)
        guard !category.isEmpty else {
            diagnostics.append(.note(.routeNoCategory, "The notification has no category, so no content extension serves it."))
            return nil
        }
        if let bundle = index.contentExtension(forApp: app, category: category), let target = RouteTarget(bundle: bundle) {
            return target
        }
        var message = "No content extension of app \(app) declares category \"\(category)\""
        let declared = index.categories(ofApp: app)
        let elsewhere = index.apps(servingCategory: category)
        if let near = Suggestion.closest(to: category, among: declared) {
            message += "; did you mean \"\(near)\"? (Categories match exactly.)"
        } else if !elsewhere.isEmpty {
            message += "; it is served for \(elsewhere.joined(separator: ", ")), and only an app's own extensions see its notifications."
        } else if !declared.isEmpty {
            message += "; its extensions declare \(declared.map { "\"\($0)\"" }.joined(separator: ", "))."
        } else {
            message += "; the app has no content extension on the search path."
            // A bundle rejected for its errors may be the one meant: name each with its first error.
            let rejected = index.bundles.filter { !$0.isUsable }.map { bundle in
                bundle.name + (bundle.diagnostics.first { $0.severity == .error }.map { " (\($0.message))" } ?? "")
            }
            if !rejected.isEmpty { message += " Rejected there for their errors: " + rejected.joined(separator: "; ") + "." }
        }
        diagnostics.append(.note(.routeNoExtension, message))
        return nil
    }

    // MARK: Responding

    /// Sends the user's response to the notification presented as `identifier`.
    ///
    /// It goes to the content extension's response handler when there is one
    /// (whose answer decides whether the notification stays, closes, or closes
    /// and forwards the action to the app), else straight to the app.
    /// - Throws: for a notification not presented, an action it does not offer,
    ///   or text missing from (or given to) an action.
    package func respond(to identifier: String, with response: ResponseRequest) throws(Diagnostic) -> ResponseOutcome {
        let outcome = try answer(identifier, with: response)
        for forwarded in outcome.forwarded { onEvent?(.forwarded(forwarded)) }
        return outcome
    }

    /// `respond(to:with:)` but for telling front ends what the app received.
    private func answer(_ identifier: String, with response: ResponseRequest) throws(Diagnostic) -> ResponseOutcome {
        guard var (shown, registered) = state.withLock({ $0.claim(identifier) }) else {
            throw .error(.responseUnknownNotification, "No notification \"\(identifier)\" is presented.")
        }
        if shown.restored {
            // Restored, it has no instance: nothing is held yet.
            // As iOS loads the extension when the user expands a notification
            // kept across a restart; once, however many responses come at once.
            if shown.revived.exchange(true, ordering: .acquiringAndReleasing) == false {
                _ = deliver(shown.notification, to: shown.app, width: shown.width, reviving: shown) {
                    (_: UserNotification, _: Double) throws(Never) in
                }
            } else {
                let deadline = MonotonicClock.deadline(after: configuration.responseDeadline)
                while state.withLock({ $0.shown[identifier] }) === shown && MonotonicClock.now() < deadline { usleep(1_000) }
            }
            guard let again = state.withLock({ $0.claim(identifier) })
            else { throw .error(.responseUnknownNotification, "No notification \"\(identifier)\" is presented.") }
            (shown, registered) = again
        }
        let held = shown
        defer { letGo(of: held) }
        let categoryActions = registered?.category.actions
        var diagnostics: [Diagnostic] = []
        var log: [LogLine] = []
        var forwarded: [ForwardedResponse] = []
        let toApp = ForwardedResponse(app: shown.app, notificationIdentifier: identifier,
                                      actionIdentifier: response.actionIdentifier, userText: response.userText)
        let isDismissal = response.actionIdentifier == ActionIdentifier.dismiss
        try validate(response, against: actions(of: shown, categoryActions: categoryActions),
                     category: shown.notification.content.categoryIdentifier, registered: registered != nil)

        if isDismissal && !(registered?.category.options.contains(.customDismissAction) ?? false) {
            diagnostics.append(.note(.responseDismissNotDelivered,
                                     "The category lacks customDismissAction, so the dismissal reaches neither the extension nor the app."))
            let presentation = close(shown, categoryActions: categoryActions, diagnostics: &diagnostics)
            return ResponseOutcome(response: response, receiver: .nobody, option: nil, presentation: presentation,
                                   forwarded: [], diagnostics: diagnostics, log: log)
        }
        guard let instance = shown.instance, instance.started.provider.handlesResponses else {
            if shown.instance != nil {
                diagnostics.append(.note(.responseNoHandler,
                                         "The extension has no response handler, so the response goes straight to the app."))
            }
            let presentation = close(shown, categoryActions: categoryActions, diagnostics: &diagnostics)
            return ResponseOutcome(response: response, receiver: .app, option: nil, presentation: presentation,
                                   forwarded: [toApp], diagnostics: diagnostics, log: log)
        }

        let onEvent = self.onEvent
        instance.context.update { $0.categoryActions = categoryActions ?? [] }
        let late = LateCompletion(app: shown.app, notificationIdentifier: identifier,
                                  extensionIdentifier: instance.manifest.bundleIdentifier)
        let pending = endpoint.completions.begin(
            for: instance.context.handle, deadline: configuration.clock.deadline(after: configuration.responseDeadline),
            extensionIdentifier: instance.manifest.bundleIdentifier,
            report: { onEvent?(late.event(reporting: $0)) },
            fault: { [provider = instance.started.provider] in provider.noteFault($0) })
        var answer: PendingCompletion.Answer?
        let revision = instance.context.read(\.revision)
        do throws(Diagnostic) {
            try instance.call { (extensionInstance: any ExtensionInstance) throws(Diagnostic) in
                try extensionInstance.didReceive(response, to: shown.notification, token: pending.token,
                                                 deadline: pending.deadline)
            }
            answer = pending.wait()
        } catch {
            diagnostics.append(error)
        }
        endpoint.completions.finish(pending)
        diagnostics += pending.problems
        var option: ResponseOption?
        if case .option(let given) = answer { option = given }
        // Without a valid answer the app still learns of the action: nothing is lost.
        let effective = option ?? .dismissAndForwardAction
        let presentation = collectReports(of: instance, for: shown, categoryActions: categoryActions,
                                          closing: effective != .doNotDismiss || isDismissal,
                                          diagnostics: &diagnostics, log: &log, forwarded: &forwarded)
        switch answer {
        case .option, .content, .invalid:  // an undefined option is reported by the completion center
            break
        case nil where pending.isAbandoned:
            diagnostics.append(.error(.completionAbandoned,
                                      "\(instance.manifest.bundleIdentifier)'s worker ended before it completed the response; the notification is closed and the action forwarded to the app."))
        case nil:
            if !diagnostics.containsError {
                diagnostics.append(.error(.completionTimeout,
                                          "\(instance.manifest.bundleIdentifier) did not complete the response within \(NumberText.short(configuration.responseDeadline)) s (--deadline); the host applied dismissAndForwardAction: the notification is closed and the action forwarded to the app. A completion after this is reported, and is no fault."))
            }
        }
        announceChanges(by: instance, since: revision)
        if effective == .dismissAndForwardAction { forwarded.append(toApp) }
        return ResponseOutcome(response: response, receiver: .extension, option: option, presentation: presentation,
                               forwarded: forwarded, diagnostics: diagnostics, log: log)
    }

    private func validate(_ response: ResponseRequest, against actions: [NotificationAction],
                          category: String, registered: Bool) throws(Diagnostic) {
        let identifier = response.actionIdentifier
        if identifier == ActionIdentifier.default || identifier == ActionIdentifier.dismiss {
            if response.userText != nil {
                throw .error(.responseTextUnexpected, "Only a text-input action carries text; \(identifier) does not.")
            }
            return
        }
        guard let action = actions.first(where: { $0.identifier == identifier }) else {
            let offered = actions.map { "\"\($0.identifier)\"" }.joined(separator: ", ")
            var message = "The notification offers no action \"\(identifier)\""
            if let near = Suggestion.closest(to: identifier, among: actions.map(\.identifier)) {
                message += "; did you mean \"\(near)\"?"
            } else if actions.isEmpty {
                if category.isEmpty {
                    message += "; it has no category, so it has no actions."
                } else if registered {
                    message += "; its category \"\(category)\" has no actions."
                } else {
                    message += "; its category \"\(category)\" is not registered, so it offers no actions (register the app's categories: --categories FILE on the command line, categories.register on the server)."
                }
            } else {
                message += "; it offers \(offered)."
            }
            throw .error(.responseUnknownAction, message)
        }
        if action.textInput != nil && response.userText == nil {
            throw .error(.responseTextRequired, "The action \"\(identifier)\" takes text input; give the user's text.")
        }
        if action.textInput == nil && response.userText != nil {
            throw .error(.responseTextUnexpected, "The action \"\(identifier)\" is not a text-input action and takes no text.")
        }
    }

    // MARK: Media

    /// The user tapped the media play/pause button: plays when paused, pauses when playing.
    package func tapMediaButton(of identifier: String) throws(Diagnostic) -> Presentation {
        guard let (shown, registered) = state.withLock({ $0.claim(identifier) }) else {
            throw .error(.responseUnknownNotification, "No notification \"\(identifier)\" is presented.")
        }
        defer { letGo(of: shown) }
        let categoryActions = registered?.category.actions
        guard let instance = shown.instance, let button = instance.context.snapshot().mediaButton,
              button.type != 0
        else {
            throw .error(.mediaNoButton, "The notification \"\(identifier)\" shows no media button.")
        }
        let playing = instance.context.update { state in
            state.mediaPlaying.toggle()
            return state.mediaPlaying
        }
        try instance.call { (extensionInstance: any ExtensionInstance) throws(Diagnostic) in
            if playing { try extensionInstance.mediaPlay() } else { try extensionInstance.mediaPause() }
        }
        var ignored: ([Diagnostic], [LogLine], [ForwardedResponse]) = ([], [], [])
        return collectReports(of: instance, for: shown, categoryActions: categoryActions, closing: false,
                              diagnostics: &ignored.0, log: &ignored.1, forwarded: &ignored.2)
    }

    // MARK: Presentations

    /// The presentation of `identifier` now, if it is shown.
    package func presentation(of identifier: String) -> Presentation? {
        let found = state.withLock { state in
            state.shown[identifier].map { ($0, state.registered(for: $0)?.category.actions) }
        }
        return found.map { shown, categoryActions in
            presentation(shown, categoryActions: categoryActions, dismissed: false)
        }
    }

    /// The identifiers of the notifications shown, sorted.
    package var presentedIdentifiers: [String] {
        state.withLock { $0.shown.keys.sorted() }
    }

    /// The notifications shown, with their apps, in the order they were
    /// delivered (getDeliveredNotifications); only `app`'s when given.
    package func delivered(ofApp app: String? = nil) -> [(app: String, notification: UserNotification)] {
        state.withLock { state in
            state.order.elements(after: 0).filter { app == nil || $0.element.app == app }
                .map { ($0.element.app, $0.element.notification) }
        }
    }

    /// Up to `limit` of the notifications shown (only `app`'s when given),
    /// in the order they were delivered, from the one delivered after
    /// `position` (0: from the first).
    ///
    /// Paging by `DeliveredPage.next` sees each notification shown all
    /// along exactly once, whatever is delivered or removed meanwhile; a
    /// notification delivered meanwhile comes after those delivered before,
    /// and one delivered again (replaced) comes again, where the new delivery stands.
    package func delivered(ofApp app: String? = nil, after position: UInt64, limit: Int) -> DeliveredPage {
        state.withLock { state in
            var page = DeliveredPage()
            for (number, entry) in state.order.elements(after: position) where app == nil || entry.app == app {
                guard page.notifications.count < limit else {
                    page.next = page.last
                    break
                }
                page.notifications.append((entry.app, entry.notification))
                page.last = number
            }
            return page
        }
    }

    /// Takes the notifications `identifiers` name off the screen without a
    /// response (removeDeliveredNotifications): their instances end, their
    /// attachments leave the store, front ends hear they were dismissed.
    /// - Returns: the identifiers that were shown.
    @discardableResult
    package func remove(_ identifiers: [String]) -> [String] {
        let entries = state.withLock { state in identifiers.compactMap { state.shown[$0] } }
        return entries.filter { retire($0, because: .removed) == nil }.map(\.notification.identifier)
    }

    /// `remove(_:)` for a host whose changes are journaled: `record` is
    /// called with the identifiers shown, under the lock that orders
    /// deliveries and dismissals, before any is taken off the screen. When it
    /// throws, nothing is removed and the error is thrown.
    /// - Returns: the identifiers that were shown.
    @discardableResult
    package func remove<Failure: Error>(_ identifiers: [String],
                                        recordingWith record: ([String]) throws(Failure) -> Void) throws(Failure) -> [String] {
        let taken = try state.withLock { (state: inout State) throws(Failure) -> [(Shown, Removal)] in
            let entries = identifiers.compactMap { state.shown[$0] }
            guard !entries.isEmpty else { return [] }
            try record(entries.map(\.notification.identifier))
            return entries.map { ($0, state.hide($0)) }
        }
        for (_, removal) in taken { dismissed(removal, because: .removed) }
        return taken.map(\.0.notification.identifier)
    }

    /// Every app's registered categories, by app.
    package func registeredCategories() -> [String: [NotificationCategory]] {
        state.withLock { $0.registeredCategories() }
    }

    /// The actions `shown` offers: those its extension set, else its category's (`categoryActions`).
    private func actions(of shown: Shown, categoryActions: [NotificationAction]?) -> [NotificationAction] {
        shown.instance?.context.read(\.actions) ?? categoryActions ?? []
    }

    /// What a front end shows for `shown`, whose registered category has
    /// `categoryActions`, as its instance is now.
    private func presentation(_ shown: Shown, categoryActions: [NotificationAction]?, dismissed: Bool) -> Presentation {
        let settings = state.withLock { $0.settings(for: shown) }
        guard let instance = shown.instance else {
            return Presentation(
                notification: shown.notification, app: shown.app, extensionIdentifier: nil,
                header: settings.app.name ?? shown.app,
                defaultContentHidden: false, contentWidth: shown.width, initialContentHeight: nil, contentHeight: nil,
                view: nil, actions: categoryActions ?? [], mediaButton: nil, mediaPlaying: false,
                userInteractionEnabled: false, dismissed: dismissed, settings: settings)
        }
        return instance.context.read { state in
            presentation(shown, of: instance, state: state, categoryActions: categoryActions, settings: settings,
                         dismissed: dismissed)
        }
    }

    /// What a front end shows for `shown`, whose registered category has
    /// `categoryActions`, with `instance` in `state` and the app's and
    /// category's `settings`.
    private func presentation(_ shown: Shown, of instance: InstanceRecord, state: borrowing InstanceContext.State,
                              categoryActions: [NotificationAction]?, settings: PresentationSettings,
                              dismissed: Bool) -> Presentation {
        let manifest = instance.manifest
        let initial = manifest.initialContentSizeRatio.map { shown.width * $0 }
        return Presentation(
            notification: shown.notification, app: shown.app, extensionIdentifier: manifest.bundleIdentifier,
            header: (manifest.overridesDefaultTitle ? state.title : nil) ?? settings.app.name ?? shown.app,
            defaultContentHidden: manifest.defaultContentHidden, contentWidth: shown.width,
            initialContentHeight: initial, contentHeight: state.preferredContentHeight ?? initial, view: state.view,
            actions: state.actions ?? categoryActions ?? [], mediaButton: state.mediaButton,
            mediaPlaying: state.mediaPlaying, userInteractionEnabled: manifest.userInteractionEnabled,
            dismissed: dismissed, settings: settings)
    }

    // MARK: Closing

    /// The presentation of `shown` (whose registered category has
    /// `categoryActions`) as it is now, marked dismissed and taken off the
    /// screen (a response closed it) — unless its dismissal could not be
    /// recorded, which goes to `diagnostics`.
    private func close(_ shown: Shown, categoryActions: [NotificationAction]?,
                       diagnostics: inout [Diagnostic]) -> Presentation {
        var presentation = presentation(shown, categoryActions: categoryActions, dismissed: true)
        dismissed(takeOff(shown, drawnAs: &presentation, diagnostics: &diagnostics), because: .response)
        return presentation
    }

    /// Removes a presentation (unless a newer delivery replaced it), destroying
    /// its instance when no other presentation uses it, and tells front ends;
    /// returns why it stays shown when its dismissal could not be recorded.
    private func retire(_ shown: Shown, because reason: DismissReason) -> Diagnostic? {
        switch takeOff(shown) {
        case .success(let removal):
            dismissed(removal, because: reason)
            return nil
        case .failure(let refusal):
            return refusal
        }
    }

    /// Takes `shown` off the screen once its dismissal is recorded (unless
    /// a newer delivery replaced it): what it leaves to dispose of, or why
    /// it stays shown.
    private func takeOff(_ shown: Shown) -> Result<Removal, Diagnostic> {
        state.withLock { state in
            guard state.isShowing(shown) else { return .success(Removal()) }
            if let refusal = onDismissal(shown.notification.identifier) { return .failure(refusal) }
            return .success(state.hide(shown))
        }
    }

    /// `takeOff(_:)` for `shown`, closing as `presentation` (marked
    /// dismissed) was drawn: what it leaves, for `dismissed(_:because:)`.
    /// When its dismissal cannot be recorded, it stays shown, `presentation`
    /// is no longer marked dismissed, and `diagnostics` says why.
    private func takeOff(_ shown: Shown, drawnAs presentation: inout Presentation,
                         diagnostics: inout [Diagnostic]) -> Removal {
        switch takeOff(shown) {
        case .success(let removal):
            return removal
        case .failure(let refusal):
            presentation.dismissed = false
            diagnostics.append(refusal)
            return Removal()
        }
    }

    /// Disposes of what taking a delivery off the screen left, and tells
    /// front ends it left for `reason`.
    private func dismissed(_ removal: Removal, because reason: DismissReason) {
        dispose(removal)
        announce(removal, because: reason)
    }

    /// Tells front ends of the presentations `instance` serves (but
    /// `except`'s), in the order delivered, as they are now, when a call into it changed what it
    /// shows: the view of a thread is one for all its notifications. The
    /// changes are those since the context's revision was `revision`.
    private func announceChanges(by instance: InstanceRecord, since revision: Int, except: Shown? = nil) {
        guard let onEvent, instance.context.read(\.revision) != revision else { return }
        let served = state.withLock { state in
            state.order.elements(after: 0).filter { $0.element.instance === instance && $0.element !== except }
                .map { ($0.element, state.registered(for: $0.element)?.category.actions) }
        }
        for (shown, categoryActions) in served {
            onEvent(.presentationChanged(presentation(shown, categoryActions: categoryActions, dismissed: false)))
        }
    }

    /// Moves what `instance` reported during a call for `shown` (whose
    /// registered category has `categoryActions`) into the result, and the
    /// default action it asked for into
    /// `forwarded`; returns the presentation as it is then, marked dismissed
    /// and taken off the screen when `closing` or when the extension asked to
    /// close the notification (dismissing it, or performing the default action).
    private func collectReports(of instance: InstanceRecord, for shown: Shown,
                                categoryActions: [NotificationAction]?, closing: Bool,
                                diagnostics: inout [Diagnostic], log: inout [LogLine],
                                forwarded: inout [ForwardedResponse]) -> Presentation {
        let (closes, drawn) = drainReports(of: instance, for: shown, categoryActions: categoryActions, closing: closing,
                                           diagnostics: &diagnostics, log: &log, forwarded: &forwarded)
        var current = drawn
        let removal = closes ? takeOff(shown, drawnAs: &current, diagnostics: &diagnostics) : Removal()
        dismissed(removal, because: closing ? .response : .extension)
        return current
    }

    /// `collectReports` without taking the notification off the screen:
    /// whether it closes, and the presentation as it is then.
    private func drainReports(of instance: InstanceRecord, for shown: Shown,
                              categoryActions: [NotificationAction]?, closing: Bool,
                              diagnostics: inout [Diagnostic], log: inout [LogLine],
                              forwarded: inout [ForwardedResponse]) -> (Bool, Presentation) {
        let settings = state.withLock { $0.settings(for: shown) }
        return instance.context.drainReports {
            (reports: InstanceContext.Reports, state: borrowing InstanceContext.State) -> (Bool, Presentation) in
            // Appending an empty array would still make a new buffer.
            if !reports.diagnostics.isEmpty { diagnostics += reports.diagnostics }
            if !reports.log.isEmpty { log += reports.log }
            if reports.defaultAction {
                forwarded.append(ForwardedResponse(app: shown.app, notificationIdentifier: shown.notification.identifier,
                                                   actionIdentifier: ActionIdentifier.default, userText: nil))
            }
            let closes = closing || reports.dismiss || reports.defaultAction
            return (closes, presentation(shown, of: instance, state: state, categoryActions: categoryActions,
                                          settings: settings, dismissed: closes))
        }
    }

    // MARK: Changes outside calls

    /// Has `instance` tell the host when the extension changes what shows
    /// outside a call (from a thread of its own, say).
    private func watch(_ instance: InstanceRecord?) {
        instance?.context.observe { [weak self, weak instance] in
            guard let self, let instance, !instance.isInCall,
                  instance.changedOutsideCall.exchange(true, ordering: .acquiringAndReleasing) == false
            else { return }
            // Never from the extension's own call: closing may destroy the
            // instance, which must not happen under its feet.
            self.changes.async { [weak self, weak instance] in
                guard let self, let instance else { return }
                instance.changedOutsideCall.store(false, ordering: .releasing)
                self.instanceChanged(instance)
            }
        }
    }

    /// The extension of `instance` changed what shows outside any call:
    /// every presentation it serves goes to front ends as it is now, and a
    /// request to close (or to open the app) is carried out. When a call is
    /// under way by now, the call collects the change instead.
    private func instanceChanged(_ instance: InstanceRecord) {
        var diagnostics: [Diagnostic] = []
        var log: [LogLine] = []
        var forwarded: [ForwardedResponse] = []
        // Between calls only: a call starting meanwhile waits, so what it reports stays its own.
        let drained = instance.whileIdle { () -> [(Shown, Bool, Presentation)] in
            let served = state.withLock { state in
                state.shown.values.filter { $0.instance === instance }.map { ($0, state.registered(for: $0)?.category.actions) }
            }
            return served.map { shown, categoryActions in
                let (closes, presentation) = drainReports(of: instance, for: shown, categoryActions: categoryActions,
                                                          closing: false, diagnostics: &diagnostics, log: &log,
                                                          forwarded: &forwarded)
                return (shown, closes, presentation)
            }
        } ?? []
        for (shown, closes, drawn) in drained {
            var presentation = drawn
            let removal = closes ? takeOff(shown, drawnAs: &presentation, diagnostics: &diagnostics) : Removal()
            onEvent?(.presentationChanged(presentation))
            dismissed(removal, because: .extension)
        }
        for diagnostic in diagnostics { onEvent?(.diagnostic(diagnostic, app: instance.manifest.appIdentifier)) }
        for response in forwarded { onEvent?(.forwarded(response)) }
    }
}

extension Diagnostic.Code {
    /// The notification has no category.
    package static let routeNoCategory = Self("route.no-category")
    /// No content extension of the app declares the notification's category.
    package static let routeNoExtension = Self("route.no-extension")
    /// A response named a notification that is not presented.
    package static let responseUnknownNotification = Self("response.unknown-notification")
    /// A response named an action the notification does not offer.
    package static let responseUnknownAction = Self("response.unknown-action")
    /// A text-input action was answered without text.
    package static let responseTextRequired = Self("response.text-required")
    /// Text was given for an action that takes none.
    package static let responseTextUnexpected = Self("response.text-unexpected")
    /// A dismissal of a category without customDismissAction reaches nobody.
    package static let responseDismissNotDelivered = Self("response.dismiss-not-delivered")
    /// The extension has no response handler; the app gets the response.
    package static let responseNoHandler = Self("response.no-handler")
    /// The media button was tapped on a notification that shows none.
    package static let mediaNoButton = Self("media.no-button")
}
