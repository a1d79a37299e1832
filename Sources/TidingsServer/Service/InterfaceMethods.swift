import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// `notifications.open`, `.close`, `.tap-media-button`, `.interact`,
/// `.input`: a notification's expanded interface, where its content
/// extension's instance lives, and what the user does in it.
extension HostService {
    /// The family's methods.
    static let interfaceMethods: [Method] = [
        Method(ProtocolMethod(
            .notificationsOpen,
            summary: "Open a presented notification's expanded interface (the user long-pressed it): its content extension's instance is made and receives it; the interface open closes. Returns {presentation, forwarded, log, diagnostics}.",
            parameters: [identifierParameter, notificationApp],
            result: "`presentation` (`expanded: true`), `forwarded`, `log`, `diagnostics`.",
            returns: .named("Outcome"),
            errors: [-32602, -32000, -32001]),
               scope: HostService.interfaceScope) { service, params, _ throws(RPCError) in
            let key = try service.key(&params)
            let outcome = try HostService.onInterface(key) { () throws(Diagnostic) in try service.host.open(key) }
            service.publishFailures(outcome.diagnostics, of: outcome.presentation.app)
            return outcome.json
        },
        Method(ProtocolMethod(
            .notificationsClose,
            summary: "Close a notification's expanded interface, releasing its extension's instance; the notification stays. Returns the presentation.",
            parameters: [identifierParameter, notificationApp],
            result: "The presentation (a banner, `expanded: false`).",
            returns: .named("Presentation"),
            errors: [-32602, -32000, -32001]),
               scope: HostService.interfaceScope) { service, params, _ throws(RPCError) in
            let key = try service.key(&params)
            return try HostService.onInterface(key) { () throws(Diagnostic) in try service.host.close(key) }.json
        },
        Method(ProtocolMethod(
            .notificationsTapMediaButton,
            summary: "Tap the media play/pause button of a notification's open interface: plays when paused, pauses when playing. Returns the presentation.",
            parameters: [identifierParameter, notificationApp],
            result: "The presentation (`mediaButton.playing`), with `log` and `diagnostics`: what the extension logged and did wrong in its `media_play` or `media_pause`. Refused with -32000 when its interface is closed or shows no media button.",
            returns: .object(ProtocolComponent.presentationFields
                + ProtocolComponent.outcomeFields.filter { $0.name == "log" || $0.name == "diagnostics" }),
            errors: [-32602, -32000, -32001]),
               scope: HostService.interfaceScope) { service, params, _ throws(RPCError) in
            let key = try service.key(&params)
            return try HostService.onInterface(key) { () throws(Diagnostic) in
                try service.host.tapMediaButton(of: key)
            }.json
        },
        Method(ProtocolMethod(
            .notificationsInteract,
            summary: "Tap a button (event \"tap\") or submit a text field's text (event \"submit\", text) of a notification's extension view; reaches the extension only with UNNotificationExtensionUserInteractionEnabled; returns the outcome.",
            parameters: [
                identifierParameter, notificationApp,
                ProtocolField("element", .string, required: true, "The element's identifier in the extension's view."),
                ProtocolField("event", .choice("tap", "submit"), required: true, "`\"tap\"` (a button) or `\"submit\"` (a text field, with `text`)."),
                ProtocolField("text", .string, "The text submitted; required with `\"submit\"`, refused with `\"tap\"`."),
            ],
            result: "The `event`, `element`, `text`, `dismissed`, `forwarded`, the `presentation` after, `log`, `diagnostics`. Refused with -32007 (nothing reaches the extension) without `UNNotificationExtensionUserInteractionEnabled`, with its interface closed, and for an element that is missing, of the other kind, hidden or disabled.",
            returns: interactionOutcome,
            errors: [-32602, -32001, -32007]),
               scope: HostService.interfaceScope) { service, params, _ throws(RPCError) in try service.interact(&params) },
        Method(ProtocolMethod(
            .notificationsInput,
            summary: "Answer the text input a notification's extension asked for (its textInput: buttonTitle, placeholder) with text; returns the outcome.",
            parameters: [
                identifierParameter, notificationApp,
                ProtocolField("text", .string, required: true, "The user's text."),
            ],
            result: "As `notifications.interact`. Refused with -32007 (`element.input-not-requested`) when the presentation's `textInput` asks for none.",
            returns: interactionOutcome,
            errors: [-32602, -32001, -32007]),
               scope: HostService.interfaceScope) { service, params, _ throws(RPCError) in
            let identifier = params.string("identifier")
            let app = params.string("app")
            let text = params.string("text")
            try params.check()
            guard let identifier, let text else { throw .invalidParams("\"identifier\" and \"text\" are required.") }
            return try service.interact(with: try service.key(of: identifier, app: app), .textInput(text: text))
        },
    ]

    /// What `notifications.interact` and `notifications.input` answer.
    private static let interactionOutcome = ProtocolSchema.object([
        ProtocolField("event", .choice("tap", "submit", "input"), required: true, "The event."),
        ProtocolField("element", .nullable(.string), required: true, "The element's identifier, or `null` (text input)."),
        ProtocolField("text", .nullable(.string), required: true, "The text, or `null` (a tap)."),
        ProtocolField("dismissed", .boolean, required: true, "Whether the notification left the screen."),
    ] + ProtocolComponent.outcomeFields)

    /// The parameter of a method about one notification.
    private static let identifierParameter = ProtocolField("identifier", .name, required: true, "The notification's identifier.")

    /// What opening, closing or tapping a notification's interface reads and changes.
    private static func interfaceScope(_ params: JSON?) -> RequestScope {
        RequestScope(reading: [.categories, .subscription],
                     writing: HostService.notifications(params?["identifier"]).union([.interface, .inboxEntry]))
    }

    /// The notification the call names (its `identifier` and `app`, the only parameters it takes).
    private func key(_ params: inout Params) throws(RPCError) -> NotificationKey {
        let identifier = params.string("identifier")
        let app = params.string("app")
        try params.check()
        guard let identifier else { throw .invalidParams("\"identifier\" is required.") }
        return try key(of: identifier, app: app)
    }

    /// Runs `body` on the notification `key`, a request about its
    /// interface, turning its refusal into the RPC error.
    private static func onInterface<Result>(_ key: NotificationKey,
                                            _ body: () throws(Diagnostic) -> Result) throws(RPCError) -> Result {
        do throws(Diagnostic) {
            return try body()
        } catch {
            if error.code == .responseUnknownNotification { throw .unknownNotification(key.identifier, app: key.app) }
            throw .invalidInput([error])
        }
    }

    /// `notifications.interact`: a tap on a button or a text field's submission.
    private func interact(_ params: inout Params) throws(RPCError) -> JSON {
        let identifier = params.string("identifier")
        let app = params.string("app")
        let element = params.string("element")
        let kind = params.string("event")
        let text = params.string("text")
        try params.check()
        guard let identifier, let element, let kind else {
            throw .invalidParams("\"identifier\", \"element\" and \"event\" are required.")
        }
        let event: ElementEvent
        switch (kind, text) {
        case ("tap", nil): event = .tap(element: element)
        case ("submit", let text?): event = .submit(element: element, text: text)
        case ("tap", _): throw .invalidParams("A tap carries no \"text\".")
        case ("submit", nil): throw .invalidParams("A submission needs the field's \"text\".")
        default: throw .invalidParams("\"event\" must be \"tap\" or \"submit\"; it is \"\(kind)\".")
        }
        // The parameters first: a call that could never be made is refused as such, whatever is delivered.
        return try interact(with: try key(of: identifier, app: app), event)
    }

    /// Hands `event` to `key`'s extension; its outcome as JSON.
    private func interact(with key: NotificationKey, _ event: ElementEvent) throws(RPCError) -> JSON {
        let outcome: InteractionOutcome
        do throws(Diagnostic) {
            outcome = try host.interact(with: key, event)
        } catch {
            if error.code == .responseUnknownNotification { throw .unknownNotification(key.identifier, app: key.app) }
            throw .elementRefused(error)
        }
        publishFailures(outcome.diagnostics, of: outcome.presentation.app)
        return outcome.json
    }
}
