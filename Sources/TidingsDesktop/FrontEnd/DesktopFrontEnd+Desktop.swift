import TidingsBase
import TidingsProtocol

/// The desktop's side: what is shown and closed, and what the user does there.
extension DesktopFrontEnd {
    /// Gives `key` what an older `desktop.json` kept of its identifier
    /// without an app (its desktop id, and that it is to be taken over), when
    /// `key` has nothing of its own: the first delivery, event or re-list
    /// naming the identifier says whose it was.
    func adopt(_ key: NotificationKey) {
        guard shown.adopt(key) else { return }
        if takeOver.remove(key.legacy) != nil { takeOver.insert(key) }
    }

    /// Shows `presentation` of `key`: Notify, replacing what shows it
    /// already when that differs; closes it when it is dismissed. From a
    /// re-list, a notification the desktop closed by itself (expired,
    /// dismissed) stays closed unless it changed.
    func show(_ key: NotificationKey, _ presentation: JSON, fromRelist: Bool, notification: JSON? = nil) {
        adopt(key)
        let identifier = key.identifier, app = key.app
        relisting?.unseen.remove(key)
        if let notification { notifications[key] = notification }
        if presentation["dismissed"]?.boolValue == true { return close(key, reason: "dismissed") }
        // Its window draws the expanded interface: the desktop keeps what it showed.
        if windows.isOpen(key), presentation["expanded"]?.boolValue == true { return }
        guard let bus = desktop else {
            relistOwed = true
            return
        }
        // Its id comes with the answer to the Notify sent: what changed meanwhile is shown after.
        if notifying[key] != nil {
            notifying[key]?.next = (presentation, fromRelist)
            return
        }
        // With its notification beside it, the mapping knows its attachments (the banner's image).
        let delivered = notifications[key].map { JSON.object([("presentation", presentation), ("notification", $0)]) }
        var appDisplay = display(of: app)
        // A portal notification's theme icon is its own, where the app registered none.
        if appDisplay.icon.isEmpty, let icon = PortalDelivery.themedIcon(of: notifications[key]) { appDisplay.icon = icon }
        let mapped = DesktopPresentation(presentation: delivered ?? presentation, app: appDisplay,
                                         capabilities: bus.capabilities)
        log.degraded(mapped.degradations, identifier: identifier)
        let existing = shown.entries[key]
        // Shown from another connection (a previous run's): the notification server
        // addresses its close and click to that one, so it is shown again from this one.
        let takingOver = existing.map { $0.desktopID != 0 } == true && takeOver.contains(key)
        if let existing, !takingOver, existing.fingerprint == ShownNotifications.fingerprint(of: mapped.notification),
           existing.desktopID != 0 || fromRelist {
            shown.remember(key, mapped)
            return
        }
        let replacing = existing.flatMap { $0.desktopID == 0 ? nil : $0.desktopID }
        notifying[key] = Notifying()
        let call = track("Notify", identifier)
        do throws(BusError) {
            try bus.notify(mapped.notification, replacing: replacing) { [unowned self] result in
                answered(call)
                let waiting = notifying.removeValue(forKey: key)
                switch result {
                case .success(let desktopID):
                    shown.show(key, as: desktopID, mapped)
                    takeOver.remove(key)
                    let meanings = mapped.notification.actions.map { ($0.key, JSON.string(Self.meaning(of: mapped.actions[$0.key]))) }
                    log.record("shown", [("identifier", .string(identifier)), ("app", .string(app)),
                                         ("desktopID", .integer(Int64(desktopID))), ("replaced", .bool(replacing != nil)),
                                         ("takenOver", .bool(takingOver)),
                                         ("summary", .string(mapped.notification.summary)), ("actions", .object(meanings))],
                               "\(takingOver ? "took over" : replacing == nil ? "showed" : "replaced") \(key) as desktop notification \(desktopID)",
                               detailed: replacing != nil)
                case .failure(let error):
                    // The notification server refused it: the connection stays, the next re-list tries again.
                    log.record("refused", [("identifier", .string(identifier)), ("app", .string(app)), ("by", .string("desktop")),
                                           ("message", .string(error.diagnostic.message))],
                               "the notification server did not show \(key): \(error.diagnostic.message)")
                }
                if let reason = waiting?.closeAfter {
                    close(key, reason: reason)
                } else if let next = waiting?.next {
                    show(key, next.presentation, fromRelist: next.fromRelist)
                }
            }
        } catch {
            answered(call)
            notifying[key] = nil
            guard error.closedConnection else {
                return log.record("refused", [("identifier", .string(identifier)), ("by", .string("desktop")),
                                              ("message", .string(error.diagnostic.message))],
                                  "the notification server was not sent \(identifier): \(error.diagnostic.message)")
            }
            relistOwed = true
            desktopGone(error.message)
        }
    }

    /// Notes a call on the notification server sent about `subject`: said to be late past the deadline.
    func track(_ method: String, _ subject: String) -> Int {
        lastDesktopCall += 1
        let now = MonotonicClock.now()
        desktopCalls[lastDesktopCall] = DesktopCall(method: method, subject: subject,
                                                    due: MonotonicClock.deadline(after: options.callDeadline), sent: now)
        return lastDesktopCall
    }

    /// Forgets the call `number`, answered; says so when it was late (for
    /// people: when it was the last late one, that the server answers again).
    func answered(_ number: Int) {
        guard let call = desktopCalls.removeValue(forKey: number), call.due == nil else { return }
        let seconds = (Double(MonotonicClock.now() - call.sent) / 1e8).rounded() / 10
        let stillLate = desktopCalls.values.contains { $0.due == nil }
        if !stillLate { saidLate = false }
        log.record("answered", [("method", .string(call.method)), ("subject", .string(call.subject)),
                                ("seconds", .double(seconds))],
                   "the notification server answered \(call.method) for \(call.subject) after \(NumberText.short(seconds)) s"
                   + (stillLate ? "" : "; it answers again"),
                   detailed: stillLate)
    }

    /// Says that the call `number` passed its deadline; it keeps waiting for
    /// its answer. Said to people once until the server answers again.
    func late(_ number: Int) {
        guard let call = desktopCalls[number] else { return }
        desktopCalls[number]?.due = nil
        let detailed = saidLate
        saidLate = true
        log.record("timedOut", [("method", .string(call.method)), ("subject", .string(call.subject)),
                                ("deadline", .double(options.callDeadline)),
                                ("unanswered", .integer(Int64(desktopCalls.count)))],
                   "the notification server has not answered \(call.method) for \(call.subject) within "
                   + "\(NumberText.short(options.callDeadline)) s (\(desktopCalls.count) calls wait); the front end goes on, "
                   + "and what it sent is shown when the server answers", detailed: detailed)
    }

    /// What an action key does, for the log: `respond:ID`, `reply:ID`, `open`, `allow`, `deny`.
    static func meaning(of action: DesktopAction?) -> String {
        switch action {
        case .respond(let identifier)?: "respond:" + identifier
        case .reply(let identifier)?: "reply:" + identifier
        case .typeIn(let identifier)?: "type:" + identifier
        case .openInterface?: "open"
        case .authorize(let allow)?: allow ? "allow" : "deny"
        case nil: "none"
        }
    }

    /// Takes `key` off the screen and forgets it: the server dismissed it (`reason`), or no longer lists it.
    func close(_ key: NotificationKey, reason: String) {
        adopt(key)
        relisting?.unseen.remove(key)
        notifications[key] = nil
        takeOver.remove(key)
        if notifying[key] != nil { notifying[key] = Notifying(closeAfter: reason) }
        guard let entry = shown.forget(key), entry.desktopID != 0 else { return }
        invoked.remove(entry.desktopID)
        closeOnDesktop(entry.desktopID, "closing \(key)")
        log.record("closed", [("identifier", .string(key.identifier)), ("app", .string(key.app)),
                              ("desktopID", .integer(Int64(entry.desktopID))),
                              ("by", .string("tidings")), ("reason", .string(reason))],
                   "closed desktop notification \(entry.desktopID) (\(key)): \(reason)", detailed: true)
    }

    /// CloseNotification of `desktopID`, without waiting; `what` says what for, in the log.
    private func closeOnDesktop(_ desktopID: UInt32, _ what: String) {
        guard let bus = desktop else { return }
        let call = track("CloseNotification", String(desktopID))
        do throws(BusError) {
            try bus.close(desktopID) { [unowned self] result in
                answered(call)
                // One the notification server no longer has (closed meanwhile) is refused: nothing to do.
                if case .failure(let error) = result { log.detail("\(what): \(error)") }
            }
        } catch {
            answered(call)
            if error.closedConnection { desktopGone(error.message) } else { log.detail("\(what): \(error)") }
        }
    }

    /// Closes a replaced notification whose replacement did not come.
    func closeReplaced(_ key: NotificationKey) {
        awaitingReplacement[key] = nil
        close(key, reason: "replaced")
    }

    /// Shows the authorization prompt of an `authorization.requested` event
    /// (when the bus is away, `authorizationRequests` keeps it for its return).
    func prompt(_ request: JSON) {
        guard let app = request["app"]?.stringValue, let bus = desktop else { return }
        let mapped = DesktopPresentation(authorizationRequest: request, app: display(of: app), capabilities: bus.capabilities)
        let replacing = prompts.first { $0.value == app }?.key
        let call = track("Notify", app)
        do throws(BusError) {
            try bus.notify(mapped.notification, replacing: replacing) { [unowned self] result in
                answered(call)
                guard case .success(let desktopID) = result else {
                    if case .failure(let error) = result { log.detail("prompting for \(app): \(error)") }
                    return
                }
                prompts[desktopID] = app
                promptActions[desktopID] = mapped.actions
                let meanings = mapped.notification.actions.map { ($0.key, JSON.string(Self.meaning(of: mapped.actions[$0.key]))) }
                log.record("prompted", [("app", .string(app)), ("desktopID", .integer(Int64(desktopID))),
                                        ("actions", .object(meanings))],
                           "asked whether \(app) may send notifications (desktop notification \(desktopID))")
            }
        } catch {
            answered(call)
            if error.closedConnection { desktopGone(error.message) } else { log.detail("prompting for \(app): \(error)") }
        }
    }

    /// Closes the prompt of `app`, decided elsewhere.
    func closePrompt(of app: String) {
        guard let desktopID = prompts.first(where: { $0.value == app })?.key else { return }
        prompts[desktopID] = nil
        promptActions[desktopID] = nil
        closeOnDesktop(desktopID, "closing the prompt of \(app)")
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
            guard let shownKey = shown.key(of: desktopID) else { return }
            let action = shown.entries[shownKey]?.presentation?.actions[key] ?? (key == "default" ? .respond("default") : nil)
            log.record("invoked", [("identifier", .string(shownKey.identifier)), ("app", .string(shownKey.app)),
                                   ("desktopID", .integer(Int64(desktopID))),
                                   ("key", .string(key)), ("meaning", .string(Self.meaning(of: action)))],
                       "the user chose \(key) on \(shownKey)", detailed: true)
            switch action {
            case .respond(let actionIdentifier)?: respond(shownKey, action: actionIdentifier, text: nil)
            case .openInterface?: openWindow(shownKey)
            case .typeIn(let actionIdentifier)?: openWindow(shownKey, reply: actionIdentifier)
            case .authorize?, .reply?, nil: break
            }
        case .replied(let desktopID, let text):
            guard let shownKey = shown.key(of: desktopID),
                  let actions = shown.entries[shownKey]?.presentation?.actions else { return }
            let reply = actions.values.compactMap { action -> String? in
                if case .reply(let identifier) = action { return identifier } else { return nil }
            }.sorted().first
            if let reply { respond(shownKey, action: reply, text: text) }
        case .closed(let desktopID, let reason):
            let afterAction = invoked.remove(desktopID) != nil
            if prompts.removeValue(forKey: desktopID) != nil {
                promptActions[desktopID] = nil
                return
            }
            guard let key = shown.key(of: desktopID) else { return }
            shown.retire(key)
            takeOver.remove(key)
            let why = Self.reasonName(reason)
            log.record("closed", [("identifier", .string(key.identifier)), ("app", .string(key.app)),
                                  ("desktopID", .integer(Int64(desktopID))),
                                  ("by", .string("desktop")), ("reason", .string(why)), ("afterAction", .bool(afterAction))],
                       "desktop notification \(desktopID) (\(key)) closed: \(why)", detailed: true)
            if reason == .dismissed && !afterAction { respond(key, action: "dismiss", text: nil) }
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
    private func respond(_ key: NotificationKey, action: String, text: String?) {
        let identifier = key.identifier
        var params: [(String, JSON)] = naming(key) + [("action", .string(action))]
        if let text { params.append(("text", .string(text))) }
        answer(.notificationsRespond, .object(params)) { [unowned self] answer in
            switch answer {
            case .success(let result):
                // An extension that never completed (its deadline passed, or it ended) is said in this one line.
                let uncompleted = result["diagnostics"]?.arrayValue?.first {
                    ["response.completion-timeout", "response.completion-abandoned"].contains($0["code"]?.stringValue ?? "")
                }?["message"]?.stringValue
                log.record("responded", [("identifier", .string(identifier)), ("app", .string(key.app)), ("action", .string(action)),
                                         ("receiver", result["receiver"] ?? .null), ("option", result["option"] ?? .null),
                                         ("dismissed", result["dismissed"] ?? .null), ("completed", .bool(uncompleted == nil))],
                           "answered \(action) on \(key): "
                           + (uncompleted.map { "the extension did not complete it: \($0)" }
                              ?? "\(result["receiver"]?.stringValue ?? "nobody") received it"))
                if result["dismissed"]?.boolValue == false, shown.entries[key]?.desktopID == 0,
                   let presentation = result["presentation"], let app = presentation["app"]?.stringValue {
                    show(NotificationKey(app: app, identifier: identifier), presentation, fromRelist: false)
                }
            case .failure(let error):
                log.record("refused", [("identifier", .string(identifier)), ("app", .string(key.app)), ("action", .string(action)),
                                       ("code", .integer(error.code)), ("message", .string(error.message))],
                           "the server refused \(action) on \(key): \(error.message)")
            }
        }
    }

    /// "Show More": the interface in a window of its own (`tidings show`), one per notification;
    /// as text on the desktop (`open`) when no window can start. With `reply`,
    /// a text-input action's field shows in it from the start.
    private func openWindow(_ key: NotificationKey, reply: String? = nil) {
        let identifier = key.identifier
        do throws(SystemError) {
            guard try windows.open(key, reply: reply) else {
                return log.detail("the window of \(identifier) is open already")
            }
            log.record("window", [("identifier", .string(identifier)), ("window", .string("started"))],
                       "opened a window for the interface of \(identifier)")
        } catch {
            log.record("window", [("identifier", .string(identifier)), ("window", .string("failed")),
                                  ("message", .string("\(error)"))],
                       "cannot start the window of \(identifier) (\(error)); showing its interface as text")
            open(key)
        }
    }

    /// What a window wrote (each line relayed into the log) or how it ended.
    func serviceWindow(_ descriptor: Int32) {
        for report in windows.service(descriptor) {
            switch report {
            case .line(let key, let line):
                let identifier = key.identifier
                let event = line["event"]?.stringValue ?? "unknown"
                log.record("window", [("identifier", .string(identifier)), ("window", .string(event)), ("line", line)],
                           "the window of \(identifier): \(event)")
            case .ended(let key, let status, let signal):
                let identifier = key.identifier
                if status == WindowProcesses.noWindowStatus {
                    log.record("window", [("identifier", .string(identifier)), ("window", .string("unavailable"))],
                               "no window can be shown (no GTK 4 or no display); showing the interface of \(identifier) as text")
                    open(key)
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
    private func open(_ key: NotificationKey) {
        let identifier = key.identifier
        answer(.notificationsOpen, .object(naming(key))) { [unowned self] answer in
            switch answer {
            case .success:
                log.record("opened", [("identifier", .string(identifier))], "opened the interface of \(identifier)", detailed: true)
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
