import Glibc
import TidingsBase
import TidingsProtocol

/// The notification portal's side: AddNotification and RemoveNotification
/// become deliveries and removals on the server, one call after another in
/// the order the portal made them; a response to a portal notification goes
/// back as the portal's ActionInvoked instead of ActivateAction.
extension DesktopFrontEnd {
    /// The most portal calls kept while the server is away or busy: older ones beyond it are dropped.
    static let portalQueueLimit = 256

    /// Takes the calls and refusals the backend met in the last `processPending`.
    func takePortalCalls(from bus: DesktopBus) {
        guard let portal = bus.portal else { return }
        for sentence in portal.takeRefusals() {
            log.record("portal-refused", [("reason", .string(sentence))], sentence)
        }
        let calls = portal.takeCalls()
        guard !calls.isEmpty else { return }
        portalCalls += calls
        if portalCalls.count > Self.portalQueueLimit {
            let dropped = portalCalls.count - Self.portalQueueLimit
            portalCalls.removeFirst(dropped)
            log.record("portal-dropped", [("calls", .integer(Int64(dropped)))],
                       "\(dropped) portal calls were dropped: the server is away or too slow")
        }
        pumpPortal()
    }

    /// Handles the next portal call, when the server is there and none is under way.
    func pumpPortal() {
        guard !portalBusy, synchronised, server != nil, !portalCalls.isEmpty else { return }
        let call = portalCalls.removeFirst()
        portalBusy = true
        let next: () -> Void = { [unowned self] in
            portalBusy = false
            pumpPortal()
        }
        switch call {
        case .add(let appID, let id, let notification): addPortalNotification(appID: appID, id: id, notification, then: next)
        case .remove(let appID, let id): removePortalNotification(appID: appID, id: id, then: next)
        }
    }

    /// Delivers a portal notification: its app's categories asked for (the
    /// portal's `category` may name one), the buttons' category registered
    /// beside them when it is new, then `notifications.deliver`.
    private func addPortalNotification(appID: String, id: String, _ notification: PortalNotification,
                                       then next: @escaping () -> Void) {
        guard let server else { return next() }
        let app = appID.isEmpty ? PortalDelivery.hostApp : appID
        var iconPath: String?
        if case .bytes(let bytes)? = notification.icon {
            switch PortalIcon.write(bytes, in: portalIconDirectory) {
            case .success(let path): iconPath = path
            case .failure(let refusal): log.record("portal-icon", [("app", .string(app)), ("reason", .string(refusal.sentence))],
                                                   "\(app)'s \(id): the icon is left out (\(refusal.sentence))")
            }
        }
        server.call(.categoriesList, .object([("app", .string(app))])) { [unowned self] answer in
            let registered = (try? answer.get())?["apps"]?.arrayValue?.first { $0["app"]?.stringValue == app }?["categories"]?
                .arrayValue ?? []
            let identifiers = Set(registered.compactMap { $0["identifier"]?.stringValue })
            let delivery = PortalDelivery(appID: appID, id: id, notification, appCategories: identifiers, iconPath: iconPath)
            guard let category = delivery.category, let identifier = category["identifier"]?.stringValue,
                  !identifiers.contains(identifier) else { return deliverPortal(delivery, notification, then: next) }
            // categories.register replaces the app's categories: its own are kept, and
            // of the portal's the newest `portalCategoryLimit` - 1.
            let mine = registered.filter { $0["identifier"]?.stringValue?.hasPrefix(PortalDelivery.categoryPrefix) == true }
            let others = registered.filter { $0["identifier"]?.stringValue?.hasPrefix(PortalDelivery.categoryPrefix) != true }
            let kept = others + mine.suffix(Self.portalCategoryLimit - 1) + [category]
            guard let server = self.server else { return next() }
            server.call(.categoriesRegister, .object([("app", .string(app)), ("categories", .array(kept))])) { [unowned self] answer in
                if case .failure(let error) = answer {
                    log.record("portal-category", [("app", .string(app)), ("error", .string(error.message))],
                               "cannot register the category of \(app)'s buttons: \(error.message)")
                }
                deliverPortal(delivery, notification, then: next)
            }
        }
    }

    /// The most categories the front end keeps registered for an app's buttons.
    static let portalCategoryLimit = 32

    /// Where bytes icons are written for their delivery: beside the server's socket (the user's runtime directory).
    var portalIconDirectory: String { Path.directory(of: options.socketPath) + "/portal-icons" }

    /// `notifications.deliver` of `delivery`, always naming its app.
    private func deliverPortal(_ delivery: PortalDelivery, _ notification: PortalNotification,
                               then next: @escaping () -> Void) {
        guard let server else { return next() }
        var params: [(String, JSON)] = [("payload", delivery.payload), ("app", .string(delivery.app)),
                                        ("identifier", .string(delivery.identifier)), ("answer", .string("presentation"))]
        if delivery.payload["content"]?["attachments"] != nil { params.append(("attachments", .string("move"))) }
        server.call(.notificationsDeliver, .object(params)) { [unowned self] answer in
            switch answer {
            case .success(let result):
                log.record("portal-delivered", [("app", .string(delivery.app)), ("identifier", .string(delivery.identifier)),
                                                ("display", result["display"] ?? .null),
                                                ("buttons", .integer(Int64(notification.buttons.count))),
                                                ("ignored", .array(notification.ignored.map(JSON.string)))],
                           "the portal's notification \(delivery.identifier) of \(delivery.app) is delivered "
                           + "(\(result["display"]?.stringValue ?? "?"))")
            case .failure(let error):
                // The server did not move the icon into its store: it is no one's now.
                if let icon = delivery.iconPath { unlink(icon) }
                log.record("portal-refused", [("app", .string(delivery.app)), ("identifier", .string(delivery.identifier)),
                                              ("error", .string(error.message))],
                           "the server refused the portal's notification \(delivery.identifier) of \(delivery.app): \(error.message)")
            }
            next()
        }
    }

    /// `notifications.remove` of the app's notification. It names the app with
    /// the identifier; a server that takes only one of the two (before
    /// identifiers were the app's) is asked again with the identifier alone.
    private func removePortalNotification(appID: String, id: String, then next: @escaping () -> Void) {
        guard let server else { return next() }
        let app = appID.isEmpty ? PortalDelivery.hostApp : appID
        let identifiers: JSON = .array([.string(id)])
        server.call(.notificationsRemove, .object([("app", .string(app)), ("identifiers", identifiers)])) { [unowned self] answer in
            guard case .failure(let error) = answer, error.code == -32602, let server = self.server else {
                logRemoved(app, id, answer)
                return next()
            }
            server.call(.notificationsRemove, .object([("identifiers", identifiers)])) { [unowned self] answer in
                logRemoved(app, id, answer)
                next()
            }
        }
    }

    /// Logs what a removal did.
    private func logRemoved(_ app: String, _ id: String, _ answer: Result<JSON, RPCErrorReply>) {
        switch answer {
        case .success(let result):
            let removed = result["removed"]?.arrayValue?.count ?? 0
            log.record("portal-removed", [("app", .string(app)), ("identifier", .string(id)), ("removed", .integer(Int64(removed)))],
                       "the portal removed \(app)'s \(id) (\(removed) removed)", detailed: true)
        case .failure(let error):
            log.record("portal-refused", [("app", .string(app)), ("identifier", .string(id)), ("error", .string(error.message))],
                       "cannot remove \(app)'s \(id): \(error.message)")
        }
    }

    /// Hands a response to a portal notification back to its app, as the
    /// portal's other backends do: an action the app exports (`app.take`) of
    /// an app the portal named is run with `org.freedesktop.Application.ActivateAction`
    /// on the app's bus name (what GLib's GNotification listens for); any
    /// other action, an app without a name (a host app: the empty app id), or
    /// an ActivateAction that fails, goes as the portal's ActionInvoked, which
    /// xdg-desktop-portal passes on to the connection that added the
    /// notification. The entry is then taken from the inbox. False when
    /// `entry` is no portal notification's.
    func forwardToPortal(_ entry: JSON, id: Int64, app: String, on bus: DesktopBus) -> Bool {
        guard PortalInvocation.isPortal(entry["notification"]) else { return false }
        forwarded.insert(id)
        let actionIdentifier = entry["actionIdentifier"]?.stringValue ?? ""
        guard let invocation = PortalInvocation(notification: entry["notification"], actionIdentifier: actionIdentifier) else {
            log.record("portal-invoked", [("app", .string(app)), ("entry", .integer(id)), ("action", .string(actionIdentifier))],
                       "response \(id) (\(actionIdentifier)) has no action of the app's to hand back", detailed: true)
            takeFromInbox(id, of: app)
            return true
        }
        guard let exported = invocation.exportedAction, BusName.isWellKnown(invocation.appID) else {
            signalPortal(invocation, entry: id, app: app, on: bus, because: nil)
            return true
        }
        do throws(BusError) {
            try ApplicationClient(busName: invocation.appID).activateAction(exported, parameter: invocation.target,
                                                                           on: bus.connection) { [unowned self] _, result in
                guard let bus = desktop else { return }
                switch result {
                case .success(let receiver):
                    log.record("activated", [("app", .string(app)), ("entry", .integer(id)), ("identifier", .string(invocation.id)),
                                             ("action", .string(invocation.action)), ("to", .string(receiver))],
                               "handed response \(id) to \(invocation.appID) (ActivateAction \(exported), "
                               + "answered by \(receiver)) and took it from its inbox")
                    takeFromInbox(id, of: app)
                case .failure(let error):
                    signalPortal(invocation, entry: id, app: app, on: bus, because: error.message)
                }
            }
        } catch {
            signalPortal(invocation, entry: id, app: app, on: bus, because: error.message)
        }
        return true
    }

    /// Sends ActionInvoked for `invocation` and takes the entry from the inbox
    /// (`because`: why ActivateAction was not taken, for the log).
    private func signalPortal(_ invocation: PortalInvocation, entry id: Int64, app: String, on bus: DesktopBus,
                              because: String?) {
        do throws(BusError) {
            try PortalBackend.invoke(invocation, on: bus.connection)
        } catch {
            forwarded.remove(id)
            log.record("kept", [("app", .string(app)), ("entry", .integer(id)), ("error", .string(error.message))],
                       "cannot send ActionInvoked for response \(id): \(error.message); it stays in the inbox")
            return
        }
        var fields: [(String, JSON)] = [("app", .string(app)), ("entry", .integer(id)), ("identifier", .string(invocation.id)),
                                        ("action", .string(invocation.action))]
        if let because { fields.append(("activateActionFailed", .string(because))) }
        log.record("portal-invoked", fields,
                   "handed response \(id) to the portal: ActionInvoked(\(invocation.appID.debugDescription), "
                   + "\(invocation.id), \(invocation.action))" + (because.map { " (ActivateAction failed: \($0))" } ?? ""))
        takeFromInbox(id, of: app)
    }

    /// `inbox.take` of the entry `id`: the app has it.
    private func takeFromInbox(_ id: Int64, of app: String) {
        answer(.inboxTake, .object([("app", .string(app)), ("ids", .array([.integer(id)]))])) { _ in }
    }
}
