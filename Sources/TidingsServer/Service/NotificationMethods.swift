import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// `notifications.respond`, `.presentation`, `.list`, `.remove`: the user's
/// response, and the delivered notifications as they are.
extension HostService {
    /// The family's methods.
    static let notificationMethods: [Method] = [
        Method(ProtocolMethod(
            .notificationsRespond,
            summary: "Answer a presented notification with an action (and text); returns the outcome.",
            parameters: [
                ProtocolField("identifier", .name, required: true, "The notification's identifier."),
                notificationApp,
                ProtocolField("action", .string, required: true,
                              "The action's identifier: one its category offers, or `default` (the user opened it), or `dismiss` (the user dismissed it), or `tidings.settings` (the user asked for the app's notification settings: forwarded to the app, whose delegate's `openSettingsFor` it calls; the notification stays)."),
                ProtocolField("text", .string, "The user's text, for a text-input action."),
            ],
            result: "`actionIdentifier`, `userText`, `receiver` (`extension`: its response handler; `app`: straight away; `nobody`: a dismissal of a category without `customDismissAction`), the extension's `option` (`doNotDismiss`, `dismiss`, `dismissAndForwardAction`; `null` when no extension answered), `dismissed`, `forwarded` (each the whole response the app received, as its inbox keeps it: `app`, `notification` with its full content and `userInfo`, `actionIdentifier`, `userText`), the `presentation` after, `log`, `diagnostics`.",
            returns: .object([
                ProtocolField("actionIdentifier", .string, required: true, "The action, as the app receives it."),
                ProtocolField("userText", .nullable(.string), required: true, "The user's text, or `null`."),
                ProtocolField("receiver", .choice(["extension", "app", "nobody"]), required: true, "Who received the response."),
                ProtocolField("option", .nullable(.choice(ResponseOption.allCases.map(\.name))), required: true, "The extension's answer, or `null`."),
                ProtocolField("dismissed", .boolean, required: true, "Whether the notification left the screen."),
            ] + ProtocolComponent.outcomeFields),
            errors: [-32602, -32000, -32001]),
               scope: { params in
            // Not the interface: a response waiting for its completion holds back no other.
            RequestScope(reading: [.categories, .subscription],
                         writing: HostService.notifications(params?["identifier"]).union([.inboxEntry]))
        }, later: { service, params, _, reply throws(RPCError) in try service.respond(&params, reply: reply) }),
        Method(ProtocolMethod(
            .notificationsPresentation,
            summary: "The presentation of a delivered notification, as it is now.",
            parameters: [ProtocolField("identifier", .name, required: true, "The notification's identifier."), notificationApp],
            result: "The presentation as it is now: `notification`, `app`, `extension` (the content extension serving it, or `null`), `header`, `defaultContentHidden`, `previewsHidden`, `quiet` (present and `true` only when delivered quietly, the app being authorized provisionally: listed, no banner, no sound), `defaultContent` (`title`, `subtitle`, `body`), `contentSize` (`width`, `initialHeight`, `height`), the extension's `view`, `actions`, `mediaButton`, `userInteractionEnabled`, `textInput` (when the extension asks for text: `buttonTitle`, `placeholder`), `presentationOptions` (how it is presented: `banner`, `list`, `sound`, `badge`; all four unless its app, in the foreground, chose fewer — see `app.willPresent`), `expanded`, `dismissed`, and the presentation `attributes`.",
            returns: .named("Presentation"),
            errors: [-32602, -32001]),
               scope: { params in
            RequestScope(reading: HostService.notifications(params?["identifier"]).union([.categories]))
        }) { service, params, _ throws(RPCError) in try service.presentation(&params) },
        Method(ProtocolMethod(
            .notificationsList,
            summary: "The delivered notifications, of one app or of all, in the order delivered, a page at a time: give back the answer's next as cursor (getDeliveredNotifications).",
            parameters: [
                ProtocolField("app", .name, "Only this app's; every app's when absent."),
                ProtocolField("cursor", .string, "The `next` of the previous page; the first page when absent. Valid until the server restarts (then refused with -32602: list again from the start)."),
                ProtocolField("limit", .integer(1...Int64(ListCursor.maximumLimit)), "The most notifications on the page, 1 – 1,000; 100 by default."),
            ],
            result: "`notifications`: each `{app, notification}` (the notification as `notifications.deliver` answers it; one a scheduled request delivered has its `trigger`, and `late: true` when the request fired more than a second after its time, kept across restarts), in the order delivered, oldest first; `next`: the cursor of the next page, or `null` after the last. Paging sees every notification kept all along exactly once; one delivered again under its identifier comes again where the new delivery stands.",
            returns: .object([
                ProtocolField("notifications", .array(.object([
                    appMember, ProtocolField("notification", .named("Notification"), required: true, "The notification."),
                ])), required: true, "The page, oldest first."),
                ProtocolField("next", .nullable(.string), required: true, "The cursor of the next page, or `null` after the last."),
            ]),
            errors: [-32602]),
               scope: RequestScope(reading: [.allNotifications])) { service, params, _ throws(RPCError) in
            try service.listDelivered(&params)
        },
        Method(ProtocolMethod(
            .notificationsRemove,
            summary: "Remove delivered notifications without a response (removeDeliveredNotifications).",
            parameters: [
                ProtocolField("identifiers", .names, "Those notifications (of `app` when given; else each of the one app that has it delivered, -32602 naming the apps when several do). Give this, `app`, or both."),
                ProtocolField("app", .name, "The app: with `identifiers`, those of its notifications; alone, every notification of this app."),
            ],
            result: "`removed`: the identifiers of the notifications removed (each also dismissed with reason `removed`); an identifier no app has delivered is left out.",
            returns: .object([ProtocolField("removed", .strings, required: true, "The identifiers of the notifications removed.")]),
            errors: [-32602, -32010]),
               scope: { params in
            let named = HostService.notifications(params?["identifiers"])
            return RequestScope(reading: [.subscription],
                                writing: params?["app"] == nil || params?["identifiers"] != nil
                                    ? named : named.union([.allNotifications]))
        }) { service, params, _ throws(RPCError) in try service.remove(&params) },
    ]

    /// Says in the server's log, one line each, that an extension never
    /// completed a response (its deadline passed, or it ended first): else
    /// a forgotten completion is a long wait that nobody explains.
    private func logUncompleted(_ diagnostics: [Diagnostic], identifier: String, app: String) {
        for diagnostic in diagnostics where diagnostic.code == .completionTimeout || diagnostic.code == .completionAbandoned {
            configuration.log(.error(diagnostic.code, "The response to \(identifier) of \(app) was not completed: \(diagnostic.message)"))
        }
    }

    /// Answers through `reply` once the extension has answered the
    /// response (or its deadline passed), holding no thread meanwhile.
    private func respond(_ params: inout Params, reply: @escaping Method.Reply) throws(RPCError) {
        let identifier = params.string("identifier")
        let app = params.string("app")
        let action = params.string("action")
        let text = params.string("text")
        try params.check()
        guard let identifier, let action else { throw .invalidParams("\"identifier\" and \"action\" are required.") }
        let key = try key(of: identifier, app: app)
        let offered = host.offeredActions(of: key) ?? []
        host.respond(to: key, with: ResponseRequest(
            actionIdentifier: ActionIdentifier.named(action, offered: offered), userText: text)) { outcome in
            switch outcome {
            case .success(let outcome):
                self.publishFailures(outcome.diagnostics, of: outcome.presentation.app)
                self.logUncompleted(outcome.diagnostics, identifier: identifier, app: outcome.presentation.app)
                reply(.success(outcome.json))
            case .failure(let error) where error.code == .responseUnknownNotification:
                reply(.failure(.unknownNotification(identifier, app: app)))
            case .failure(let error):
                reply(.failure(.invalidInput([error])))
            }
        }
    }

    private func presentation(_ params: inout Params) throws(RPCError) -> JSON {
        let identifier = params.string("identifier")
        let app = params.string("app")
        try params.check()
        guard let identifier else { throw .invalidParams("\"identifier\" is required.") }
        guard let presentation = host.presentation(of: try key(of: identifier, app: app)) else {
            throw .unknownNotification(identifier, app: app)
        }
        return presentation.json
    }

    private func listDelivered(_ params: inout Params) throws(RPCError) -> JSON {
        let app = params.string("app")
        let cursor = params.string("cursor")
        let limit = params.integer("limit", in: 1...ListCursor.maximumLimit)
        try params.check()
        let page = host.delivered(ofApp: app, after: try cursor.map(cursors.position(of:)) ?? 0,
                                  limit: limit ?? ListCursor.defaultLimit)
        return .object([
            ("notifications", .array(page.notifications.map { entry in
                .object([("app", .string(entry.app)), ("notification", entry.notification.json)])
            })),
            ("next", page.next.map { .string(cursors.cursor(for: $0)) } ?? .null),
        ])
    }

    private func remove(_ params: inout Params) throws(RPCError) -> JSON {
        let identifiers = params.strings("identifiers")
        let app = params.string("app")
        try params.check()
        guard identifiers != nil || app != nil else {
            throw .invalidParams("notifications.remove takes \"identifiers\" (those notifications), \"app\" (all of its), or both (those of its).")
        }
        let chosen: [NotificationKey]
        if let identifiers {
            var keys: [NotificationKey] = []
            for identifier in identifiers {
                if let app {
                    keys.append(NotificationKey(app: app, identifier: identifier))
                } else {
                    let apps = host.apps(showing: identifier)
                    guard apps.count <= 1 else { throw .ambiguousNotification(identifier, apps: apps) }
                    keys += apps.map { NotificationKey(app: $0, identifier: identifier) }
                }
            }
            chosen = keys
        } else {
            chosen = host.delivered(ofApp: app).map { NotificationKey(app: $0.app, identifier: $0.notification.identifier) }
        }
        // Noted again once the host has freed them (their events come before): a trim must follow the frees.
        defer { memory.noteRemoval() }
        guard let state else { return .object([("removed", .array(host.remove(chosen).map { .string($0.identifier) }))]) }
        do throws(Diagnostic) {
            let removed = try host.remove(chosen) { (shown: [NotificationKey]) throws(Diagnostic) in
                try state.recordRemoval(of: shown)
            }
            return .object([("removed", .array(removed.map { .string($0.identifier) }))])
        } catch {
            throw .stateNotWritten(error)
        }
    }
}
