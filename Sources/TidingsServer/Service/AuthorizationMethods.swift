import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// `authorization.*` and `badge.set`: what an app asks the user
/// (UNUserNotificationCenter's `requestAuthorization`,
/// `getNotificationSettings`, `setBadgeCount`) and what a front end or the
/// command line answers for the user.
extension HostService {
    /// How long `authorization.request` waits for the user unless told: 300 s.
    static let defaultAuthorizationTimeout = 300.0

    /// The family's methods.
    static let authorizationMethods: [Method] = [
        Method(ProtocolMethod(
            .authorizationRequest,
            summary: "Ask the user to allow an app's notifications (requestAuthorization(options:)). Decided already: answered at once from the decision kept. Not determined (or provisional, asking without \"provisional\"): publishes `authorization.requested` for a front end to prompt, and answers once the user decides (`authorization.decide`) or the time runs out. Not determined, asking \"provisional\": granted at once, delivered quietly.",
            parameters: [
                ProtocolField("app", .name, required: true, "The app asking."),
                ProtocolField("options", .array(.choice(AppAuthorization.Option.allCases.map(\.rawValue))), required: true,
                              "What it asks for (UNAuthorizationOptions): any of `badge`, `sound`, `alert`, `carPlay`, `criticalAlert`, `providesAppNotificationSettings`, `provisional`."),
                ProtocolField("timeout", .number(0...86_400), "How long to wait for the user, 0 – 86,400 seconds; 300 by default."),
            ],
            result: "`granted` (the app may notify: authorized or provisional), `status` (`notDetermined`, `denied`, `authorized`, `provisional`, `ephemeral`: Apple's UNAuthorizationStatus), `settings` (as `authorization.settings` answers them); `timedOut: true` when the user did not decide in time (`granted` false, `status` `notDetermined`). Kept across restarts.",
            returns: .object([
                ProtocolField("granted", .boolean, required: true, "Whether the app may notify: authorized or provisional."),
                ProtocolField("status", .named("AuthorizationStatus"), required: true, "Its authorization."),
                ProtocolField("settings", .named("NotificationSettings"), required: true, "Its settings, as `authorization.settings` answers them."),
                ProtocolField("timedOut", .boolean, "`true` when the user did not decide in time."),
            ]),
            errors: [-32602, -32010]),
               scope: { _ in RequestScope(reading: [.subscription]) },
               later: { service, params, client, reply throws(RPCError) in
                   try service.requestAuthorization(&params, from: client, reply: reply)
               }),
        Method(ProtocolMethod(
            .authorizationDecide,
            summary: "Record the user's answer about an app's notifications, from a front end's prompt or the command line (`tidings apps allow|deny|reset`); answers every `authorization.request` of the app waiting, and publishes `authorization.changed`.",
            parameters: [
                ProtocolField("app", .name, required: true, "The app."),
                ProtocolField("decision", .choice(AppAuthorizations.Decision.allCases.map(\.rawValue)), required: true,
                              "`allow` (authorized, with the options the app asked for; alert, sound and badge when it never asked), `deny` (its notifications are not presented, its badge not set; background notifications still reach it) or `reset` (not determined: its next request asks again)."),
            ],
            result: "`app`, `status` (its authorization now). Kept across restarts.",
            returns: .object([appMember, ProtocolField("status", .named("AuthorizationStatus"), required: true, "Its authorization now.")]),
            errors: [-32602, -32010]),
               scope: RequestScope(reading: [.subscription], writing: [.categories])) { service, params, _ throws(RPCError) in
            try service.decideAuthorization(&params)
        },
        Method(ProtocolMethod(
            .authorizationSettings,
            summary: "An app's notification settings (getNotificationSettings).",
            parameters: [ProtocolField("app", .name, required: true, "The app.")],
            result: "UNNotificationSettings: `authorizationStatus`; `alertSetting`, `soundSetting`, `badgeSetting`, `lockScreenSetting`, `notificationCenterSetting`, `criticalAlertSetting`, `announcementSetting`, `timeSensitiveSetting`, `scheduledDeliverySetting`, `directMessagesSetting` (each `notSupported`, `disabled` or `enabled`; announcements, scheduled delivery and direct messages are not supported); `alertStyle` (`none`, `banner`); `showPreviewsSetting` (`always`, `never`, as `apps.register` set it); `providesAppNotificationSettings`. An app that never asked and is delivered (`serve --unasked-apps deliver`) has alert, sound and badge enabled.",
            returns: .named("NotificationSettings"),
            errors: [-32602]),
               scope: RequestScope(reading: [.categories])) { service, params, _ throws(RPCError) in
            let app = params.string("app")
            try params.check()
            guard let app else { throw .invalidParams("The parameter \"app\" is required.") }
            return service.settings(of: app, service.authorizations.authorization(of: app))
        },
        Method(ProtocolMethod(
            .badgeSet,
            summary: "Set an app's badge (setBadgeCount); 0 clears it. Publishes `app.badge-changed` when it changes.",
            parameters: [
                ProtocolField("app", .name, required: true, "The app."),
                ProtocolField("count", .integer(atLeast: 0), required: true, "The badge, 0 or more; 0: none."),
            ],
            result: "`app`, `badge` (the count kept), `shown`: whether it shows — false when the app is denied, or authorized without `badge` (the count is kept all the same, as on iOS). Kept across restarts.",
            returns: .object([appMember, ProtocolField("badge", .integer(atLeast: 0), required: true, "The count kept."),
                              ProtocolField("shown", .boolean, required: true, "Whether it shows.")]),
            errors: [-32602, -32008, -32010]),
               scope: RequestScope(reading: [.subscription], writing: [.inboxEntry])) { service, params, _ throws(RPCError) in
            try service.setBadge(&params)
        },
    ]

    /// `authorization.request` from `client`: answers through `reply` once
    /// decided, or when `client` leaves (its wait ends with it).
    private func requestAuthorization(_ params: inout Params, from client: any EventReceiver,
                                      reply: @escaping Method.Reply) throws(RPCError) {
        let app = params.string("app")
        let names = params.strings("options")
        let timeout = params.number("timeout", in: 0...86_400) ?? Self.defaultAuthorizationTimeout
        try params.check()
        guard let app, let names else { throw .invalidParams("The parameters \"app\" and \"options\" are required.") }
        var options: Set<AppAuthorization.Option> = []
        for name in names {
            guard let option = AppAuthorization.Option(rawValue: name) else {
                let known = AppAuthorization.Option.allCases.map(\.rawValue)
                let hint = Suggestion.closest(to: name, among: known).map { "; did you mean \"\($0)\"?" }
                    ?? "; the options are \(known.map { "\"\($0)\"" }.joined(separator: ", "))."
                throw .invalidParams("There is no authorization option \"\(name)\"\(hint)")
            }
            options.insert(option)
        }
        let name = host.registeredApps()[app]?.name
        do throws(Diagnostic) {
            try authorizations.request(options, of: app, name: name, timeout: timeout, from: ObjectIdentifier(client)) { answer in
                var members: [(String, JSON)] = [
                    ("granted", .bool(!answer.timedOut && answer.authorization.granted)),
                    ("status", .string(answer.authorization.status.rawValue)),
                    ("settings", self.settings(of: app, answer.authorization)),
                ]
                if answer.timedOut { members.append(("timedOut", .bool(true))) }
                reply(.success(.object(members)))
            }
        } catch where error.code == .authorizationTooManyWaiting {
            throw .invalidParams(error.message)
        } catch {
            throw .stateNotWritten(error)
        }
    }

    /// `authorization.decide`: records the user's decision.
    private func decideAuthorization(_ params: inout Params) throws(RPCError) -> JSON {
        let app = params.string("app")
        let word = params.string("decision")
        try params.check()
        guard let app, let word else { throw .invalidParams("The parameters \"app\" and \"decision\" are required.") }
        guard let decision = AppAuthorizations.Decision(rawValue: word) else {
            throw .invalidParams("\"decision\" must be \"allow\", \"deny\" or \"reset\"; it is \"\(word)\".")
        }
        do throws(Diagnostic) {
            let made = try authorizations.decide(decision, for: app)
            return .object([("app", .string(app)), ("status", .string(made.status.rawValue))])
        } catch {
            throw .stateNotWritten(error)
        }
    }

    /// The settings of `app` when its authorization is `authorization`.
    private func settings(of app: String, _ authorization: AppAuthorization) -> JSON {
        authorization.settings(unasked: authorizations.unasked,
                               previews: host.registeredApps()[app]?.showPreviews ?? .always)
    }

    /// `badge.set`: records and sets the badge, whether or not it shows.
    private func setBadge(_ params: inout Params) throws(RPCError) -> JSON {
        let app = params.string("app")
        let count = params.number("count")
        try params.check()
        guard let app, let count else { throw .invalidParams("The parameters \"app\" and \"count\" are required.") }
        guard let whole = Int64(exactly: count) else {
            throw .invalidParams("\"count\" must be a whole number; it is \(count).")
        }
        guard whole >= 0 else {
            throw .appleRefused(1600, "A badge count cannot be negative (UNErrorCodeBadgeInputInvalid); it is \(whole).")
        }
        do throws(Diagnostic) {
            try badges.set(whole, of: app)
        } catch {
            throw .stateNotWritten(error)
        }
        return .object([("app", .string(app)), ("badge", .integer(whole)),
                        ("shown", .bool(authorizations.showsBadge(of: app)))])
    }
}
