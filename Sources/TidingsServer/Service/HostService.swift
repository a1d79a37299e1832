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

        /// How many delivered notifications a server keeps unless told
        /// otherwise (`host.deliveredLimit`): far more than a front end
        /// shows or a user reads, while it bounds what the server holds
        /// (about 4 KB of memory and 0.6 KB of state file per notification:
        /// some 40 MB and 6 MB) and how long folding its journal takes.
        package static let defaultKept = 10_000

        /// The most entries each app's inbox keeps (`AppInbox`); one more drops the oldest.
        package var inboxLimit = AppInbox.defaultLimit
        /// Told of what the server itself has to report outside any call
        /// (an inbox entry dropped or not recorded), for its log.
        package var log: @Sendable (Diagnostic) -> Void = { _ in }

        /// The defaults.
        package init() {
            host.deliveredLimit = Self.defaultKept
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
    private let configuration: Configuration
    /// Where categories and delivered notifications are kept across restarts; nil keeps nothing.
    private let state: ServerState?
    /// Gives what removed notifications leave back to the system.
    private let memory = MemoryReturn()
    /// The cursors of `notifications.list`.
    private let cursors = ListCursor()
    /// Held while categories and app registrations are recorded and
    /// registered, so that they are registered in the order they were recorded.
    private let registrations = Mutex(())
    /// The limits of the transport serving the service, which `server.describe`
    /// lists beside its own; told by the `Server` made over it.
    private let transportLimits = Mutex<[(String, JSON)]>([])

    /// A service over the bundles of `index`, keeping its state in `state` when given.
    /// - Parameter launcher: makes the launcher of extensions, given where
    ///   to report what workers report outside calls (subscribers hear it as
    ///   events); in this process by default.
    package init(index: ExtensionIndex, configuration: Configuration = Configuration(), state: ServerState? = nil,
                 launcher: (@escaping @Sendable (Diagnostic) -> Void) -> any ExtensionLauncher = { _ in InProcessLauncher() }) {
        let subscribers = Subscribers()
        self.subscribers = subscribers
        self.configuration = configuration
        self.state = state
        let inbox = AppInbox(limit: configuration.inboxLimit, entries: state?.kept.inbox ?? [], state: state,
                             subscribers: subscribers, log: configuration.log)
        self.inbox = inbox
        badges = AppBadges(kept: state?.kept.badges ?? [], state: state, subscribers: subscribers)
        let shows = HostReference()
        let memory = self.memory
        let reported = launcher { diagnostic in
            subscribers.publish(.diagnostic(diagnostic, app: shows.host.flatMap { Self.app(of: diagnostic, in: $0.index) }))
        }
        host = NotificationHost(index: index, configuration: configuration.host, launcher: reported, onEvent: { event in
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
        }, onDismissal: { identifier in
            do throws(Diagnostic) {
                try state?.recordRemoval(of: [identifier])
                return nil
            } catch {
                return error
            }
        })
        shows.host = host
        if let state {
            for (app, categories) in state.kept.categories { host.register(categories, for: app) }
            for (app, registration) in state.kept.registrations { host.register(registration, for: app) }
            for (app, notification, width) in state.kept.delivered { host.restore(notification, to: app, width: width) }
            state.observe { health in
                subscribers.announce(health.isDegraded ? "state.degraded" : "state.recovered", health.json)
            }
        }
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

    /// Every limit a client meets, for `server.describe`: sizes in bytes,
    /// deadlines in seconds.
    private var limits: [(String, JSON)] {
        [
            ("payloadSize", .integer(Int64(configuration.payloadSizeLimit))),
            ("responseDeadline", .double(configuration.host.responseDeadline)),
            ("serviceDeadline", .double(configuration.host.serviceDeadline)),
            ("keptNotifications", configuration.host.deliveredLimit.map { .integer(Int64($0)) } ?? .null),
            ("inboxEntries", .integer(Int64(inbox.limit))),
            ("attachmentStore", Self.described(configuration.host.attachmentQuota)),
            ("listPage", .object([("default", .integer(Int64(ListCursor.defaultLimit))),
                                  ("maximum", .integer(Int64(ListCursor.maximumLimit)))])),
        ] + transportLimits.withLock { $0 }
    }

    /// The attachment store's quota as `server.describe` lists it: bytes and
    /// files per notification, bundle and app, and the refusals that make a fault.
    private static func described(_ quota: AttachmentQuota) -> JSON {
        func pair(_ bytes: UInt64, _ files: Int) -> JSON {
            .object([("bytes", .integer(Int64(clamping: bytes))), ("files", .integer(Int64(files)))])
        }
        return .object([
            ("perNotification", pair(quota.notificationBytes, quota.notificationFiles)),
            ("perBundle", pair(quota.bundleBytes, quota.bundleFiles)),
            ("perApp", pair(quota.appBytes, quota.appFiles)),
            ("faultAfterRefusals", .object([("refusals", .integer(Int64(quota.abuseRefusals))),
                                            ("withinSeconds", .double(quota.abuseWindow))])),
        ])
    }

    // MARK: Calls

    /// One method: what it does, what it touches, and how.
    struct Method: Sendable {
        /// One sentence, for `server.describe`.
        let summary: String
        /// What a call with these parameters reads and changes, for ordering
        /// it among the calls of its connection.
        let scope: @Sendable (JSON?) -> RequestScope
        /// Runs the method with the call's parameters for `client`.
        let run: @Sendable (HostService, JSON?, any EventReceiver) throws(RPCError) -> JSON

        /// A method touching what `scope` says of its parameters.
        init(summary: String, scope: @escaping @Sendable (JSON?) -> RequestScope,
             run: @escaping @Sendable (HostService, JSON?, any EventReceiver) throws(RPCError) -> JSON) {
            self.summary = summary
            self.scope = scope
            self.run = run
        }

        /// A method touching `scope`, whatever its parameters.
        init(summary: String, scope: RequestScope,
             run: @escaping @Sendable (HostService, JSON?, any EventReceiver) throws(RPCError) -> JSON) {
            self.init(summary: summary, scope: { _ in scope }, run: run)
        }
    }

    /// What `request` reads and changes (nothing, when it could not be read
    /// or names no method), for ordering it among the calls of its connection.
    package static func scope(of request: Result<RPCRequest, RPCFailure>) -> RequestScope {
        guard case .success(let request) = request, let method = methods[request.method] else { return .nothing }
        return method.scope(request.params)
    }

    /// Answers `request` from `client`.
    package func answer(_ request: RPCRequest, from client: any EventReceiver) -> Result<JSON, RPCError> {
        guard let method = Self.methods[request.method] else {
            let hint = Suggestion.closest(to: request.method, among: Array(Self.methods.keys)).map { "; did you mean \"\($0)\"?" }
                ?? "; server.describe lists the methods."
            return .failure(.methodNotFound("There is no method \"\(request.method)\"\(hint)"))
        }
        do throws(RPCError) {
            return .success(try method.run(self, request.params, client))
        } catch {
            return .failure(error)
        }
    }

    /// The methods, by name.
    static let methods: [String: Method] = [
        "server.describe": Method(summary: "The server's version, ABI version, methods, events and limits.",
                                  scope: .nothing) {
            service, params, _ throws(RPCError) in try service.describe(params)
        },
        "categories.register": Method(summary: "Set an app's categories and their actions, replacing those it had (setNotificationCategories).",
                                      scope: RequestScope(writing: [.categories])) {
            service, params, _ throws(RPCError) in try service.registerCategories(params)
        },
        "apps.register": Method(summary: "Set an app's display name and icon (shown in the header instead of its bundle identifier) and whether its notifications show previews (always, or never: the category's hidden-previews placeholder).",
                                scope: RequestScope(writing: [.categories])) {
            service, params, _ throws(RPCError) in try service.registerApp(params)
        },
        "apps.list": Method(summary: "The apps' names, icons and show-previews settings (as registered) and badges (as notifications set them), of one app or of all.",
                            scope: RequestScope(reading: [.categories, .inbox])) {
            service, params, _ throws(RPCError) in try service.listApps(params)
        },
        "categories.list": Method(summary: "The registered categories, of one app or of all.",
                                  scope: RequestScope(reading: [.categories])) {
            service, params, _ throws(RPCError) in try service.listCategories(params)
        },
        "notifications.deliver": Method(summary: "Deliver a notification (APNs payload or request): attachments, service extension; returns the presentation, a banner (no content-extension code runs) unless \"open\" is true, which opens its expanded interface at once. One iOS does not show (background, badge only) goes to the app's inbox or sets its badge.",
                                        scope: { params in
            let delivered: RequestScope.Part = HostService.deliveredIdentifier(params).map(RequestScope.Part.notification)
                ?? .newNotification
            return params?["open"]?.boolValue == true
                ? RequestScope(reading: [.categories, .subscription], writing: [delivered, .interface, .inboxEntry])
                : RequestScope(reading: [.categories, .subscription, .interface], writing: [delivered, .inboxEntry])
        }) {
            service, params, _ throws(RPCError) in try service.deliver(params)
        },
        "notifications.respond": Method(summary: "Answer a presented notification with an action (and text); returns the outcome.",
                                        scope: { params in
            // Not the interface: a response waiting for its completion holds back no other.
            RequestScope(reading: [.categories, .subscription],
                         writing: HostService.notifications(params?["identifier"]).union([.inboxEntry]))
        }) {
            service, params, _ throws(RPCError) in try service.respond(params)
        },
        "notifications.open": Method(summary: "Open a presented notification's expanded interface (the user long-pressed it): its content extension's instance is made and receives it; the interface open closes. Returns {presentation, forwarded, log, diagnostics}.",
                                     scope: HostService.interfaceScope) {
            service, params, _ throws(RPCError) in try service.openInterface(params)
        },
        "notifications.close": Method(summary: "Close a notification's expanded interface, releasing its extension's instance; the notification stays. Returns the presentation.",
                                      scope: HostService.interfaceScope) {
            service, params, _ throws(RPCError) in try service.closeInterface(params)
        },
        "notifications.tap-media-button": Method(summary: "Tap the media play/pause button of a notification's open interface: plays when paused, pauses when playing. Returns the presentation.",
                                                 scope: HostService.interfaceScope) {
            service, params, _ throws(RPCError) in try service.tapMediaButton(params)
        },
        "notifications.interact": Method(summary: "Tap a button (event \"tap\") or submit a text field's text (event \"submit\", text) of a notification's extension view; reaches the extension only with UNNotificationExtensionUserInteractionEnabled; returns the outcome.",
                                         scope: HostService.interfaceScope) {
            service, params, _ throws(RPCError) in try service.interact(params)
        },
        "notifications.input": Method(summary: "Answer the text input a notification's extension asked for (its textInput: buttonTitle, placeholder) with text; returns the outcome.",
                                      scope: HostService.interfaceScope) {
            service, params, _ throws(RPCError) in try service.input(params)
        },
        "notifications.presentation": Method(summary: "The presentation of a delivered notification, as it is now.",
                                             scope: { params in
            RequestScope(reading: HostService.notifications(params?["identifier"]).union([.categories]))
        }) {
            service, params, _ throws(RPCError) in try service.presentation(params)
        },
        "notifications.list": Method(summary: "The delivered notifications, of one app or of all, in the order delivered, a page at a time: give back the answer's next as cursor (getDeliveredNotifications).",
                                     scope: RequestScope(reading: [.allNotifications])) {
            service, params, _ throws(RPCError) in try service.listDelivered(params)
        },
        "notifications.remove": Method(summary: "Remove delivered notifications without a response (removeDeliveredNotifications).",
                                       scope: { params in
            let named = HostService.notifications(params?["identifiers"])
            return RequestScope(reading: [.subscription],
                                writing: params?["app"] == nil ? named : named.union([.allNotifications]))
        }) {
            service, params, _ throws(RPCError) in try service.remove(params)
        },
        "extensions.list": Method(summary: "The extension bundles on the search path, what they declare, and their problems.",
                                  scope: .nothing) {
            service, params, _ throws(RPCError) in try service.listExtensions(params)
        },
        "inbox.list": Method(summary: "What apps received and their front ends have not taken (responses, background notifications), of one app or of all, in the order received, a page at a time: give back the answer's next as after.",
                             scope: RequestScope(reading: [.inbox])) {
            service, params, _ throws(RPCError) in try service.listInbox(params)
        },
        "inbox.take": Method(summary: "Take entries out of an app's inbox (the front end has them): by ids, or every one up to an id.",
                             scope: RequestScope(writing: [.inbox])) {
            service, params, _ throws(RPCError) in try service.takeInbox(params)
        },
        "events.subscribe": Method(summary: "Hear the events of some apps, or of all: notifications delivered, presentations changed, notifications dismissed, responses forwarded and background notifications (what the inbox keeps is replayed first), badges, extension failures; and the state's health and repairs.",
                                   scope: RequestScope(reading: [.inbox], writing: [.subscription])) {
            service, params, client throws(RPCError) in try service.subscribe(params, client: client)
        },
        "events.unsubscribe": Method(summary: "Stop hearing events.", scope: RequestScope(writing: [.subscription])) {
            service, params, client throws(RPCError) in try service.unsubscribe(params, client: client)
        },
    ]

    /// The events the server pushes, as JSON-RPC notifications.
    static let events: [(String, String)] = [
        ("notification.delivered", "A notification was delivered, by any client: {app, notification, presentation}."),
        ("presentation.changed", "What a notification shows changed other than in the answer to a delivery: its expanded interface opened or closed (presentation.expanded), its extension changed it on its own, or a thread-mate delivered while it is open did: {app, presentation}."),
        ("notification.dismissed", "A notification left the screen: {identifier, app, reason: response | extension | removed | replaced | expired}."),
        ("response.forwarded", "The app received a response, kept in its inbox until taken: {id, app, kind: response, received, notification, actionIdentifier, userText, replayed?}."),
        ("notification.background", "The app received a background notification (content-available only; never shown), kept in its inbox until taken: {id, app, kind: background, received, notification, replayed?}."),
        ("inbox.taken", "Entries left an app's inbox, taken by a front end: {app, ids}."),
        ("inbox.dropped", "An app's inbox was full: its oldest entries were dropped before a front end took them: {app, ids, diagnostic}."),
        ("app.badge-changed", "A notification changed an app's badge: {app, badge} (0: none)."),
        ("extension.failed", "An extension failed or misbehaved outside a call, or a call fell back to default content: {app, diagnostic}."),
        ("extension.late-completion", "An extension completed a response after its deadline (the host had applied dismissAndForwardAction); reported, and no fault: {app, notification, extension, diagnostic}."),
        ("state.degraded", "Changes can no longer be written to the state (a full or failing disk) and are refused: {status, cause, since}."),
        ("state.recovered", "Changes are written to the state again: {status}."),
        ("state.repaired", "Loading the state at start repaired damage; sent when subscribing: {repaired, losses}."),
    ]

    // MARK: Methods

    private func describe(_ params: JSON?) throws(RPCError) -> JSON {
        try Params(params, of: "server.describe", allowed: []).check()
        return .object([
            ("name", .string(HostFunctions.name)),
            ("version", .string(HostFunctions.version)),
            ("abiVersion", .integer(Int64(HostFunctions.abiVersion))),
            ("methods", .array(Self.methods.keys.sorted().map { name in
                .object([("name", .string(name)), ("summary", .string(Self.methods[name]!.summary))])
            })),
            ("events", .array(Self.events.map { .object([("method", .string($0.0)), ("params", .string($0.1))]) })),
            ("limits", .object(limits)),
            ("sandbox", .array(configuration.sandbox())),
            ("state", state?.report ?? .object([("status", .string("ok")), ("kept", .bool(false))])),
        ])
    }

    private func registerCategories(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "categories.register", allowed: ["app", "categories"])
        _ = reader.string("app", required: true)
        reader.require("categories")
        try reader.check()
        let reading = CategoryFile.read(reader.json)
        guard let file = reading.file else { throw .invalidInput(reading.diagnostics) }
        try register(recording: { () throws(Diagnostic) in try state?.recordCategories(file.categories, of: file.app) },
                     then: { host.register(file.categories, for: file.app) })
        return .object([
            ("app", .string(file.app)),
            ("categories", .array(file.categories.map { .string($0.identifier) })),
            ("diagnostics", .array(reading.diagnostics.map(\.json))),
        ])
    }

    /// `apps.register`: records and sets an app's name, icon and show-previews setting.
    private func registerApp(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "apps.register", allowed: ["app", "name", "icon", "showPreviews"])
        _ = reader.string("app", required: true)
        try reader.check()
        let reading = AppRegistration.read(reader.json)
        guard let (app, registration) = reading.registration else { throw .invalidInput(reading.diagnostics) }
        try register(recording: { () throws(Diagnostic) in try state?.recordRegistration(registration, of: app) },
                     then: { host.register(registration, for: app) })
        return .object([("app", .string(app))] + (registration.json.objectMembers ?? []))
    }

    /// `apps.list`: the apps registered or with a badge, or the one named;
    /// each with its registration and its badge (0: none).
    private func listApps(_ params: JSON?) throws(RPCError) -> JSON {
        var apps: [String: (AppRegistration, Int64)] = host.registeredApps().mapValues { ($0, 0) }
        for (app, count) in badges.all { apps[app, default: (AppRegistration(), 0)].1 = count }
        return try Self.perApp(params, of: "apps.list", apps) { registration, badge in
            (registration.json.objectMembers ?? []) + [("badge", .integer(badge))]
        }
    }

    private func listCategories(_ params: JSON?) throws(RPCError) -> JSON {
        try Self.perApp(params, of: "categories.list", host.registeredCategories()) { [("categories", .array($0.map(\.json)))] }
    }

    /// The answer of a `….list` method: `apps`, each app of `registered`
    /// (only the one the parameter `app` names, when it names one) with the
    /// `members` of what it registered.
    private static func perApp<Value>(_ params: JSON?, of method: String, _ registered: [String: Value],
                                      members: (Value) -> [(String, JSON)]) throws(RPCError) -> JSON {
        var reader = try Params(params, of: method, allowed: ["app"])
        let app = reader.string("app")
        try reader.check()
        let chosen = registered.filter { app == nil || $0.key == app }
        return .object([("apps", .array(chosen.keys.sorted().map { name in
            .object([("app", .string(name))] + members(chosen[name]!))
        }))])
    }

    /// Writes a registration's record with `record`, then makes it with
    /// `apply`, under the lock that keeps registrations in the order they
    /// were recorded; nothing is made when the record cannot be written.
    private func register(recording record: () throws(Diagnostic) -> Void, then apply: () -> Void) throws(RPCError) {
        try registrations.withLock { _ throws(RPCError) in
            do throws(Diagnostic) {
                try record()
            } catch {
                throw .stateNotWritten(error)
            }
            apply()
        }
    }

    private func deliver(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "notifications.deliver",
                                allowed: ["payload", "app", "identifier", "width", "attachments", "open"])
        let payload = reader.object("payload", required: true)
        let given = reader.string("app")
        let identifier = reader.string("identifier")
        let width = reader.number("width", in: 1...100_000)
        let transfer = reader.string("attachments")
        let opening = reader.bool("open") ?? false
        if let transfer, transfer != "copy" && transfer != "move" {
            throw .invalidParams("\"attachments\" must be \"copy\" (the default) or \"move\"; it is \"\(transfer)\".")
        }
        try reader.check()
        guard let payload else { throw .invalidParams("The parameter \"payload\" is required.") }
        var submission = PayloadSubmission(payload: payload, appOption: "the parameter \"app\"")
        submission.sizeLimit = configuration.payloadSizeLimit
        submission.identifier = identifier
        submission.app = given
        submission.width = width
        submission.attachments = transfer == "move" ? .move : .copy
        submission.opening = opening
        let made: PayloadDelivery
        do throws(PayloadRefusal) {
            if let state {
                made = try host.deliver(submission) {
                    (notification: UserNotification, app: String, width: Double) throws(Diagnostic) in
                    try state.recordDelivery(of: notification, to: app, width: width)
                }
            } else {
                made = try host.deliver(submission)
            }
        } catch {
            switch error {
            case .payload(let diagnostics): throw .invalidInput(diagnostics)
            case .addressing(let problem): throw .invalidParams(problem.message)
            case .attachmentStore(let problem): throw .invalidInput([problem])
            case .attachment(let failure): throw .attachmentRefused(failure)
            case .notRecorded(let problem): throw .stateNotWritten(problem)
            }
        }
        publishFailures(made.diagnostics, of: made.app)
        return try keepForApp(made)
    }

    /// What a delivery `made` gives the app besides (or instead of) a
    /// presentation, recorded before the call is answered: a background
    /// notification goes to its inbox, a badge is set. Returns the answer.
    /// - Throws: when what was not presented cannot be recorded (nothing
    ///   happened then); a presented notification's badge that cannot be
    ///   recorded is logged instead, as the notification shows already.
    private func keepForApp(_ made: PayloadDelivery) throws(RPCError) -> JSON {
        var answer = made.json.objectMembers ?? []
        do throws(Diagnostic) {
            if made.display == .background {
                let entry = try inbox.keep(.background(app: made.app, notification: made.notification),
                                           refusingUnrecorded: true)
                answer.insert(("inbox", entry.json), at: min(3, answer.count))
            }
            if let badge = made.badge {
                do throws(Diagnostic) {
                    try badges.set(badge, of: made.app)
                } catch where made.display == .presented {
                    configuration.log(.warning(error.code, "The badge of \(made.app) could not be recorded: \(error.message)"))
                }
            }
        } catch {
            throw .stateNotWritten(error)
        }
        return .object(answer)
    }

    private func respond(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "notifications.respond", allowed: ["identifier", "action", "text"])
        let identifier = reader.string("identifier", required: true)
        let action = reader.string("action", required: true)
        let text = reader.string("text")
        try reader.check()
        guard let identifier, let action else { throw .invalidParams("\"identifier\" and \"action\" are required.") }
        let outcome: ResponseOutcome
        do throws(Diagnostic) {
            let offered = host.presentation(of: identifier)?.actions.map(\.identifier) ?? []
            outcome = try host.respond(to: identifier, with: ResponseRequest(
                actionIdentifier: ActionIdentifier.named(action, offered: offered), userText: text))
        } catch {
            if error.code == .responseUnknownNotification { throw .unknownNotification(identifier) }
            throw .invalidInput([error])
        }
        publishFailures(outcome.diagnostics, of: outcome.presentation.app)
        return outcome.json
    }

    /// What opening, closing or tapping a notification's interface reads and changes.
    private static func interfaceScope(_ params: JSON?) -> RequestScope {
        RequestScope(reading: [.categories, .subscription],
                     writing: HostService.notifications(params?["identifier"]).union([.interface, .inboxEntry]))
    }

    /// The identifier `method`'s params name, the only parameter it takes.
    private static func identifier(_ params: JSON?, of method: String) throws(RPCError) -> String {
        var reader = try Params(params, of: method, allowed: ["identifier"])
        let identifier = reader.string("identifier", required: true)
        try reader.check()
        guard let identifier else { throw .invalidParams("\"identifier\" is required.") }
        return identifier
    }

    /// Runs `body` on the notification `identifier`, a request about its
    /// interface, turning its refusal into the RPC error.
    private static func onInterface<Result>(_ identifier: String,
                                            _ body: () throws(Diagnostic) -> Result) throws(RPCError) -> Result {
        do throws(Diagnostic) {
            return try body()
        } catch {
            if error.code == .responseUnknownNotification { throw .unknownNotification(identifier) }
            throw .invalidInput([error])
        }
    }

    private func openInterface(_ params: JSON?) throws(RPCError) -> JSON {
        let identifier = try Self.identifier(params, of: "notifications.open")
        let outcome = try Self.onInterface(identifier) { () throws(Diagnostic) in try host.open(identifier) }
        publishFailures(outcome.diagnostics, of: outcome.presentation.app)
        return outcome.json
    }

    /// `notifications.interact`: a tap on a button or a text field's submission.
    private func interact(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "notifications.interact", allowed: ["identifier", "element", "event", "text"])
        let identifier = reader.string("identifier", required: true)
        let element = reader.string("element", required: true)
        let kind = reader.string("event", required: true)
        let text = reader.string("text")
        try reader.check()
        guard let identifier, let element, let kind else {
            throw .invalidParams("\"identifier\", \"element\" and \"event\" are required.")
        }
        switch (kind, text) {
        case ("tap", nil): return try interact(with: identifier, .tap(element: element))
        case ("submit", let text?): return try interact(with: identifier, .submit(element: element, text: text))
        case ("tap", _): throw .invalidParams("A tap carries no \"text\".")
        case ("submit", nil): throw .invalidParams("A submission needs the field's \"text\".")
        default: throw .invalidParams("\"event\" must be \"tap\" or \"submit\"; it is \"\(kind)\".")
        }
    }

    /// `notifications.input`: the answer to the extension's text-input request.
    private func input(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "notifications.input", allowed: ["identifier", "text"])
        let identifier = reader.string("identifier", required: true)
        let text = reader.string("text", required: true)
        try reader.check()
        guard let identifier, let text else { throw .invalidParams("\"identifier\" and \"text\" are required.") }
        return try interact(with: identifier, .textInput(text: text))
    }

    /// Hands `event` to `identifier`'s extension; its outcome as JSON.
    private func interact(with identifier: String, _ event: ElementEvent) throws(RPCError) -> JSON {
        let outcome: InteractionOutcome
        do throws(Diagnostic) {
            outcome = try host.interact(with: identifier, event)
        } catch {
            if error.code == .responseUnknownNotification { throw .unknownNotification(identifier) }
            throw .elementRefused(error)
        }
        publishFailures(outcome.diagnostics, of: outcome.presentation.app)
        return outcome.json
    }

    private func closeInterface(_ params: JSON?) throws(RPCError) -> JSON {
        let identifier = try Self.identifier(params, of: "notifications.close")
        return try Self.onInterface(identifier) { () throws(Diagnostic) in try host.close(identifier) }.json
    }

    private func tapMediaButton(_ params: JSON?) throws(RPCError) -> JSON {
        let identifier = try Self.identifier(params, of: "notifications.tap-media-button")
        return try Self.onInterface(identifier) { () throws(Diagnostic) in try host.tapMediaButton(of: identifier) }.json
    }

    private func presentation(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "notifications.presentation", allowed: ["identifier"])
        let identifier = reader.string("identifier", required: true)
        try reader.check()
        guard let identifier, let presentation = host.presentation(of: identifier) else {
            throw .unknownNotification(identifier ?? "")
        }
        return presentation.json
    }

    private func listDelivered(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "notifications.list", allowed: ["app", "cursor", "limit"])
        let app = reader.string("app")
        let cursor = reader.string("cursor")
        let limit = reader.integer("limit", in: 1...ListCursor.maximumLimit)
        try reader.check()
        let page = host.delivered(ofApp: app, after: try cursor.map(cursors.position(of:)) ?? 0,
                                  limit: limit ?? ListCursor.defaultLimit)
        return .object([
            ("notifications", .array(page.notifications.map { entry in
                .object([("app", .string(entry.app)), ("notification", entry.notification.json)])
            })),
            ("next", page.next.map { .string(cursors.cursor(for: $0)) } ?? .null),
        ])
    }

    private func remove(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "notifications.remove", allowed: ["identifiers", "app"])
        let identifiers = reader.strings("identifiers")
        let app = reader.string("app")
        try reader.check()
        guard (identifiers == nil) != (app == nil) else {
            throw .invalidParams("notifications.remove takes \"identifiers\" (those notifications) or \"app\" (all of its), one of the two.")
        }
        let chosen = identifiers ?? host.delivered(ofApp: app).map(\.notification.identifier)
        // Noted again once the host has freed them (their events come before): a trim must follow the frees.
        defer { memory.noteRemoval() }
        guard let state else { return .object([("removed", .array(host.remove(chosen).map(JSON.string)))]) }
        do throws(Diagnostic) {
            let removed = try host.remove(chosen) { (shown: [String]) throws(Diagnostic) in try state.recordRemoval(of: shown) }
            return .object([("removed", .array(removed.map(JSON.string)))])
        } catch {
            throw .stateNotWritten(error)
        }
    }

    private func listExtensions(_ params: JSON?) throws(RPCError) -> JSON {
        try Params(params, of: "extensions.list", allowed: []).check()
        return host.index.json
    }

    private func subscribe(_ params: JSON?, client: any EventReceiver) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "events.subscribe", allowed: ["apps", "replay"])
        // "all", as the answer says it, or no apps at all: every app.
        let apps = params?["apps"] == .string("all") ? nil : reader.strings("apps")
        let replay = reader.bool("replay") ?? true
        try reader.check()
        let replayed = inbox.subscribe(client, apps: apps.map(Set.init), replaying: replay)
        // What happened before the client could hear it: damage repaired at start, a disk that fails now.
        if let repairs = state?.repairs { _ = client.push(RPCReply.notification("state.repaired", params: repairs)) }
        if let health = state?.health, health.isDegraded {
            _ = client.push(RPCReply.notification("state.degraded", params: health.json))
        }
        return .object([("apps", apps.map { .array($0.map(JSON.string)) } ?? .string("all")),
                        ("events", .array(Self.events.map { .string($0.0) })), ("replayed", .integer(Int64(replayed)))])
    }

    /// `inbox.list`: a page of what apps received and their front ends have not taken.
    private func listInbox(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "inbox.list", allowed: ["app", "after", "limit"])
        let app = reader.string("app")
        let after = reader.integer("after", in: 0...Int.max)
        let limit = reader.integer("limit", in: 1...ListCursor.maximumLimit)
        try reader.check()
        let page = inbox.list(app: app, after: UInt64(after ?? 0), limit: limit ?? ListCursor.defaultLimit)
        return .object([("entries", .array(page.entries.map(\.json))),
                        ("next", page.next.map { .integer(Int64(clamping: $0)) } ?? .null)])
    }

    /// `inbox.take`: removes entries of an app's inbox, by ids or up to an id.
    private func takeInbox(_ params: JSON?) throws(RPCError) -> JSON {
        var reader = try Params(params, of: "inbox.take", allowed: ["app", "ids", "upTo"])
        let app = reader.string("app", required: true)
        let ids = reader.integers("ids", in: 1...Int.max)
        let upTo = reader.integer("upTo", in: 1...Int.max)
        try reader.check()
        guard let app, (ids == nil) != (upTo == nil) else {
            throw .invalidParams("inbox.take takes \"ids\" (those entries) or \"upTo\" (every entry up to that id), one of the two.")
        }
        let chosen = Set((ids ?? []).map(UInt64.init))
        do throws(Diagnostic) {
            let taken = try inbox.take(of: app) { identifier in
                upTo.map { identifier <= UInt64($0) } ?? chosen.contains(identifier)
            }
            return .object([("app", .string(app)), ("taken", .array(taken.map { .integer(Int64(clamping: $0)) }))])
        } catch {
            throw .stateNotWritten(error)
        }
    }

    private func unsubscribe(_ params: JSON?, client: any EventReceiver) throws(RPCError) -> JSON {
        try Params(params, of: "events.unsubscribe", allowed: []).check()
        return .object([("unsubscribed", .bool(subscribers.unsubscribe(client)))])
    }

    // MARK: Helpers

    /// The notifications `value` names: one identifier, or an array of them
    /// (what is not a string names none; the call itself reports it).
    private static func notifications(_ value: JSON?) -> Set<RequestScope.Part> {
        switch value {
        case .string(let identifier)?: [.notification(identifier)]
        case .array(let elements)?: Set(elements.compactMap { $0.stringValue.map(RequestScope.Part.notification) })
        default: []
        }
    }

    /// The identifier a delivery with `params` gives its notification, when
    /// the call says it: the parameter, else a request payload's own; nil when
    /// the server makes one up.
    private static func deliveredIdentifier(_ params: JSON?) -> String? {
        if let given = params?["identifier"]?.stringValue { return given }
        guard let payload = params?["payload"], payload["aps"] == nil else { return nil }
        return payload["identifier"]?.stringValue
    }

    /// Tells subscribers of `app` of the errors a call ended with (an
    /// extension that failed to load, to make an instance, to answer in time).
    private func publishFailures(_ diagnostics: [Diagnostic], of app: String) {
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

/// The host, for the handlers the host itself is made with.
private final class HostReference: @unchecked Sendable {
    // Set once, right after the host is made, before any worker can report.
    weak var host: NotificationHost?
}
