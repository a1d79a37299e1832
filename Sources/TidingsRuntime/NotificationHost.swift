import Glibc
import Synchronization
import TidingsABI
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
        /// system's monotonic clock, or a test's. (A process running an extension elsewhere answers
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
        /// What the store keeps per notification, bundle and app (`AttachmentQuota`'s defaults unless configured).
        package var attachmentQuota = AttachmentQuota()
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

    /// One delivery, as shown. A delivery is told apart from a later one of
    /// the same request identifier by its identity.
    private final class Shown: Sendable {
        /// The notification delivered.
        let notification: UserNotification
        /// The app it is addressed to.
        let app: String
        /// The content width, in points.
        let width: Double
        /// The content extension whose interface opens for it; nil when none serves it.
        let target: RouteTarget?
        /// Its place in the order of deliveries (`State.order`).
        let number: UInt64

        /// A delivery of `notification` to `app` at `width`, whose expanded
        /// interface `target` serves, `number` in the order of deliveries.
        init(notification: UserNotification, app: String, width: Double, target: RouteTarget?, number: UInt64) {
            self.notification = notification
            self.app = app
            self.width = width
            self.target = target
            self.number = number
        }

        /// True when `other` is of the same app, of the same (non-empty)
        /// thread, and served by the same extension: a thread-mate, whose
        /// open interface it is passed to.
        func isThreadMate(of other: Shown) -> Bool {
            let thread = notification.content.threadIdentifier
            return !thread.isEmpty && thread == other.notification.content.threadIdentifier && app == other.app
                && target != nil && target?.manifest.bundleIdentifier == other.target?.manifest.bundleIdentifier
        }
    }

    /// The expanded interface open now: one per host, as on a phone's screen.
    private struct OpenInterface {
        /// The notification whose interface it is.
        let shown: Shown
        /// The instance serving it; nil when none could be made (the
        /// interface then shows the default content).
        var instance: InstanceRecord?
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
        /// The expanded interface open now, if any.
        private(set) var open: OpenInterface?
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

        /// What shows as `identifier`, with its registered category and the
        /// instance of its interface when that is open, held for the caller,
        /// who lets go of it.
        func claim(_ identifier: String) -> (Shown, Registered?, InstanceRecord?)? {
            guard let entry = shown[identifier] else { return nil }
            let instance = interface(of: entry)?.instance
            instance?.holds.add(1, ordering: .relaxed)
            return (entry, registered(for: entry), instance)
        }

        /// The open interface, when it is `entry`'s.
        func interface(of entry: Shown) -> OpenInterface? {
            open.flatMap { $0.shown === entry ? $0 : nil }
        }

        /// The instance of the open interface when `entry` is a thread-mate
        /// of its notification, held for the caller, who lets go of it.
        func holdThreadMate(of entry: Shown) -> InstanceRecord? {
            guard let open, let instance = open.instance, open.shown !== entry, entry.isThreadMate(of: open.shown)
            else { return nil }
            instance.holds.add(1, ordering: .relaxed)
            return instance
        }

        /// Opens the interface of `entry`, served by `instance` (held by the
        /// interface and by the caller, who lets go of it), closing the one
        /// open; returns the one closed, with its instance when nobody holds
        /// it any more: to be destroyed. Nil when `entry` no longer shows.
        mutating func open(_ entry: Shown, with instance: InstanceRecord?) -> (closed: Shown?, ended: InstanceRecord?)? {
            guard isShowing(entry) else { return nil }
            instance?.holds.add(2, ordering: .relaxed)
            let previous = open
            open = OpenInterface(shown: entry, instance: instance)
            return (previous?.shown, previous?.instance.flatMap { letGo(of: $0) })
        }

        /// Closes the interface of `entry` when it is open (and, when
        /// `instance` is given, only while that instance serves it); returns
        /// whether it was, and its instance when nobody holds it any more.
        mutating func closeInterface(of entry: Shown, servedBy instance: InstanceRecord? = nil)
            -> (closed: Bool, ended: InstanceRecord?) {
            guard let current = interface(of: entry), instance == nil || current.instance === instance
            else { return (false, nil) }
            open = nil
            return (true, current.instance.flatMap { letGo(of: $0) })
        }

        /// Lets go of one hold on `instance`; returns it when that was the
        /// last: to be destroyed.
        func letGo(of instance: InstanceRecord) -> InstanceRecord? {
            instance.holds.subtract(1, ordering: .relaxed).newValue == 0 ? instance : nil
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
        /// under its identifier; then takes the oldest off while more than
        /// `limit` show, each once `record` has written its dismissal (see
        /// `Showing`). When a later delivery of the identifier has reserved it
        /// since, `entry` is not shown: it counts as replaced by that one at
        /// once.
        mutating func show(_ entry: Shown, reserved reservation: UInt64, limit: Int?,
                           recording record: (String) -> Diagnostic?) -> Showing {
            let identifier = entry.notification.identifier
            var showing = Showing(shown: reservations[identifier] == reservation, replaced: Removal(entry: entry))
            if showing.shown {
                reservations[identifier] = nil
                order.insert(entry, as: entry.number)
                showing.replaced = Removal()
                if let previous = shown.updateValue(entry, forKey: identifier) {
                    order.remove(previous.number)
                    showing.replaced = release(previous)
                }
                groups[GroupKey(entry), default: [:]][identifier] = entry.notification
            }
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

        /// Closes `entry`'s interface when it is open; its instance is to be
        /// destroyed when nobody else holds it.
        private mutating func release(_ entry: Shown) -> Removal {
            let group = GroupKey(entry)
            groups[group]?[entry.notification.identifier] = nil
            if groups[group]?.isEmpty == true { groups[group] = nil }
            var removal = Removal(entry: entry)
            if let ended = closeInterface(of: entry).ended { removal.ended.append(ended) }
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

    /// Lets go of the hold a call took on `instance` (`State.claim`),
    /// destroying the instance when that was the last hold.
    private func letGo(of instance: InstanceRecord?) {
        guard let instance else { return }
        state.withLock { $0.letGo(of: instance) }?.destroy()
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
        let attachments = configuration.attachmentDirectory.map {
            AttachmentStore(directory: $0, quota: configuration.attachmentQuota)
        }
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
    /// and has alert text), then shown as a banner — its default content,
    /// title and actions — running no content-extension code, as on iOS. A
    /// thread-mate of the notification whose expanded interface is open is
    /// passed to that interface's instance (`didReceive` again).
    /// - Parameters:
    ///   - width: the front end's content width in points; the configured default when nil.
    ///   - opening: open its expanded interface at once (`open(_:)`), for a
    ///     front end that always shows the extension's view.
    package func deliver(_ original: UserNotification, to app: String, width: Double? = nil,
                         opening: Bool = false) -> Delivery {
        deliver(original, to: app, width: width, opening: opening) { (_: UserNotification, _: Double) throws(Never) in }
    }

    /// `deliver(_:to:width:opening:)` for a host whose changes are journaled: once
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
                                        opening: Bool = false,
                                        recordingWith record: (UserNotification, Double) throws(Failure) -> Void)
        throws(Failure) -> Delivery {
        let width = width.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? configuration.defaultContentWidth
        let serviced = service.run(original, to: app)
        let notification = serviced.notification
        var diagnostics = serviced.diagnostics
        var log = serviced.log
        var forwarded: [ForwardedResponse] = []
        removeUnreferenced(serviced.dropped, keeping: notification)
        let route = ExtensionIndex.Route(app: app, category: notification.content.categoryIdentifier)

        // One lock on the common path: record the delivery, take the previous
        // delivery of the identifier off the screen, find what is known of the
        // route (its registered category, and where it leads).
        let begun: (Removal, KnownRoute?, UInt64)
        do throws(Failure) {
            begun = try state.withLock { (state: inout State) throws(Failure) in
                try record(notification, width)
                let reservation = state.reserve(notification.identifier)
                let retired = state.hide(identifier: notification.identifier)
                return (retired, state.routes[route], reservation)
            }
        } catch {
            removeUnreferenced(notification.attachments)
            throw error
        }
        let (retired, known, reservation) = begun
        dispose(retired, keeping: notification)
        announce(retired, because: .replaced)
        let categoryActions = known?.registered?.category.actions
        let target = self.target(for: route, known: known, diagnostics: &diagnostics)
        // Shown, and the open interface held when it is a thread-mate's, in one step.
        let (shown, showing, mate) = state.withLock { state in
            let shown = Shown(notification: notification, app: app, width: width, target: target,
                              number: state.takeNumber())
            let showing = state.show(shown, reserved: reservation, limit: configuration.deliveredLimit,
                                     recording: onDismissal)
            return (shown, showing, showing.shown ? state.holdThreadMate(of: shown) : nil)
        }
        if let refusal = finishShowing(showing, keeping: notification, announcingReplaced: true) {
            diagnostics.append(refusal)
        }
        var mateChanges: [Presentation] = []
        if let mate {
            mateChanges = passToThreadMate(notification, instance: mate, diagnostics: &diagnostics, log: &log,
                                           forwarded: &forwarded)
        }
        var presentation = self.presentation(shown, categoryActions: categoryActions, dismissed: false)
        var closedByOpening: Presentation?
        if opening && showing.shown {
            var opened = openInterface(of: shown, categoryActions: categoryActions)
            diagnostics += opened.outcome.diagnostics
            log += opened.outcome.log
            forwarded += opened.outcome.forwarded
            presentation = opened.outcome.presentation
            closedByOpening = opened.closed.take()
        }
        // Front ends hear of the delivery that shows (the latest of its identifier).
        if showing.shown { onEvent?(.delivered(presentation)) }
        if let closedByOpening { onEvent?(.presentationChanged(closedByOpening)) }
        for change in mateChanges { onEvent?(.presentationChanged(change)) }
        for response in forwarded { onEvent?(.forwarded(response)) }
        return Delivery(presentation: presentation, service: serviced.report, createdAttachments: serviced.created,
                        diagnostics: diagnostics, log: log, forwarded: forwarded)
    }

    /// Puts a notification delivered before this host started (kept by a
    /// server across a restart) back among those shown, after those shown
    /// already, as a banner: its interface is closed, as every interface
    /// is when a phone restarts.
    package func restore(_ notification: UserNotification, to app: String, width: Double) {
        attachments?.adopt(notification.attachments,
                           for: AttachmentStore.Owner(app: app, notification: notification.identifier, bundle: nil))
        let route = ExtensionIndex.Route(app: app, category: notification.content.categoryIdentifier)
        var ignored: [Diagnostic] = []
        let target = self.target(for: route, known: state.withLock { $0.routes[route] }, diagnostics: &ignored)
        let showing = state.withLock { state in
            let entry = Shown(notification: notification, app: app, width: width, target: target,
                              number: state.takeNumber())
            return state.show(entry, reserved: state.reserve(notification.identifier),
                              limit: configuration.deliveredLimit, recording: onDismissal)
        }
        // When the oldest cannot expire, they stay: the journal reports its failure (its health).
        _ = finishShowing(showing, keeping: notification, announcingReplaced: false)
    }

    /// Passes `notification` to `instance`, the open interface's (held for
    /// this call, let go of here), as a thread-mate delivered while it is
    /// open; returns the open presentation as it changed, if it did.
    private func passToThreadMate(_ notification: UserNotification, instance: InstanceRecord,
                                  diagnostics: inout [Diagnostic], log: inout [LogLine],
                                  forwarded: inout [ForwardedResponse]) -> [Presentation] {
        defer { letGo(of: instance) }
        let revision = instance.context.update { state in
            state.attachments = notification.attachments
            return state.revision
        }
        do throws(Diagnostic) {
            try instance.call { (extensionInstance: any ExtensionInstance) throws(Diagnostic) in
                try extensionInstance.didReceive(notification)
            }
        } catch {
            diagnostics.append(error)
            return interfaceFailed(instance)
        }
        guard let open = state.withLock({ $0.open }), open.instance === instance else { return [] }
        let categoryActions = state.withLock { $0.registered(for: open.shown)?.category.actions }
        let changed = instance.context.read(\.revision) != revision
        let (requested, drawn) = drainReports(of: instance, for: open.shown, categoryActions: categoryActions,
                                              closing: false, diagnostics: &diagnostics, log: &log,
                                              forwarded: &forwarded)
        var presentation = drawn
        let closes = carryOut(requested, for: open.shown, servedBy: instance, drawnAs: &presentation,
                              diagnostics: &diagnostics)
        return changed || closes ? [presentation] : []
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

    /// Where `route` leads: what a delivery found before (`known`), else
    /// the index's content extension, kept for the next; nil, with a note
    /// saying why, when none serves it.
    private func target(for route: ExtensionIndex.Route, known: KnownRoute?,
                        diagnostics: inout [Diagnostic]) -> RouteTarget? {
        if let kept = known?.target { return kept }
        guard let found = target(for: route, diagnostics: &diagnostics) else { return nil }
        return state.withLock { $0.keep(found, for: route) }
    }

    // MARK: The expanded interface

    /// Opens the expanded interface of the notification shown as
    /// `identifier` (the user long-pressed or pulled it down): its content
    /// extension's instance is made and given the notification
    /// (`didReceive`). One interface is open at a time: the one open
    /// closes, and its instance is released. Opening the open one changes nothing.
    /// - Throws: for a notification not presented.
    package func open(_ identifier: String) throws(Diagnostic) -> InterfaceOutcome {
        guard let (shown, registered) = state.withLock({ state in
            state.shown[identifier].map { ($0, state.registered(for: $0)) }
        }) else { throw Self.notPresented(identifier) }
        var opened = openInterface(of: shown, categoryActions: registered?.category.actions)
        if let closed = opened.closed.take() { onEvent?(.presentationChanged(closed)) }
        if opened.changed { onEvent?(.presentationChanged(opened.outcome.presentation)) }
        for response in opened.outcome.forwarded { onEvent?(.forwarded(response)) }
        return opened.outcome
    }

    /// Closes the expanded interface of the notification shown as
    /// `identifier`, releasing its instance; the notification stays shown,
    /// as a banner. Closing one not open changes nothing.
    /// - Throws: for a notification not presented.
    package func close(_ identifier: String) throws(Diagnostic) -> Presentation {
        guard let shown = state.withLock({ $0.shown[identifier] }) else { throw Self.notPresented(identifier) }
        let (closed, ended) = state.withLock { $0.closeInterface(of: shown) }
        ended?.destroy()
        let presentation = currentPresentation(of: shown)
        if closed { onEvent?(.presentationChanged(presentation)) }
        return presentation
    }

    /// The diagnostic for a request naming a notification not presented.
    private static func notPresented(_ identifier: String) -> Diagnostic {
        .error(.responseUnknownNotification, "No notification \"\(identifier)\" is presented.")
    }

    /// What opening an interface did, left for its caller to tell front ends.
    private struct Opening {
        /// What the caller returns.
        var outcome: InterfaceOutcome
        /// The presentation of the notification whose interface closed for
        /// it, as a banner now, if one did.
        var closed: Presentation?
        /// False when the interface was open already.
        var changed = true
        /// The instance made, held for the caller when it asked to hold it
        /// (who then lets go of it), even if another interface opened since.
        var held: InstanceRecord?
    }

    /// Opens the interface of `shown`, whose registered category has
    /// `categoryActions`, without telling front ends; when `holding`, its
    /// instance stays held for the caller (`Opening.held`).
    private func openInterface(of shown: Shown, categoryActions: [NotificationAction]?,
                               holding: Bool = false) -> Opening {
        let alreadyOpen = state.withLock { state -> OpenInterface? in
            let open = state.interface(of: shown)
            if holding { open?.instance?.holds.add(1, ordering: .relaxed) }
            return open
        }
        if let alreadyOpen {
            return Opening(outcome: InterfaceOutcome(presentation: currentPresentation(of: shown)), changed: false,
                           held: holding ? alreadyOpen.instance : nil)
        }
        var diagnostics: [Diagnostic] = []
        var log: [LogLine] = []
        var forwarded: [ForwardedResponse] = []
        var instance: InstanceRecord?
        if let target = shown.target {
            do throws(Diagnostic) {
                let provider = try target.provider(from: providers, launcher: launcher)
                instance = InstanceRecord(target: target, provider: provider, callRate: configuration.hostCallRate,
                                          in: endpoint.contexts)
            } catch {
                diagnostics.append(error)
            }
        }
        guard let (closedShown, ended) = state.withLock({ $0.open(shown, with: instance) }) else {
            // Taken off meanwhile: nothing to open.
            instance?.destroy()
            return Opening(outcome: InterfaceOutcome(presentation: currentPresentation(of: shown, dismissed: true),
                                                     diagnostics: diagnostics), changed: false)
        }
        ended?.destroy()
        let closed = closedShown.map { currentPresentation(of: $0) }
        guard let instance else {
            return Opening(outcome: InterfaceOutcome(presentation: currentPresentation(of: shown),
                                                     diagnostics: diagnostics), closed: closed)
        }
        var keepsHold = holding
        defer { if !keepsHold { letGo(of: instance) } }
        watch(instance)
        instance.context.update { state in
            state.attachments = shown.notification.attachments
            state.categoryActions = categoryActions ?? []
        }
        do throws(Diagnostic) {
            try instance.call { (extensionInstance: any ExtensionInstance) throws(Diagnostic) in
                try extensionInstance.didReceive(shown.notification)
            }
        } catch {
            diagnostics.append(error)
            keepsHold = false
            _ = interfaceFailed(instance)
            return Opening(outcome: InterfaceOutcome(presentation: currentPresentation(of: shown),
                                                     diagnostics: diagnostics), closed: closed)
        }
        let (requested, drawn) = drainReports(of: instance, for: shown, categoryActions: categoryActions,
                                              closing: false, diagnostics: &diagnostics, log: &log,
                                              forwarded: &forwarded)
        var presentation = drawn
        _ = carryOut(requested, for: shown, servedBy: instance, drawnAs: &presentation, diagnostics: &diagnostics)
        return Opening(outcome: InterfaceOutcome(presentation: presentation, diagnostics: diagnostics, log: log,
                                                 forwarded: forwarded), closed: closed, held: holding ? instance : nil)
    }

    /// The call into `instance`, the open interface's, failed (its extension
    /// ended): the instance is gone, and the interface closes. Returns the
    /// presentation of the notification whose interface closed, if it did.
    private func interfaceFailed(_ instance: InstanceRecord) -> [Presentation] {
        instance.context.close()
        guard let open = state.withLock({ $0.open }), open.instance === instance else { return [] }
        let (closed, ended) = state.withLock { $0.closeInterface(of: open.shown, servedBy: instance) }
        ended?.destroy()
        return closed ? [currentPresentation(of: open.shown)] : []
    }

    /// What a call's reports ask of the notification it was about.
    private struct Requested {
        /// Take the notification off the screen: a response closed it, or
        /// the extension performed the default action (which opens the app).
        var takeOff = false
        /// Why, when it is taken off.
        var reason = DismissReason.extension
        /// Close its interface only (dismissNotificationContentExtension).
        var closeInterface = false
    }

    /// Carries out what `requested` asks of `shown`, whose interface
    /// `instance` serves, leaving `presentation` as it is then; returns
    /// whether the notification or its interface closed.
    private func carryOut(_ requested: Requested, for shown: Shown, servedBy instance: InstanceRecord,
                          drawnAs presentation: inout Presentation, diagnostics: inout [Diagnostic]) -> Bool {
        if requested.takeOff {
            dismissed(takeOff(shown, drawnAs: &presentation, diagnostics: &diagnostics), because: requested.reason)
            return presentation.dismissed
        }
        guard requested.closeInterface else { return false }
        let (closed, ended) = state.withLock { $0.closeInterface(of: shown, servedBy: instance) }
        ended?.destroy()
        // The view shows as it was when the interface closed, as when a response closes the notification.
        if closed { presentation.expanded = false }
        return closed
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
        guard let (shown, registered, held) = state.withLock({ $0.claim(identifier) }) else {
            throw Self.notPresented(identifier)
        }
        var instance = held
        defer { letGo(of: instance) }
        let categoryActions = registered?.category.actions
        var diagnostics: [Diagnostic] = []
        var log: [LogLine] = []
        var forwarded: [ForwardedResponse] = []
        let toApp = ForwardedResponse(app: shown.app, notification: shown.notification,
                                      actionIdentifier: response.actionIdentifier, userText: response.userText)
        let isDismissal = response.actionIdentifier == ActionIdentifier.dismiss
        try validate(response, against: instance?.context.read(\.actions) ?? categoryActions ?? [],
                     category: shown.notification.content.categoryIdentifier, registered: registered != nil)

        // The dismiss and default actions go to the app, never to the extension, as on iOS.
        if isDismissal || response.actionIdentifier == ActionIdentifier.default {
            let reachesApp = !isDismissal || (registered?.category.options.contains(.customDismissAction) ?? false)
            if !reachesApp {
                diagnostics.append(.note(.responseDismissNotDelivered,
                                         "The category lacks customDismissAction, so the dismissal reaches neither the extension nor the app."))
            }
            let presentation = close(shown, categoryActions: categoryActions, diagnostics: &diagnostics)
            return ResponseOutcome(response: response, receiver: reachesApp ? .app : .nobody, option: nil,
                                   presentation: presentation, forwarded: reachesApp ? [toApp] : [],
                                   diagnostics: diagnostics, log: log)
        }
        // A custom action on a closed interface opens it first when the
        // extension has a response handler: its handler expects a view
        // controller that received the notification, as on iOS, where
        // actions are chosen from the expanded interface.
        if instance == nil, let target = shown.target, handlesResponses(target, diagnostics: &diagnostics) {
            // Held for this response even if another interface opens meanwhile.
            var opened = openInterface(of: shown, categoryActions: categoryActions, holding: true)
            diagnostics += opened.outcome.diagnostics
            log += opened.outcome.log
            forwarded += opened.outcome.forwarded
            if let closed = opened.closed.take() { onEvent?(.presentationChanged(closed)) }
            onEvent?(.presentationChanged(opened.outcome.presentation))
            instance = opened.held
        }
        guard let instance, instance.started.provider.handlesResponses else {
            if shown.target != nil && !diagnostics.containsError {
                diagnostics.append(.note(.responseNoHandler,
                                         "The extension has no response handler, so the response goes straight to the app."))
            }
            let presentation = close(shown, categoryActions: categoryActions, diagnostics: &diagnostics)
            return ResponseOutcome(response: response, receiver: .app, option: nil, presentation: presentation,
                                   forwarded: forwarded + [toApp], diagnostics: diagnostics, log: log)
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
                                          closing: effective != .doNotDismiss,
                                          diagnostics: &diagnostics, log: &log, forwarded: &forwarded)
        switch answer {
        case .option, .content, .invalid:  // an undefined option is reported by the completion center
            break
        case nil where pending.isAbandoned:
            diagnostics.append(.error(.completionAbandoned,
                                      "\(instance.manifest.bundleIdentifier)'s extension ended before it completed the response; the notification is closed and the action forwarded to the app."))
        case nil:
            if !diagnostics.containsError {
                diagnostics.append(.error(.completionTimeout,
                                          "\(instance.manifest.bundleIdentifier) did not complete the response within \(NumberText.short(configuration.responseDeadline)) s (--deadline); the host applied dismissAndForwardAction: the notification is closed and the action forwarded to the app. A completion after this is reported, and is no fault."))
            }
        }
        if effective == .dismissAndForwardAction { forwarded.append(toApp) }
        return ResponseOutcome(response: response, receiver: .extension, option: option, presentation: presentation,
                               forwarded: forwarded, diagnostics: diagnostics, log: log)
    }

    /// True when the extension `target` leads to has a response handler
    /// (launching it when it is not yet); false, with why, when it cannot start.
    private func handlesResponses(_ target: RouteTarget, diagnostics: inout [Diagnostic]) -> Bool {
        do throws(Diagnostic) {
            return try target.provider(from: providers, launcher: launcher).provider.handlesResponses
        } catch {
            diagnostics.append(error)
            return false
        }
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

    /// The user tapped the media play/pause button of the notification's
    /// open interface: plays when paused, pauses when playing.
    /// - Throws: for a notification not presented, or whose interface is
    ///   not open or shows no media button.
    package func tapMediaButton(of identifier: String) throws(Diagnostic) -> Presentation {
        guard let (shown, registered, held) = state.withLock({ $0.claim(identifier) }) else {
            throw Self.notPresented(identifier)
        }
        defer { letGo(of: held) }
        guard let instance = held else {
            throw .error(.mediaNoButton, "The notification \"\(identifier)\"'s interface is not open, so it shows no media button; open it first.")
        }
        guard let button = instance.context.snapshot().mediaButton, button.type != 0 else {
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
        return collectReports(of: instance, for: shown, categoryActions: registered?.category.actions, closing: false,
                              diagnostics: &ignored.0, log: &ignored.1, forwarded: &ignored.2)
    }

    // MARK: Elements

    /// A front end's event on `identifier`'s view: a tap on a button, a text
    /// field's submission, or the answer to the extension's text-input
    /// request. It reaches the extension only when its manifest sets
    /// UNNotificationExtensionUserInteractionEnabled and it offers
    /// `tidings.element-events/1`; the view must take it (`InstanceContext.admit`).
    /// - Throws: for a notification not presented, an event refused (with a
    ///   code saying why); nothing then reaches the extension.
    package func interact(with identifier: String, _ event: ElementEvent) throws(Diagnostic) -> InteractionOutcome {
        if let violation = event.violation { throw .error(.elementInvalid, violation) }
        guard let (shown, registered, held) = state.withLock({ $0.claim(identifier) }) else {
            throw .error(.responseUnknownNotification, "No notification \"\(identifier)\" is presented.")
        }
        defer { letGo(of: held) }
        guard let instance = held else {
            throw .error(.elementInterfaceClosed,
                         "The notification \"\(identifier)\"'s interface is not open, so its elements cannot be touched; open it first.")
        }
        let name = instance.manifest.bundleIdentifier
        guard instance.manifest.userInteractionEnabled else {
            throw .error(.elementInteractionDisabled,
                         "\(name)'s manifest does not set UNNotificationExtensionUserInteractionEnabled to true, so touches and text never reach its view.")
        }
        guard instance.started.provider.handlesElementEvents else {
            throw .error(.elementEventsNotHandled,
                         "\(name) offers no \(TIDINGS_ELEMENT_EVENTS_INTERFACE) interface, so its view's events cannot reach it.")
        }
        try instance.context.admit(event)
        var diagnostics: [Diagnostic] = []
        var log: [LogLine] = []
        var forwarded: [ForwardedResponse] = []
        do throws(Diagnostic) {
            try instance.call { (extensionInstance: any ExtensionInstance) throws(Diagnostic) in try extensionInstance.handle(event) }
        } catch {
            diagnostics.append(error)
        }
        let presentation = collectReports(of: instance, for: shown, categoryActions: registered?.category.actions,
                                          closing: false, diagnostics: &diagnostics, log: &log, forwarded: &forwarded)
        for response in forwarded { onEvent?(.forwarded(response)) }
        return InteractionOutcome(event: event, presentation: presentation, forwarded: forwarded, diagnostics: diagnostics,
                                  log: log)
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

    /// What a front end shows for `shown`, whose registered category has
    /// `categoryActions`: a banner, or its expanded interface as its
    /// instance is now when that is open.
    private func presentation(_ shown: Shown, categoryActions: [NotificationAction]?, dismissed: Bool) -> Presentation {
        let (settings, open) = state.withLock { ($0.settings(for: shown), $0.interface(of: shown)) }
        guard let open, let instance = open.instance else {
            // A banner names the extension whose interface opens; an interface whose extension failed, none.
            return Presentation(
                notification: shown.notification, app: shown.app,
                extensionIdentifier: open == nil ? shown.target?.manifest.bundleIdentifier : nil,
                header: settings.app.name ?? shown.app,
                defaultContentHidden: false, contentWidth: shown.width, initialContentHeight: nil, contentHeight: nil,
                view: nil, actions: categoryActions ?? [], mediaButton: nil, mediaPlaying: false,
                userInteractionEnabled: false, expanded: open != nil, dismissed: dismissed, settings: settings)
        }
        return instance.context.read { state in
            presentation(shown, of: instance, state: state, categoryActions: categoryActions, settings: settings,
                         dismissed: dismissed)
        }
    }

    /// `presentation(_:categoryActions:dismissed:)` for a notification
    /// shown, with its registered category's actions.
    private func currentPresentation(of shown: Shown, dismissed: Bool = false) -> Presentation {
        presentation(shown, categoryActions: state.withLock { $0.registered(for: shown)?.category.actions },
                     dismissed: dismissed)
    }

    /// What a front end shows for `shown`'s expanded interface, whose
    /// registered category has `categoryActions`, with `instance` in `state`
    /// and the app's and category's `settings`.
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
            expanded: !dismissed, dismissed: dismissed, settings: settings, textInput: state.textInput)
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
            // Its interface closed with it; the view shows as it was last.
            presentation.expanded = false
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

    /// Moves what `instance` reported during a call for `shown` (whose
    /// registered category has `categoryActions`) into the result, and the
    /// default action it asked for into `forwarded`, and carries out what
    /// it asked; returns the presentation as it is then: marked dismissed
    /// and taken off the screen when `closing` (a response's answer closes
    /// it) or when the extension performed the default action, a banner
    /// when the extension closed its interface.
    private func collectReports(of instance: InstanceRecord, for shown: Shown,
                                categoryActions: [NotificationAction]?, closing: Bool,
                                diagnostics: inout [Diagnostic], log: inout [LogLine],
                                forwarded: inout [ForwardedResponse]) -> Presentation {
        let (requested, drawn) = drainReports(of: instance, for: shown, categoryActions: categoryActions,
                                              closing: closing, diagnostics: &diagnostics, log: &log,
                                              forwarded: &forwarded)
        var current = drawn
        _ = carryOut(requested, for: shown, servedBy: instance, drawnAs: &current, diagnostics: &diagnostics)
        return current
    }

    /// `collectReports` without carrying out what the extension asked:
    /// what it asked, and the presentation as it is then.
    private func drainReports(of instance: InstanceRecord, for shown: Shown,
                              categoryActions: [NotificationAction]?, closing: Bool,
                              diagnostics: inout [Diagnostic], log: inout [LogLine],
                              forwarded: inout [ForwardedResponse]) -> (Requested, Presentation) {
        let settings = state.withLock { $0.settings(for: shown) }
        return instance.context.drainReports {
            (reports: InstanceContext.Reports, state: borrowing InstanceContext.State) -> (Requested, Presentation) in
            // Appending an empty array would still make a new buffer.
            if !reports.diagnostics.isEmpty { diagnostics += reports.diagnostics }
            if !reports.log.isEmpty { log += reports.log }
            if reports.defaultAction {
                forwarded.append(ForwardedResponse(app: shown.app, notification: shown.notification,
                                                   actionIdentifier: ActionIdentifier.default, userText: nil))
            }
            let requested = Requested(takeOff: closing || reports.defaultAction,
                                      reason: closing ? .response : .extension, closeInterface: reports.dismiss)
            return (requested, presentation(shown, of: instance, state: state, categoryActions: categoryActions,
                                             settings: settings, dismissed: requested.takeOff))
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
    /// the open interface it serves goes to front ends as it is now, and a
    /// request to close it (or to open the app) is carried out. When a call
    /// is under way by now, the call collects the change instead.
    private func instanceChanged(_ instance: InstanceRecord) {
        var diagnostics: [Diagnostic] = []
        var log: [LogLine] = []
        var forwarded: [ForwardedResponse] = []
        // Between calls only: a call starting meanwhile waits, so what it reports stays its own.
        let drained = instance.whileIdle { () -> (Shown, Requested, Presentation)? in
            let served = state.withLock { state in
                state.open.flatMap { $0.instance === instance ? ($0.shown, state.registered(for: $0.shown)) : nil }
            }
            return served.map { shown, registered in
                let (requested, presentation) = drainReports(of: instance, for: shown,
                                                             categoryActions: registered?.category.actions,
                                                             closing: false, diagnostics: &diagnostics, log: &log,
                                                             forwarded: &forwarded)
                return (shown, requested, presentation)
            }
        } ?? nil
        if let (shown, requested, drawn) = drained {
            var presentation = drawn
            // Front ends hear of the change before the notification leaves, if it does.
            if requested.takeOff { onEvent?(.presentationChanged(presentation)) }
            _ = carryOut(requested, for: shown, servedBy: instance, drawnAs: &presentation, diagnostics: &diagnostics)
            if !requested.takeOff { onEvent?(.presentationChanged(presentation)) }
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
