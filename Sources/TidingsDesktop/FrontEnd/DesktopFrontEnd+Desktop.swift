import TidingsBase
import TidingsProtocol

/// The desktop's side: what is shown and closed, and what the user does there.
extension DesktopFrontEnd {
    /// Shows `presentation` of `identifier` (of `app`): Notify, replacing
    /// what shows it already when that differs; closes it when it is
    /// dismissed. From a re-list, a notification the desktop closed by
    /// itself (expired, dismissed) stays closed unless it changed.
    func show(_ identifier: String, app: String, _ presentation: JSON, fromRelist: Bool, notification: JSON? = nil) {
        relisting?.unseen.remove(identifier)
        if let notification { notifications[identifier] = notification }
        if presentation["dismissed"]?.boolValue == true { return close(identifier, reason: "dismissed") }
        // Its window draws the expanded interface: the desktop keeps what it showed.
        if windows.isOpen(identifier), presentation["expanded"]?.boolValue == true { return }
        guard let bus = desktop else {
            relistOwed = true
            return
        }
        // With its notification beside it, the mapping knows its attachments (the banner's image).
        let delivered = notifications[identifier].map { JSON.object([("presentation", presentation), ("notification", $0)]) }
        let mapped = DesktopPresentation(presentation: delivered ?? presentation, app: display(of: app),
                                         capabilities: bus.capabilities)
        log.degraded(mapped.degradations, identifier: identifier)
        let existing = shown.entries[identifier]
        if let existing, existing.fingerprint == ShownNotifications.fingerprint(of: mapped.notification),
           existing.desktopID != 0 || fromRelist {
            shown.remember(identifier, mapped)
            return
        }
        let replacing = existing.flatMap { $0.desktopID == 0 ? nil : $0.desktopID }
        let desktopID: UInt32
        do throws(BusError) {
            desktopID = try bus.notify(mapped.notification, replacing: replacing)
        } catch {
            guard error.closedConnection else {
                // The notification server refused it: the connection stays, the next re-list tries again.
                return log.record("refused", [("identifier", .string(identifier)), ("by", .string("desktop")),
                                              ("message", .string(error.diagnostic.message))],
                                  "the notification server did not show \(identifier): \(error.diagnostic.message)")
            }
            relistOwed = true
            return desktopGone(error.message)
        }
        shown.show(identifier, as: desktopID, mapped)
        let meanings = mapped.notification.actions.map { ($0.key, JSON.string(Self.meaning(of: mapped.actions[$0.key]))) }
        log.record("shown", [("identifier", .string(identifier)), ("app", .string(app)),
                             ("desktopID", .integer(Int64(desktopID))), ("replaced", .bool(replacing != nil)),
                             ("summary", .string(mapped.notification.summary)), ("actions", .object(meanings))],
                   "\(replacing == nil ? "showed" : "replaced") \(identifier) of \(app) as desktop notification \(desktopID)")
    }

    /// What an action key does, for the log: `respond:ID`, `reply:ID`, `open`, `allow`, `deny`.
    static func meaning(of action: DesktopAction?) -> String {
        switch action {
        case .respond(let identifier)?: "respond:" + identifier
        case .reply(let identifier)?: "reply:" + identifier
        case .openInterface?: "open"
        case .authorize(let allow)?: allow ? "allow" : "deny"
        case nil: "none"
        }
    }

    /// Takes `identifier` off the screen and forgets it: the server dismissed it (`reason`), or no longer lists it.
    func close(_ identifier: String, reason: String) {
        relisting?.unseen.remove(identifier)
        notifications[identifier] = nil
        guard let entry = shown.forget(identifier), entry.desktopID != 0 else { return }
        invoked.remove(entry.desktopID)
        do throws(BusError) {
            try desktop?.close(entry.desktopID)
        } catch {
            // One the notification server no longer has (closed meanwhile) is refused: nothing to do.
            if error.closedConnection { desktopGone(error.message) } else { log.detail("closing \(identifier): \(error)") }
        }
        log.record("closed", [("identifier", .string(identifier)), ("desktopID", .integer(Int64(entry.desktopID))),
                              ("by", .string("tidings")), ("reason", .string(reason))],
                   "closed desktop notification \(entry.desktopID) (\(identifier)): \(reason)")
    }

    /// Closes a replaced notification whose replacement did not come.
    func closeReplaced(_ identifier: String) {
        awaitingReplacement[identifier] = nil
        close(identifier, reason: "replaced")
    }

    /// Shows the authorization prompt of an `authorization.requested` event
    /// (when the bus is away, `authorizationRequests` keeps it for its return).
    func prompt(_ request: JSON) {
        guard let app = request["app"]?.stringValue, let bus = desktop else { return }
        let mapped = DesktopPresentation(authorizationRequest: request, app: display(of: app), capabilities: bus.capabilities)
        do throws(BusError) {
            let replacing = prompts.first { $0.value == app }?.key
            let desktopID = try bus.notify(mapped.notification, replacing: replacing)
            prompts[desktopID] = app
            promptActions[desktopID] = mapped.actions
            let meanings = mapped.notification.actions.map { ($0.key, JSON.string(Self.meaning(of: mapped.actions[$0.key]))) }
            log.record("prompted", [("app", .string(app)), ("desktopID", .integer(Int64(desktopID))),
                                    ("actions", .object(meanings))],
                       "asked whether \(app) may send notifications (desktop notification \(desktopID))")
        } catch {
            if error.closedConnection { desktopGone(error.message) } else { log.detail("prompting for \(app): \(error)") }
        }
    }

    /// Closes the prompt of `app`, decided elsewhere.
    func closePrompt(of app: String) {
        guard let desktopID = prompts.first(where: { $0.value == app })?.key else { return }
        prompts[desktopID] = nil
        promptActions[desktopID] = nil
        do throws(BusError) {
            try desktop?.close(desktopID)
        } catch {
            if error.closedConnection { desktopGone(error.message) } else { log.detail("closing the prompt of \(app): \(error)") }
        }
    }

    /// Handles what the notification server reports.
    func handleSignal(_ signal: NotificationSignal) {
        switch signal {
        case .actionInvoked(let desktopID, let key):
            invoked.insert(desktopID)
            if let app = prompts[desktopID] {
                if case .authorize(let allow)? = promptActions[desktopID]?[key] { decide(app, allow: allow) }
                return
            }
            guard let identifier = shown.identifier(of: desktopID) else { return }
            let action = shown.entries[identifier]?.presentation?.actions[key] ?? (key == "default" ? .respond("default") : nil)
            log.record("invoked", [("identifier", .string(identifier)), ("desktopID", .integer(Int64(desktopID))),
                                   ("key", .string(key)), ("meaning", .string(Self.meaning(of: action)))],
                       "the user chose \(key) on \(identifier)")
            switch action {
            case .respond(let actionIdentifier)?: respond(identifier, action: actionIdentifier, text: nil)
            case .openInterface?: openWindow(identifier)
            case .authorize?, .reply?, nil: break
            }
        case .replied(let desktopID, let text):
            guard let identifier = shown.identifier(of: desktopID),
                  let actions = shown.entries[identifier]?.presentation?.actions else { return }
            let reply = actions.values.compactMap { action -> String? in
                if case .reply(let identifier) = action { return identifier } else { return nil }
            }.sorted().first
            if let reply { respond(identifier, action: reply, text: text) }
        case .closed(let desktopID, let reason):
            let afterAction = invoked.remove(desktopID) != nil
            if prompts.removeValue(forKey: desktopID) != nil {
                promptActions[desktopID] = nil
                return
            }
            guard let identifier = shown.identifier(of: desktopID) else { return }
            shown.retire(identifier)
            let why = Self.reasonName(reason)
            log.record("closed", [("identifier", .string(identifier)), ("desktopID", .integer(Int64(desktopID))),
                                  ("by", .string("desktop")), ("reason", .string(why)), ("afterAction", .bool(afterAction))],
                       "desktop notification \(desktopID) (\(identifier)) closed: \(why)")
            if reason == .dismissed && !afterAction { respond(identifier, action: "dismiss", text: nil) }
        }
    }

    /// NotificationClosed's reason, in words.
    static func reasonName(_ reason: NotificationSignal.CloseReason) -> String {
        switch reason {
        case .expired: "expired"
        case .dismissed: "dismissed"
        case .closedByCall: "closed"
        default: "undefined"
        }
    }

    /// `notifications.respond` (now, or once the server is back); the server's events that follow drive the screen.
    /// One the response leaves delivered and off the screen is shown again.
    private func respond(_ identifier: String, action: String, text: String?) {
        var params: [(String, JSON)] = [("identifier", .string(identifier)), ("action", .string(action))]
        if let text { params.append(("text", .string(text))) }
        answer(.notificationsRespond, .object(params)) { [unowned self] answer in
            switch answer {
            case .success(let result):
                log.record("responded", [("identifier", .string(identifier)), ("action", .string(action)),
                                         ("receiver", result["receiver"] ?? .null), ("option", result["option"] ?? .null),
                                         ("dismissed", result["dismissed"] ?? .null)],
                           "answered \(action) on \(identifier): \(result["receiver"]?.stringValue ?? "nobody") received it")
                if result["dismissed"]?.boolValue == false, shown.entries[identifier]?.desktopID == 0,
                   let presentation = result["presentation"], let app = presentation["app"]?.stringValue {
                    show(identifier, app: app, presentation, fromRelist: false)
                }
            case .failure(let error):
                log.record("refused", [("identifier", .string(identifier)), ("action", .string(action)),
                                       ("code", .integer(error.code)), ("message", .string(error.message))],
                           "the server refused \(action) on \(identifier): \(error.message)")
            }
        }
    }

    /// "Show More": the interface in a window of its own (`tidings show`), one per notification;
    /// as text on the desktop (`open`) when no window can start.
    private func openWindow(_ identifier: String) {
        do throws(SystemError) {
            guard try windows.open(identifier) else {
                return log.detail("the window of \(identifier) is open already")
            }
            log.record("window", [("identifier", .string(identifier)), ("window", .string("started"))],
                       "opened a window for the interface of \(identifier)")
        } catch {
            log.record("window", [("identifier", .string(identifier)), ("window", .string("failed")),
                                  ("message", .string("\(error)"))],
                       "cannot start the window of \(identifier) (\(error)); showing its interface as text")
            open(identifier)
        }
    }

    /// What a window wrote (each line relayed into the log) or how it ended.
    func serviceWindow(_ descriptor: Int32) {
        for report in windows.service(descriptor) {
            switch report {
            case .line(let identifier, let line):
                let event = line["event"]?.stringValue ?? "unknown"
                log.record("window", [("identifier", .string(identifier)), ("window", .string(event)), ("line", line)],
                           "the window of \(identifier): \(event)")
            case .ended(let identifier, let status, let signal):
                if status == WindowProcesses.noWindowStatus {
                    log.record("window", [("identifier", .string(identifier)), ("window", .string("unavailable"))],
                               "no window can be shown (no GTK 4 or no display); showing the interface of \(identifier) as text")
                    open(identifier)
                } else if let signal {
                    log.record("window", [("identifier", .string(identifier)), ("window", .string("ended")),
                                          ("signal", .integer(Int64(signal)))],
                               "the window of \(identifier) ended by signal \(signal); the front end and the server go on")
                } else {
                    log.record("window", [("identifier", .string(identifier)), ("window", .string("ended")),
                                          ("status", .integer(Int64(status ?? 0)))],
                               "the window of \(identifier) ended (status \(status ?? 0))")
                }
            }
        }
    }

    /// `notifications.open`: the `presentation.changed` that follows shows the extension's view.
    private func open(_ identifier: String) {
        answer(.notificationsOpen, .object([("identifier", .string(identifier))])) { [unowned self] answer in
            switch answer {
            case .success:
                log.record("opened", [("identifier", .string(identifier))], "opened the interface of \(identifier)")
            case .failure(let error):
                log.record("refused", [("identifier", .string(identifier)), ("action", .string("open")),
                                       ("code", .integer(error.code)), ("message", .string(error.message))],
                           "the server refused to open \(identifier): \(error.message)")
            }
        }
    }

    /// `authorization.decide` for the prompt's app.
    private func decide(_ app: String, allow: Bool) {
        let decision = allow ? "allow" : "deny"
        answer(.authorizationDecide, .object([("app", .string(app)), ("decision", .string(decision))])) {
            [unowned self] answer in
            if case .success(let result) = answer {
                log.record("decided", [("app", .string(app)), ("decision", .string(decision)),
                                       ("status", result["status"] ?? .null)], "\(app): \(decision)")
            }
        }
    }
}
