import TidingsBase
import TidingsProtocol

/// The server's side: the connection's first calls, the re-list, the events.
extension DesktopFrontEnd {
    /// The events the front end subscribes to (`events.lagging` comes anyway).
    static let subscribedEvents: [EventName] = [.notificationDelivered, .presentationChanged, .notificationDismissed,
                                                .responseForwarded, .authorizationRequested, .authorizationChanged,
                                                .stateDegraded, .stateRecovered, .stateRepaired,
                                                .requestScheduled, .requestRemoved, .requestFired]
    /// What the front end needs of the protocol beyond version 1.
    static let neededCapabilities = ["events.seq", "events.resume", "events.filter"]

    /// `server.hello` as a front end first (a server older than hello answers
    /// -32601, and takes the connection for a front end anyway), then
    /// `server.describe`: checks the protocol, then lists the apps and subscribes.
    func describe(_ connection: PolledRPCConnection) {
        connection.call(.serverHello, ClientHello.frontEnd(client: "tidings desktop")) { [unowned self] answer in
            guard case .failure(let refusal) = answer, refusal.code != ClientHello.unknownToServer else { return }
            log.record("hello-refused", [("code", .integer(refusal.code))], "the server refused this front end's hello: \(refusal.message)")
        }
        connection.call(.serverDescribe) { [unowned self] answer in
            guard case .success(let description) = answer else { return serverGone("server.describe failed") }
            let version = description["protocol"]?["version"]?.integerValue ?? 1
            let offered = Set(description["protocol"]?["capabilities"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            let missing = Self.neededCapabilities.filter { !offered.contains($0) }
            guard version >= 2, missing.isEmpty else {
                failure = FrontEndError(.protocolTooOld, .error(.desktopProtocolTooOld,
                    "The server at \(options.socketPath) speaks protocol version \(version)"
                    + (missing.isEmpty ? "" : " without \(missing.joined(separator: ", "))")
                    + "; tidings desktop needs version 2 with \(Self.neededCapabilities.joined(separator: ", ")): restart it with this tidings."))
                return
            }
            // The push family, where the server has it (an older one refuses an unknown event's name).
            let methods = Set(description["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
            let events = Set(description["events"]?.arrayValue?.compactMap { $0["method"]?.stringValue } ?? [])
            pushOffered = methods.contains(MethodName.pushList.rawValue)
            pushEventsOffered = Self.pushEvents.filter { events.contains($0.rawValue) }
            connection.call(.appsList) { [unowned self] answer in
                if case .success(let list) = answer { learnApps(list) }
                subscribe(connection)
            }
        }
    }

    /// Keeps the names and icons of the apps `apps.list` answered.
    func learnApps(_ list: JSON) {
        for app in list["apps"]?.arrayValue ?? [] {
            guard let identifier = app["app"]?.stringValue else { continue }
            let display = AppDisplay(identifier: identifier, name: app["name"]?.stringValue,
                                     icon: app["icon"]?.stringValue,
                                     providesSettings: app["providesAppNotificationSettings"]?.boolValue ?? false)
            apps[identifier] = display
            log.record("app", [("app", .string(identifier)), ("name", .string(display.name)),
                               ("settings", .bool(display.providesSettings))],
                       "learned how \(identifier) shows", detailed: true)
        }
    }

    /// How `app` shows: as `apps.list` said, else by its identifier (and
    /// `apps.list` is asked about it once, for its next notifications).
    func display(of app: String) -> AppDisplay {
        if let known = apps[app] { return known }
        if appsAsked.insert(app).inserted { learnApp(app) }
        return AppDisplay(identifier: app)
    }

    /// Asks `apps.list` about `app` again, for its next notifications: its
    /// name, icon and whether it has settings of its own may have changed.
    func learnApp(_ app: String) {
        server?.call(.appsList, .object([("app", .string(app))])) { [unowned self] answer in
            if case .success(let list) = answer { learnApps(list) }
        }
    }

    /// `events.subscribe`, resuming after the last `seq` handled; re-lists
    /// when the server cannot resume, on the first connection of the process,
    /// and when the bus came back meanwhile.
    private func subscribe(_ connection: PolledRPCConnection) {
        var subscription = EventSubscription(apps: .string("all"), events: Self.subscribedEvents + pushEventsOffered, replay: true,
                                             lastSeq: shown.lastSeq)
        connection.call(.eventsSubscribe, subscription.params) { [unowned self] answer in
            guard case .success(let result) = answer else { return serverGone("events.subscribe failed") }
            subscription.lastSeq = shown.lastSeq
            let said = subscription.subscribed(result)
            let resumed = said.resumed
            // Not resumed: the events to come follow the server's last `seq` (a server with fresh state numbers from 1 again).
            if let seq = subscription.lastSeq, seq != shown.lastSeq { shown.restart(after: seq) }
            let reconnected = everConnected
            everConnected = true
            log.record(reconnected ? "reconnected" : "connected",
                       [("socket", .string(options.socketPath)), ("resumed", .bool(resumed)),
                        ("missed", .integer(said.missed)), ("replayed", .integer(said.replayed))],
                       (reconnected ? "reconnected to " : "connected to ") + options.socketPath
                       + (resumed ? ", resuming after event \(shown.lastSeq ?? 0)" : ", listing what it shows"))
            synchronised = true
            // The first connection of this process re-lists whatever it resumed: what the
            // screen shows was mapped by another process, and one that stopped while the
            // bus was away may have handled events it could not show.
            if !resumed || !reconnected || relistOwed { relist() }
            sendKeptAnswers()
            pumpPortal()
            listRegions()
            listPush()
            pumpPush()
        }
    }

    /// Lists every notification delivered, shows those not shown, refreshes
    /// those shown, and closes those shown that the server no longer lists.
    func relist() {
        relistOwed = false
        relistGeneration += 1
        relisting = Relisting(generation: relistGeneration, unseen: Set(shown.entries.keys))
        listPage(after: .null, generation: relistGeneration)
    }

    /// Lists a page for the re-list `generation`; the answers of a re-list another replaced are dropped.
    private func listPage(after cursor: JSON, generation: Int) {
        guard let server else { return }
        server.call(.notificationsList, .object([("cursor", cursor), ("limit", .integer(1000))])) { [unowned self] answer in
            guard relisting?.generation == generation, case .success(let page) = answer else { return }
            for item in page["notifications"]?.arrayValue ?? [] {
                guard let identifier = item["notification"]?["identifier"]?.stringValue,
                      let app = item["app"]?.stringValue else { continue }
                let key = NotificationKey(app: app, identifier: identifier)
                adopt(key)
                relisting?.unseen.remove(key)
                relisting?.unseen.remove(key.legacy)
                relisting?.outstanding += 1
                server.call(.notificationsPresentation, .object(naming(key))) { [unowned self] answer in
                    guard relisting?.generation == generation else { return }
                    relisting?.outstanding -= 1
                    if case .success(let presentation) = answer {
                        show(key, presentation, fromRelist: true, notification: item["notification"])
                    }
                    finishRelist()
                }
            }
            if let next = page["next"], next != .null {
                listPage(after: next, generation: generation)
            } else {
                relisting?.listed = true
                finishRelist()
            }
        }
    }

    /// Ends a re-list whose pages and presentations are all in: closes what is no longer listed.
    private func finishRelist() {
        guard let relisting, relisting.listed, relisting.outstanding == 0 else { return }
        self.relisting = nil
        for key in relisting.unseen.sorted() { close(key, reason: "gone") }
        log.record("synchronised", [("shown", .integer(Int64(shown.entries.values.filter { $0.desktopID != 0 }.count))),
                                    ("closed", .integer(Int64(relisting.unseen.count)))],
                   "the screen shows what the server lists (\(relisting.unseen.count) closed that it no longer lists)")
    }

    /// Handles one event of the server.
    func handleEvent(_ method: String, _ params: JSON) {
        if let seq = params["seq"]?.integerValue, !shown.handle(seq: seq) {
            log.detail("event \(seq) (\(method)) was handled already")
            return
        }
        log.detail("event \(method) \(params["seq"]?.integerValue.map(String.init) ?? "(replayed)")")
        // A replaced notification's new delivery comes right after its dismissal, or not at all.
        let app = params["app"]?.stringValue
        var delivered: NotificationKey?
        if method == "notification.delivered", let app, let identifier = params["notification"]?["identifier"]?.stringValue {
            delivered = NotificationKey(app: app, identifier: identifier)
        }
        for key in awaitingReplacement.keys where key != delivered { closeReplaced(key) }
        switch method {
        case "notification.delivered":
            guard let delivered, let presentation = params["presentation"] else { return }
            awaitingReplacement[delivered] = nil
            show(delivered, presentation, fromRelist: false, notification: params["notification"])
        case "presentation.changed":
            guard let presentation = params["presentation"], let identifier = presentation["notification"]?.stringValue,
                  let app else { return }
            show(NotificationKey(app: app, identifier: identifier), presentation, fromRelist: false)
        case "notification.dismissed":
            guard let identifier = params["identifier"]?.stringValue, let app else { return }
            let key = NotificationKey(app: app, identifier: identifier)
            adopt(key)
            let reason = params["reason"]?.stringValue ?? "dismissed"
            if reason == "replaced", let entry = shown.entries[key], entry.desktopID != 0 {
                awaitingReplacement[key] = MonotonicClock.deadline(after: Self.replacementWait)
            } else {
                close(key, reason: reason)
            }
        case "response.forwarded":
            forward(params)
        case "authorization.requested":
            guard let app = params["app"]?.stringValue else { return }
            authorizationRequests[app] = params
            prompt(params)
        case "authorization.changed":
            guard let app = params["app"]?.stringValue else { return }
            authorizationRequests[app] = nil
            closePrompt(of: app)
            // What it asked for (its own settings) counts from its decision on.
            learnApp(app)
        case "request.scheduled", "request.removed", "request.fired":
            log.record("state", [("method", .string(method)), ("params", params)], "the server's state: \(method)",
                       detailed: true)
            if regions.handle(method, params) { followLocation() }
        case EventName.pushRegistrationRequested.rawValue, EventName.pushUnregistering.rawValue:
            handlePushEvent(method, params)
        case "events.lagging":
            log.record("lagging", [("behind", params["behind"] ?? .null), ("limit", params["limit"] ?? .null)],
                       "the front end is falling behind the server's events")
        default:
            log.record("state", [("method", .string(method)), ("params", params)], "the server's state: \(method)")
        }
    }

    /// Hands a response to its app (once per inbox entry), and takes it from
    /// the inbox once the app has it. While the bus is away the entry waits
    /// in the inbox: `forwardInbox` hands it over when the bus is back.
    private func forward(_ entry: JSON) {
        guard entry["kind"]?.stringValue == "response", let id = entry["id"]?.integerValue,
              let app = entry["app"]?.stringValue, let bus = desktop, !forwarded.contains(id),
              forwarding.insert(id).inserted else { return }
        if forwardToPortal(entry, id: id, app: app, on: bus) {
            forwarding.remove(id)
            return
        }
        activation.forward(entry, on: bus.connection) { [unowned self] outcome in
            switch outcome {
            case .delivered(let receiver, let activatable):
                forwarding.remove(id)
                forwarded.insert(id)
                answer(.inboxTake, .object([("app", .string(app)), ("ids", .array([.integer(id)]))])) { _ in }
                log.record("activated", [("app", .string(app)), ("entry", .integer(id)),
                                         ("action", entry["actionIdentifier"] ?? .null), ("to", .string(receiver)),
                                         ("activatable", .bool(activatable))],
                           "handed response \(id) to \(app) (ActivateAction, answered by \(receiver)"
                           + (activatable ? "" : ", a connection that owns the name without a service file")
                           + ") and took it from its inbox", detailed: true)
            case .noBusName:
                // Tried again when either connection comes back (`forwardInbox`, the subscription's replay).
                forwarding.remove(id)
                log.record("kept", [("app", .string(app)), ("entry", .integer(id))],
                           "\(app) has no bus name: response \(id) stays in its inbox", detailed: true)
            case .failed(let why):
                forwarding.remove(id)
                log.record("kept", [("app", .string(app)), ("entry", .integer(id)), ("error", .string(why))],
                           "response \(id) could not be handed to \(app) (\(why)); it stays in its inbox")
            }
        }
    }

    /// Hands over the responses every app's inbox keeps (`inbox.list`, a page
    /// at a time): when the bus comes back, for those that came while it was
    /// away, were being handed over when it went, or found no bus name.
    func forwardInbox(after cursor: JSON = .null) {
        guard let server, synchronised else { return }
        var params: [(String, JSON)] = [("limit", .integer(1000))]
        if cursor != .null { params.append(("after", cursor)) }
        server.call(.inboxList, .object(params)) { [unowned self] answer in
            guard case .success(let page) = answer else { return }
            for entry in page["entries"]?.arrayValue ?? [] { forward(entry) }
            if let next = page["next"], next != .null { forwardInbox(after: next) }
        }
    }
}
