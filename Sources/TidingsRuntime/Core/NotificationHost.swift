import TidingsBase
import TidingsProtocol
import TidingsRegistry

/// The runtime: turns notifications into presentations through the content
/// extension their (app, category) routes to, and responses into outcomes.
///
/// A notification is never lost: when no extension serves it, or its
/// extension fails to load, to make an instance or to answer in time, it is
/// shown with its default content (and a response goes to the app), and the
/// failure is reported. Safe to use from any thread; calls to one extension
/// instance are serialised, calls to different ones are not.
///
/// The host is the public surface; the work is done by its pieces: the
/// `Screen` (the delivered set, routes and open interface under one lock,
/// and taking notifications off), `RouteFinder`, `InterfaceLifecycle`,
/// `ResponseFlow`, `ViewEvents` and `OutOfCallChanges`.
package final class NotificationHost: Sendable {
    /// The index it serves now (`replaceIndex(with:)` changes it).
    package var index: ExtensionIndex { currentIndex.value }
    private let currentIndex: CurrentIndex
    /// The settings it was made with.
    package let configuration: Configuration
    /// Where attachments are kept; nil when the configuration names no directory.
    package var attachments: AttachmentStore? { screen.attachments }
    /// What its extensions reach through the ABI: its own contexts, completions and table.
    package let endpoint: HostEndpoint
    private let providers: ProviderCache
    /// The first stage of every delivery.
    private let service: ServiceStage
    /// What shows, under the host's lock.
    private let screen: Screen
    /// Opening and closing interfaces.
    private let interfaces: InterfaceLifecycle
    /// Responses on their way.
    private let responses: ResponseFlow
    /// Media taps and element events.
    private let viewEvents: ViewEvents
    /// Asked how each notification is presented; nil presents every one with all options.
    private let decider: PresentationDecider?

    /// A host serving the bundles of `index`.
    /// - Parameters:
    ///   - launcher: how extensions are started (in this process by default).
    ///   - onEvent: hears what front ends may want to hear of (`HostEvent`):
    ///     deliveries, presentations changed, dismissals, responses sent to
    ///     the app, what happens outside any call; nil when nobody listens,
    ///     and then no event is even made.
    ///   - onDismissal: told, under the host's lock, of each notification
    ///     about to leave the screen unrecorded (a response or its extension
    ///     closes it, a front end removes it without `recordingWith`, it
    ///     expires to make room and
    ///     `deliver(_:to:width:opening:recordingWith:)` did not record that
    ///     with the delivery),
    ///     for a journal to write down in order; it must be quick and must not
    ///     call the host. When it returns a diagnostic (the record could not
    ///     be written) the notification stays shown, and the diagnostic is
    ///     reported where the dismissal would have been.
    ///   - decider: asked, after each delivery's service stage and before
    ///     anything is shown or recorded, how it is presented (an app in the
    ///     foreground chooses); nil (the command line) presents every
    ///     notification with all options.
    package init(index: ExtensionIndex, configuration: Configuration = Configuration(),
                 launcher: any ExtensionLauncher = InProcessLauncher(),
                 onEvent: (@Sendable (HostEvent) -> Void)? = nil,
                 onDismissal: @escaping @Sendable (NotificationKey) -> Diagnostic? = { _ in nil },
                 decider: PresentationDecider? = nil) {
        self.decider = decider
        currentIndex = CurrentIndex(index)
        self.configuration = configuration
        let attachments = configuration.attachmentDirectory.map {
            AttachmentStore(directory: $0, quota: configuration.attachmentQuota)
        }
        endpoint = HostEndpoint(table: HostFunctions.table(callRate: configuration.hostCallRate,
                                                           version: configuration.abiVersion),
                                clock: configuration.clock)
        providers = ProviderCache(for: endpoint)
        service = ServiceStage(index: currentIndex, providers: providers, launcher: launcher, endpoint: endpoint,
                               deadline: configuration.serviceDeadline, gracePeriod: configuration.serviceGracePeriod,
                               store: attachments, callRate: configuration.hostCallRate, onEvent: onEvent ?? { _ in },
                               onWait: configuration.onWait)
        screen = Screen(attachments: attachments,
                        keptLimits: KeptLimits(perApp: configuration.deliveredLimitPerApp,
                                               total: configuration.deliveredLimit),
                        onEvent: onEvent,
                        onDismissal: onDismissal)
        let reports = CallReports(screen: screen)
        interfaces = InterfaceLifecycle(screen: screen, reports: reports, changes: OutOfCallChanges(reports: reports),
                                        providers: providers, launcher: launcher, endpoint: endpoint,
                                        callRate: configuration.hostCallRate,
                                        viewChangeRate: configuration.viewChangeRate, onWait: configuration.onWait)
        responses = ResponseFlow(screen: screen, interfaces: interfaces, reports: reports, endpoint: endpoint,
                                 clock: configuration.clock, deadline: configuration.responseDeadline,
                                 onWait: configuration.onWait)
        viewEvents = ViewEvents(screen: screen, reports: reports, onWait: configuration.onWait)
    }

    // MARK: The bundles served

    /// Serves the bundles of `new` from now on (bundles added, removed or
    /// edited on the search path). Notifications shown keep the instances
    /// serving them; the next delivery of each (app, category) finds its
    /// extension in `new`. A bundle that failed to load is tried again. A
    /// bundle replaced (its library or manifest changed) or removed keeps
    /// no worker for later: its idle ones end, a busy one ends with its
    /// instance, and its next instance is served by its new version. A
    /// library loaded in this process keeps its code: it cannot be unloaded,
    /// so a replaced library takes effect when the host restarts.
    package func replaceIndex(with new: ExtensionIndex) {
        currentIndex.replace(with: new)
        // Before the routes forget their targets: a target made for `new` never finds the old provider.
        providers.retireChanged(in: new)
        screen.state.withLock { $0.routes.forgetTargets() }
        providers.forgetFailures()
    }

    // MARK: Categories

    /// Sets the categories of `app`, replacing those it had (setNotificationCategories).
    package func register(_ categories: [NotificationCategory], for app: String) {
        screen.state.withLock { $0.routes.register(categories, for: app) }
    }

    /// The category `identifier` of `app`, if registered.
    package func category(_ identifier: String, of app: String) -> NotificationCategory? {
        screen.state.withLock { $0.routes.category(identifier, of: app) }
    }

    /// Every app's registered categories, by app.
    package func registeredCategories() -> [String: [NotificationCategory]] {
        screen.state.withLock { $0.routes.registeredCategories() }
    }

    /// Sets the name, icon and show-previews setting of `app`, replacing those it had.
    package func register(_ registration: AppRegistration, for app: String) {
        screen.state.withLock { $0.apps[app] = registration }
    }

    /// Every app's registration, by app.
    package func registeredApps() -> [String: AppRegistration] {
        screen.state.withLock { $0.apps }
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
        deliver(original, to: app, width: width, opening: opening, recordingExpiry: false) {
            (_: UserNotification, _: Double, _: [NotificationKey]) throws(Never) in
        }
    }

    /// `deliver(_:to:width:opening:)` for a host whose changes are journaled: once
    /// the service stage has made the notification, and before anything is
    /// shown or replaced, `record` is called with it, its content width and
    /// the notification that must expire to make room for it, if one must
    /// (its key), under the lock that orders deliveries and dismissals, so
    /// that the journal holds them in the order they take effect — one
    /// record of the two, one write. Any other that must expire (when
    /// deliveries race) is recorded through `onDismissal` (see `init`),
    /// each before it leaves the screen.
    ///
    /// When `record` throws, the delivery is not made: nothing is shown,
    /// replaced or expired, no content extension sees it, its attachments
    /// leave the store, and the error is thrown.
    package func deliver<Failure: Error>(_ original: UserNotification, to app: String, width: Double? = nil,
                                        opening: Bool = false,
                                        recordingWith record: (UserNotification, Double, [NotificationKey]) throws(Failure) -> Void)
        throws(Failure) -> Delivery {
        try deliver(original, to: app, width: width, opening: opening, recordingExpiry: true, record)
    }

    /// `deliver(_:to:width:opening:recordingWith:)`; the notification that
    /// expires to make room goes to `record` only when `recordingExpiry`,
    /// else through `onDismissal`.
    private func deliver<Failure: Error>(_ original: UserNotification, to app: String, width: Double?, opening: Bool,
                                         recordingExpiry: Bool,
                                         _ record: (UserNotification, Double, [NotificationKey]) throws(Failure) -> Void)
        throws(Failure) -> Delivery {
        let serviced = service.run(original, to: app)
        let decision: PresentationDecision
        if let decider {
            let answer = Rendezvous<PresentationDecision>()
            decider(app, serviced.notification) { answer.give($0) }
            decision = answer.take()
        } else {
            decision = .all
        }
        return try show(serviced, decision, to: app, width: width, opening: opening, recordingExpiry: recordingExpiry,
                        recordingWith: record)
    }

    /// `deliver(_:to:width:opening:recordingWith:)` without waiting for the
    /// service extension: returns once it has been asked (or at once when
    /// none runs), and calls `finish` once with the delivery (or `record`'s
    /// error): on this thread when no service extension waits, else when its
    /// content handler is called or its time (and grace period) runs out, on
    /// the host's finishing thread, with no thread waiting meanwhile; when
    /// the decider answers later, on the thread it answers on.
    package func deliver<Failure: Error>(
        _ original: UserNotification, to app: String, width: Double? = nil, opening: Bool = false,
        recordingWith record: @escaping @Sendable (UserNotification, Double, [NotificationKey]) throws(Failure) -> Void,
        then finish: @escaping @Sendable (Result<Delivery, Failure>) -> Void
    ) {
        service.run(original, to: app) { serviced in
            let shown: @Sendable (PresentationDecision) -> Void = { decision in
                finish(Result { () throws(Failure) -> Delivery in
                    try self.show(serviced, decision, to: app, width: width, opening: opening, recordingExpiry: true,
                                  recordingWith: record)
                })
            }
            guard let decider = self.decider else { return shown(.all) }
            decider(app, serviced.notification, shown)
        }
    }

    /// The delivery after its service stage (`serviced`), presented as
    /// `decision` says: recorded (with the notification that expires to
    /// make room when `recordingExpiry`), shown, passed to its thread-mate's
    /// open interface, opened when `opening`; or, when the decision presents
    /// it neither as a banner nor in the list, none of that (`withheld`).
    private func show<Failure: Error>(_ serviced: ServiceStage.Outcome, _ decision: PresentationDecision, to app: String,
                                      width: Double?, opening: Bool, recordingExpiry: Bool,
                                      recordingWith record: (UserNotification, Double, [NotificationKey]) throws(Failure) -> Void)
        throws(Failure) -> Delivery {
        let width = width.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? configuration.defaultContentWidth
        let notification = serviced.notification
        var result = CallResult(diagnostics: serviced.diagnostics + decision.diagnostics, log: serviced.log)
        screen.removeUnreferenced(serviced.dropped, keeping: notification)
        let route = ExtensionIndex.Route(app: app, category: notification.content.categoryIdentifier)
        guard decision.options.isPresented else {
            return withheld(serviced, decision, to: app, width: width, result: result)
        }

        // One lock on the common path: record the delivery, with the oldest
        // that must expire to make room for it, take the previous delivery of
        // the app's identifier (or that oldest) off the screen, find what is
        // known of the route (its registered category, and where it leads).
        let begun: (ScreenState.Removal, ScreenState.Removal?, RouteTable.Known?, UInt64)
        do throws(Failure) {
            begun = try screen.state.withLock { (state: inout ScreenState) throws(Failure) in
                let key = NotificationKey(app: app, identifier: notification.identifier)
                let expiring = recordingExpiry && state.delivered[key] == nil
                    ? state.delivered.oldestToMakeRoom(forDeliveryTo: app, limits: screen.keptLimits) : nil
                try record(notification, width, expiring.map { [$0.key] } ?? [])
                let reservation = state.delivered.reserve(key)
                let retired = state.hide(key: key)
                return (retired, expiring.map { state.hide($0) }, state.routes[route], reservation)
            }
        } catch {
            screen.removeUnreferenced(notification.attachments)
            throw error
        }
        let (retired, expired, known, reservation) = begun
        screen.dispose(retired, keeping: notification)
        screen.announce(retired, because: .replaced)
        if let expired {
            screen.dispose(expired, keeping: notification)
            screen.announce(expired, because: .expired)
        }
        let categoryActions = known?.registered?.category.actions
        let target = self.target(for: route, known: known, diagnostics: &result.diagnostics)
        let quiet = configuration.presentationPolicy(app) == .quiet
        // Shown, and the open interface held when it is a thread-mate's, in one step.
        let (entry, showing, mate) = screen.state.withLock { state in
            let entry = DeliveredNotification(notification: notification, app: app, width: width, target: target,
                                              number: state.delivered.takeNumber(), quiet: quiet,
                                              options: decision.options)
            let showing = state.show(entry, reserved: reservation, limits: screen.keptLimits,
                                     recording: screen.onDismissal)
            return (entry, showing, showing.shown ? state.holdThreadMate(of: entry) : nil)
        }
        if let refusal = screen.finishShowing(showing, keeping: notification, announcingReplaced: true) {
            result.diagnostics.append(refusal)
        }
        var mateChanges: [ViewChange] = []
        if let mate {
            mateChanges = interfaces.passToThreadMate(entry, instance: mate, into: &result)
        }
        var presentation = screen.presentation(entry, categoryActions: categoryActions, dismissed: false)
        var closedByOpening: Presentation?
        var drawn: (instance: InstanceRecord, revision: Int)?
        if opening && showing.shown {
            var opened = interfaces.open(entry, categoryActions: categoryActions)
            result.diagnostics += opened.outcome.diagnostics
            result.log += opened.outcome.log
            result.forwarded += opened.outcome.forwarded
            presentation = opened.outcome.presentation
            closedByOpening = opened.closed.take()
            drawn = opened.drawn
        }
        // Front ends hear of the delivery that shows (the latest of its identifier).
        if showing.shown { screen.tellOpening(presentation, of: entry, drawn: drawn, asDelivery: true) }
        if let closedByOpening { screen.onEvent?(.presentationChanged(closedByOpening)) }
        for change in mateChanges { screen.tell(change) }
        screen.announce(forwarded: result.forwarded)
        return Delivery(presentation: presentation, service: serviced.report, createdAttachments: serviced.created,
                        diagnostics: result.diagnostics, log: result.log, forwarded: result.forwarded)
    }

    /// A delivery its decision does not present: nothing is recorded or
    /// shown, no content extension sees it, its attachments leave the store;
    /// its presentation (as it would have been, dismissed) says so.
    private func withheld(_ serviced: ServiceStage.Outcome, _ decision: PresentationDecision, to app: String,
                          width: Double, result: CallResult) -> Delivery {
        let notification = serviced.notification
        screen.removeUnreferenced(notification.attachments)
        let entry = DeliveredNotification(notification: notification, app: app, width: width, target: nil, number: 0,
                                          options: decision.options)
        let actions = screen.state.withLock { $0.routes.registered(for: entry)?.category.actions }
        var delivery = Delivery(presentation: screen.presentation(entry, categoryActions: actions, dismissed: true),
                                service: serviced.report, createdAttachments: [], diagnostics: result.diagnostics,
                                log: result.log, forwarded: [])
        delivery.display = decision.withheld
        return delivery
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
        let target = self.target(for: route, known: screen.state.withLock { $0.routes[route] }, diagnostics: &ignored)
        let quiet = configuration.presentationPolicy(app) == .quiet
        let showing = screen.state.withLock { state in
            let entry = DeliveredNotification(notification: notification, app: app, width: width, target: target,
                                              number: state.delivered.takeNumber(), quiet: quiet)
            return state.show(entry, reserved: state.delivered.reserve(entry.key),
                              limits: screen.keptLimits, recording: screen.onDismissal)
        }
        // When the oldest cannot expire, they stay: the journal reports its failure (its health).
        _ = screen.finishShowing(showing, keeping: notification, announcingReplaced: false)
    }

    /// Where `route` leads: what a delivery found before (`known`), else
    /// the index's content extension, kept for the next; nil, with a note
    /// saying why, when none serves it.
    private func target(for route: ExtensionIndex.Route, known: RouteTable.Known?,
                        diagnostics: inout [Diagnostic]) -> RouteTarget? {
        if let kept = known?.target { return kept }
        guard let found = RouteFinder(index: index).target(for: route, diagnostics: &diagnostics) else { return nil }
        return screen.state.withLock { $0.routes.keep(found, for: route) }
    }

    // MARK: Naming a notification

    /// The key of the notification `identifier` of `app`; when `app` is
    /// nil, of the one app showing a notification `identifier` — for a
    /// caller (a front end, the command line) that knows only the identifier.
    /// - Throws: `response.unknown-notification` when no app shows it,
    ///   `response.ambiguous-notification` (naming the apps) when several do.
    package func key(of identifier: String, app: String? = nil) throws(Diagnostic) -> NotificationKey {
        if let app { return NotificationKey(app: app, identifier: identifier) }
        let apps = screen.state.withLock { $0.delivered.apps(showing: identifier) }
        guard apps.count <= 1 else { throw Self.ambiguous(identifier, apps: apps) }
        guard let app = apps.first else {
            throw .error(.responseUnknownNotification, "No notification \"\(identifier)\" is presented.")
        }
        return NotificationKey(app: app, identifier: identifier)
    }

    /// The refusal of a call naming `identifier` without its app when `apps` each show one.
    package static func ambiguous(_ identifier: String, apps: [String]) -> Diagnostic {
        .error(.responseAmbiguousNotification,
               "Several apps have a notification \"\(identifier)\" delivered (\(apps.joined(separator: ", "))); name the app (\"app\").")
    }

    /// The apps that have a notification `identifier` shown, sorted.
    package func apps(showing identifier: String) -> [String] {
        screen.state.withLock { $0.delivered.apps(showing: identifier) }
    }

    // MARK: The expanded interface

    /// Opens the expanded interface of the notification shown as `key`
    /// (the user long-pressed or pulled it down): its content
    /// extension's instance is made and given the notification
    /// (`didReceive`). One interface is open at a time: the one open
    /// closes, and its instance is released. Opening the open one changes nothing.
    /// - Throws: for a notification not presented.
    package func open(_ key: NotificationKey) throws(Diagnostic) -> InterfaceOutcome {
        guard let (entry, registered) = screen.state.withLock({ state in
            state.delivered[key].map { ($0, state.routes.registered(for: $0)) }
        }) else { throw Screen.notPresented(key) }
        var opened = interfaces.open(entry, categoryActions: registered?.category.actions)
        interfaces.announce(&opened, of: entry)
        screen.announce(forwarded: opened.outcome.forwarded)
        return opened.outcome
    }

    /// `open(_:)` of the one app's notification `identifier` (`key(of:app:)`).
    package func open(_ identifier: String) throws(Diagnostic) -> InterfaceOutcome {
        try open(key(of: identifier))
    }

    /// Closes the expanded interface of the notification shown as `key`,
    /// releasing its instance; the notification stays shown, as a banner.
    /// Closing one not open changes nothing.
    /// - Throws: for a notification not presented.
    package func close(_ key: NotificationKey) throws(Diagnostic) -> Presentation {
        guard let entry = screen.state.withLock({ $0.delivered[key] }) else {
            throw Screen.notPresented(key)
        }
        let (closed, presentation) = interfaces.close(entry)
        if closed { screen.onEvent?(.presentationChanged(presentation)) }
        return presentation
    }

    /// `close(_:)` of the one app's notification `identifier` (`key(of:app:)`).
    package func close(_ identifier: String) throws(Diagnostic) -> Presentation {
        try close(key(of: identifier))
    }

    // MARK: Responding

    /// Sends the user's response to the notification presented as `key`.
    ///
    /// It goes to the content extension's response handler when there is one
    /// (whose answer decides whether the notification stays, closes, or closes
    /// and forwards the action to the app), else straight to the app.
    /// - Throws: for a notification not presented, an action it does not offer,
    ///   or text missing from (or given to) an action.
    package func respond(to key: NotificationKey, with response: ResponseRequest) throws(Diagnostic) -> ResponseOutcome {
        let outcome = Rendezvous<Result<ResponseOutcome, Diagnostic>>()
        respond(to: key, with: response) { outcome.give($0) }
        return try outcome.take().get()
    }

    /// `respond(to:with:)` to the one app's notification `identifier` (`key(of:app:)`).
    package func respond(to identifier: String, with response: ResponseRequest) throws(Diagnostic) -> ResponseOutcome {
        try respond(to: key(of: identifier), with: response)
    }

    /// `respond(to:with:)` without waiting: returns once the extension's
    /// response handler has been called, and calls `finish` once with the
    /// outcome (or why the response was refused), after front ends have heard
    /// of it. At once, on this thread, when no completion is awaited or the
    /// extension completed during its call; otherwise when the completion
    /// comes, its deadline passes or its extension ends, on the host's
    /// finishing thread, with no thread held while the extension takes its
    /// time. `finish` must not wait for another response's outcome.
    package func respond(to key: NotificationKey, with response: ResponseRequest,
                         then finish: @escaping @Sendable (Result<ResponseOutcome, Diagnostic>) -> Void) {
        responses.answer(key, with: response) { [screen] outcome in
            if case .success(let outcome) = outcome { screen.announce(forwarded: outcome.forwarded) }
            finish(outcome)
        }
    }

    /// `respond(to:with:then:)` to the one app's notification `identifier`
    /// (`key(of:app:)`); `finish` hears why when none or several show it.
    package func respond(to identifier: String, with response: ResponseRequest,
                         then finish: @escaping @Sendable (Result<ResponseOutcome, Diagnostic>) -> Void) {
        do throws(Diagnostic) {
            respond(to: try key(of: identifier), with: response, then: finish)
        } catch {
            finish(.failure(error))
        }
    }

    // MARK: The view

    /// The user tapped the media play/pause button of the notification's
    /// open interface: plays when paused, pauses when playing. Returns the
    /// presentation after, with what the extension logged meanwhile.
    /// - Throws: for a notification not presented, or whose interface is
    ///   not open or shows no media button.
    package func tapMediaButton(of key: NotificationKey) throws(Diagnostic) -> MediaTapOutcome {
        try viewEvents.tapMediaButton(of: key)
    }

    /// `tapMediaButton(of:)` of the one app's notification `identifier` (`key(of:app:)`).
    package func tapMediaButton(of identifier: String) throws(Diagnostic) -> MediaTapOutcome {
        try tapMediaButton(of: key(of: identifier))
    }

    /// A front end's event on `key`'s view: a tap on a button, a text
    /// field's submission, or the answer to the extension's text-input
    /// request. It reaches the extension only when its manifest sets
    /// UNNotificationExtensionUserInteractionEnabled and it offers
    /// `tidings.element-events/1`; the view must take it (`InstanceContext.admit`).
    /// - Throws: for a notification not presented, an event refused (with a
    ///   code saying why); nothing then reaches the extension.
    package func interact(with key: NotificationKey, _ event: ElementEvent) throws(Diagnostic) -> InteractionOutcome {
        try viewEvents.interact(with: key, event)
    }

    /// `interact(with:_:)` with the one app's notification `identifier` (`key(of:app:)`).
    package func interact(with identifier: String, _ event: ElementEvent) throws(Diagnostic) -> InteractionOutcome {
        try interact(with: key(of: identifier), event)
    }

    // MARK: Presentations

    /// The presentation of `key` now, if it is shown.
    package func presentation(of key: NotificationKey) -> Presentation? {
        let found = screen.state.withLock { state in
            state.delivered[key].map { ($0, state.routes.registered(for: $0)?.category.actions) }
        }
        return found.map { entry, categoryActions in
            screen.presentation(entry, categoryActions: categoryActions, dismissed: false)
        }
    }

    /// The identifiers of the actions the presentation of `key` offers now,
    /// in order (`presentation(of:)`'s, without drawing it); nil when it is
    /// not shown.
    package func offeredActions(of key: NotificationKey) -> [String]? {
        guard let (_, registered, instance) = screen.state.withLock({ $0.claim(key) }) else { return nil }
        defer { screen.letGo(of: instance) }
        return Screen.offeredActions(by: instance, categoryActions: registered?.category.actions).map(\.identifier)
    }

    /// `presentation(of:)` of the one app's notification `identifier`; nil
    /// when none or several apps show one.
    package func presentation(of identifier: String) -> Presentation? {
        (try? key(of: identifier)).flatMap { presentation(of: $0) }
    }

    /// The identifiers of the notifications shown, sorted (one for each
    /// app that shows it).
    package var presentedIdentifiers: [String] {
        presentedKeys.map(\.identifier)
    }

    /// The keys of the notifications shown, sorted by identifier, then app.
    package var presentedKeys: [NotificationKey] {
        screen.state.withLock { $0.delivered.keys.sorted { ($0.identifier, $0.app) < ($1.identifier, $1.app) } }
    }

    /// The notifications shown, with their apps, in the order they were
    /// delivered (getDeliveredNotifications); only `app`'s when given.
    package func delivered(ofApp app: String? = nil) -> [(app: String, notification: UserNotification)] {
        screen.state.withLock { state in
            state.delivered.inOrder(ofApp: app, after: 0).map { ($0.element.app, $0.element.notification) }
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
        screen.state.withLock { state in
            var page = DeliveredPage()
            for (number, entry) in state.delivered.inOrder(ofApp: app, after: position) {
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

    // MARK: Removing

    /// Takes the notifications `keys` name off the screen without a
    /// response (removeDeliveredNotifications): their instances end, their
    /// attachments leave the store, front ends hear they were dismissed.
    /// - Returns: the keys that were shown.
    @discardableResult
    package func remove(_ keys: [NotificationKey]) -> [NotificationKey] {
        let entries = screen.state.withLock { state in keys.compactMap { state.delivered[$0] } }
        return entries.filter { screen.retire($0, because: .removed) == nil }.map(\.key)
    }

    /// `remove(_:)` of the notifications `identifiers`, of whichever apps show them.
    /// - Returns: the identifiers that were shown.
    @discardableResult
    package func remove(_ identifiers: [String]) -> [String] {
        remove(keys(of: identifiers)).map(\.identifier)
    }

    /// The keys of the notifications `identifiers` shown, of every app that shows one.
    private func keys(of identifiers: [String]) -> [NotificationKey] {
        screen.state.withLock { state in
            identifiers.flatMap { identifier in
                state.delivered.apps(showing: identifier).map { NotificationKey(app: $0, identifier: identifier) }
            }
        }
    }

    /// `remove(_:)` for a host whose changes are journaled: `record` is
    /// called with the keys shown, under the lock that orders
    /// deliveries and dismissals, before any is taken off the screen. When it
    /// throws, nothing is removed and the error is thrown.
    /// - Returns: the keys that were shown.
    @discardableResult
    package func remove<Failure: Error>(_ keys: [NotificationKey],
                                        recordingWith record: ([NotificationKey]) throws(Failure) -> Void)
        throws(Failure) -> [NotificationKey] {
        let taken = try screen.state.withLock {
            (state: inout ScreenState) throws(Failure) -> [(DeliveredNotification, ScreenState.Removal)] in
            let entries = keys.compactMap { state.delivered[$0] }
            guard !entries.isEmpty else { return [] }
            try record(entries.map(\.key))
            return entries.map { ($0, state.hide($0)) }
        }
        for (_, removal) in taken { screen.dismissed(removal, because: .removed) }
        return taken.map(\.0.key)
    }
}
