import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// `notifications.deliver`: a notification in, through its service
/// extension and the attachment store, to a presentation, the app's inbox or its badge.
extension HostService {
    /// The family's methods.
    static let deliveryMethods: [Method] = [
        Method(ProtocolMethod(
            .notificationsDeliver,
            summary: "Deliver a notification (APNs payload or request): attachments, service extension; returns the presentation, a banner (no content-extension code runs) unless \"open\" is true, which opens its expanded interface at once. One iOS does not show (background, badge only) goes to the app's inbox or sets its badge; one with `content-available` 1 and an alert, sound or badge is shown or badged and goes to the inbox as well (`notification.background`), as iOS wakes the app with it. Wrong-typed or out-of-range APNs fields are ignored with a warning (`payload.field-ignored`) and the rest delivered, as on a device; a notification with nothing to show, sound or badge is refused with Apple's 1401 (notificationInvalidNoContent).",
            parameters: [
                ProtocolField("payload", .named("Payload"), required: true,
                              "The notification: an APNs payload (an `aps` dictionary, custom keys beside it) or a request (`identifier`, `content`, …)."),
                ProtocolField("app", .name, required: true, "The app it is addressed to. Over RPC a delivery names its app: the server does not guess it from the category (two apps may use one category and one identifier); a call without it is refused with -32602."),
                ProtocolField("identifier", .name, "Its request identifier; else the request payload's own, else the server makes one. A delivery under a delivered notification's identifier replaces it."),
                ProtocolField("width", .number(1...100_000), "The width the front end shows it at, 1 – 100,000 points; the server's default otherwise."),
                ProtocolField("attachments", .choice("copy", "move"), "`\"copy\"` (the default) or `\"move\"`: how the attachment files the payload names go into the store. Over RPC each attachment's `path` must be absolute, or its `url` a `file://` URL: the server has no working directory of the client's. A delivery naming a relative path is refused (-32004, `appleCode` 100: invalid URL); a `url` of another scheme, -32000 (`payload.invalid`)."),
                ProtocolField("open", .boolean, "`true`: open its expanded interface at once (as `notifications.open`); `false` by default: a banner."),
                ProtocolField("answer", .choice("delivery", "presentation"), "`\"delivery\"` (the default): the whole delivery; `\"presentation\"`: a presented notification's answer holds only `display`, `app`, `badge`, the `presentation` and the `diagnostics` — what a front end draws from, in about half the bytes (951 instead of 1,673 for a plain banner) and a sixth less of the server's work. One not presented is answered whole either way."),
            ],
            result: "`display` (`presented`, `background`, `badge`, `denied`, or `foreground`: its app is in the foreground and its delegate's options hold neither banner nor list, or it has no delegate or did not answer in time — nothing shown or kept, the `notification`, its `presentationOptions` and the `diagnostics` answered), `app`, `badge` when it sets one (and its presentation options have `badge`). Presented: the `notification`, the admitted `attachments`, the `service` stage, the `presentation` (a banner, `expanded: false`, unless opened; `quiet: true` for an app authorized provisionally), `forwarded`, `log`, `diagnostics` (with `answer: \"presentation\"`, only the `presentation` and the `diagnostics`). Background (content-available only, never shown): the `notification` and its `inbox` entry. Badge only: the `notification`. With `content-available` 1, presented, badge only, denied or withheld too: its `inbox` entry. Denied (the user turned the app's notifications off, `authorization.decide`): the `notification`; nothing shown, no badge set, no extension run.",
            returns: .named("Delivery"),
            errors: [-32602, -32000, -32004, -32010]),
               scope: { params in
            let delivered: RequestScope.Part = HostService.deliveredIdentifier(params).map(RequestScope.Part.notification)
                ?? .newNotification
            return params?["open"]?.boolValue == true
                ? RequestScope(reading: [.categories, .subscription], writing: [delivered, .interface, .inboxEntry])
                : RequestScope(reading: [.categories, .subscription, .interface], writing: [delivered, .inboxEntry])
        }, later: { service, params, _, reply throws(RPCError) in try service.deliver(&params, reply: reply) }),
    ]

    /// Answers through `reply` once the notification is delivered: at once,
    /// or when its service extension answers or its time runs out, holding
    /// no thread meanwhile.
    private func deliver(_ params: inout Params, reply: @escaping Method.Reply) throws(RPCError) {
        let payload = params.object("payload")
        let given = params.string("app")
        let identifier = params.string("identifier")
        let width = params.number("width", in: 1...100_000)
        let transfer = params.string("attachments")
        let opening = params.bool("open") ?? false
        let answering = params.string("answer")
        if let transfer, transfer != "copy" && transfer != "move" {
            throw .invalidParams("\"attachments\" must be \"copy\" (the default) or \"move\"; it is \"\(transfer)\".")
        }
        if let answering, answering != "delivery" && answering != "presentation" {
            throw .invalidParams("\"answer\" must be \"delivery\" (the default) or \"presentation\"; it is \"\(answering)\".")
        }
        try params.check()
        guard let payload else { throw .invalidParams("The parameter \"payload\" is required.") }
        guard let given else {
            throw .invalidParams("Name the app the notification is addressed to with \"app\": the server does not guess it from the category.")
        }
        var submission = PayloadSubmission(payload: payload, appOption: "the parameter \"app\"")
        submission.sizeLimit = configuration.payloadSizeLimit
        submission.identifier = identifier
        submission.app = given
        submission.width = width
        submission.attachments = transfer == "move" ? .move : .copy
        submission.opening = opening
        let state = self.state
        host.deliver(submission, recordingWith: { (notification: UserNotification, app: String, width: Double, expiring: [NotificationKey]) throws(Diagnostic) in
            try state?.recordDelivery(of: notification, to: app, width: width, expiring: expiring)
        }, then: { delivered in
            reply(Result { () throws(RPCError) -> JSON in
                try self.deliveryAnswer(delivered, presentationOnly: answering == "presentation")
            })
        })
    }

    /// The answer to a delivery that ended as `delivered`: the whole
    /// delivery, or with `presentationOnly` what a front end draws from.
    func deliveryAnswer(_ delivered: Result<PayloadDelivery, PayloadRefusal>,
                                presentationOnly: Bool) throws(RPCError) -> JSON {
        let made: PayloadDelivery
        switch delivered {
        case .success(let delivery): made = delivery
        case .failure(.payload(let diagnostics)):
            throw .invalidInput(diagnostics, appleCode: Payload.appleCode(of: diagnostics))
        case .failure(.addressing(let problem)): throw .invalidParams(problem.message)
        case .failure(.attachmentStore(let problem)): throw .invalidInput([problem])
        case .failure(.attachment(let failure)): throw .attachmentRefused(failure)
        case .failure(.notRecorded(let problem)): throw .stateNotWritten(problem)
        }
        publishFailures(made.diagnostics, of: made.app)
        return try keepForApp(made, presentationOnly: presentationOnly)
    }

    /// What a delivery `made` gives the app besides (or instead of) a
    /// presentation, recorded before the call is answered: one that wakes the
    /// app (`content-available`, shown or not) goes to its inbox, a badge is set. Returns the answer:
    /// the whole delivery, or with `presentationOnly` what a front end draws from.
    /// - Throws: when what was not presented cannot be recorded (nothing
    ///   happened then); a presented notification's badge that cannot be
    ///   recorded is logged instead, as the notification shows already.
    func keepForApp(_ made: PayloadDelivery, presentationOnly: Bool) throws(RPCError) -> JSON {
        var answer = (presentationOnly ? made.presentationJSON : made.json).objectMembers ?? []
        do throws(Diagnostic) {
            if made.wakesApp {
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

    /// The identifier a delivery with `params` gives its notification, when
    /// the call says it: the parameter, else a request payload's own; nil when
    /// the server makes one up.
    private static func deliveredIdentifier(_ params: JSON?) -> String? {
        if let given = params?["identifier"]?.stringValue { return given }
        guard let payload = params?["payload"], payload["aps"] == nil else { return nil }
        return payload["identifier"]?.stringValue
    }
}
