import TidingsBase
import TidingsProtocol

/// `push.*` but `push.receive`: an app's registration for remote
/// notifications (`push.register`, `push.unregister`, `push.list`), and what
/// the front end that is the UnifiedPush connector reports of the
/// distributor (`push.distributor`, `push.endpoint`,
/// `push.registration-failed`, `push.unregistered`).
extension HostService {
    /// The family's methods.
    static let pushMethods: [Method] = [
        Method(ProtocolMethod(
            .pushRegister,
            summary: "Register the app for remote notifications, as `registerForRemoteNotifications()` does: makes its registration when it has none — a random token, a P-256 key pair and a 16-byte auth secret, kept in the state directory readable by the user alone (`push/registrations.json`, 0600) and across restarts — else answers the one it has (idempotent: the same token and keys). Publishes `push.registration-requested` while the registration has no endpoint, so that the front end (`tidings desktop`, the UnifiedPush connector) registers its token with the user's distributor; `push.new-endpoint` tells the app its endpoint.",
            parameters: [ProtocolField("app", .name, required: true, "The app to register; an app connection's own (filled in when absent).")],
            result: "The registration (the app's \"device token\"): `app`, `token`, `endpoint` (null until the distributor gives one), `publicKey` and `auth` (base64url: what a Web Push sender encrypts for), `status` (`registered`, `pending`, `noDistributor`, `noFrontEnd`), `distributor` and `message` (what to do when it is not registered: run `tidings desktop`, install a distributor).",
            returns: .named("PushRegistration"),
            errors: [-32602, -32010, -32013]),
               scope: RequestScope(reading: [.subscription], writing: [.pushRegistrations]),
               run: { service, params, _ throws(RPCError) in try service.registerForPush(&params) }),
        Method(ProtocolMethod(
            .pushUnregister,
            summary: "Unregister the app from remote notifications: its registration and keys are deleted at once (a message for its token is refused from then on, `push.unknown-token`), and `push.unregistering` tells the front end to unregister the token from the distributor.",
            parameters: [ProtocolField("app", .name, required: true, "The app to unregister; an app connection's own (filled in when absent).")],
            result: "`app`, `token` (the token deleted) and `unregistered: true`; an app with no registration gets `{app, unregistered: false}`.",
            returns: .closedObject([
                ProtocolField("app", .string, required: true, "The app."),
                ProtocolField("token", .string, "The token deleted; absent when there was none."),
                ProtocolField("unregistered", .boolean, required: true, "Whether a registration was deleted."),
            ]),
            errors: [-32602, -32010, -32013]),
               scope: RequestScope(reading: [.subscription], writing: [.pushRegistrations]),
               run: { service, params, _ throws(RPCError) in try service.unregisterFromPush(&params) }),
        Method(ProtocolMethod(
            .pushList,
            summary: "The registrations for remote notifications: an app connection's own, a front end's of every app (or of `app`), with what the front end said of the distributor. The front end that is the UnifiedPush connector registers each token listed with the distributor.",
            parameters: [ProtocolField("app", .name, "Only this app's registration; an app connection's own (filled in).")],
            result: "`registrations` (each as `push.register` answers it), `distributor` (its name, null when none was reported), `status` of push on this server (`registered`: a front end registered with a distributor; `noDistributor`; `noFrontEnd`) and `message`, what it means (what to run or install).",
            returns: .closedObject([
                ProtocolField("registrations", .array(.named("PushRegistration")), required: true, "The registrations, by app."),
                ProtocolField("distributor", .nullable(.string), required: true, "The distributor the front end registers with; null when none was reported or there is none."),
                ProtocolField("status", .choice("registered", "noDistributor", "noFrontEnd"), required: true,
                              "`registered` once a front end reported a distributor, `noDistributor` when it reported none on the session bus, `noFrontEnd` when no front end has reported since the server started."),
                ProtocolField("message", .string, required: true, "What the status means for the person: what to run (`tidings desktop`) or install (a UnifiedPush distributor)."),
            ]),
            errors: [-32602]),
               scope: RequestScope(reading: [.pushRegistrations]),
               run: { service, params, _ throws(RPCError) in try service.listPush(&params) }),
        Method(ProtocolMethod(
            .pushDistributor,
            summary: "The front end says which UnifiedPush distributor it registers the tokens with (null: none on the session bus), on starting and whenever the distributor changes. Kept in memory while its connection lasts: once it closes, or after a restart, the status is `noFrontEnd` until a front end says it again.",
            parameters: [
                ProtocolField("name", .nullable(.string), required: true, "The distributor's D-Bus name (`org.unifiedpush.Distributor.…`), or null when there is none."),
                ProtocolField("message", .string, "What the front end adds, for the person: why there is none, what it found."),
            ],
            result: "An empty object.",
            returns: .closedObject([]),
            errors: [-32602]),
               scope: RequestScope(reading: [.subscription], writing: [.pushRegistrations]),
               run: { service, params, client throws(RPCError) in try service.reportDistributor(&params, from: client) }),
        Method(ProtocolMethod(
            .pushEndpoint,
            summary: "The distributor gave a registration its endpoint (UnifiedPush `NewEndpoint`): it is kept, and `push.new-endpoint` tells the app (with the public key and auth secret its server needs) when it changed.",
            parameters: [
                ProtocolField("token", .string, required: true, "The registration's token."),
                ProtocolField("endpoint", .string, required: true, "The push endpoint URL the app's server posts Web Push messages to."),
            ],
            result: "The registration, as `push.register` answers it (`status: \"registered\"`).",
            returns: .named("PushRegistration"),
            errors: [-32602, -32010, -32013]),
               scope: RequestScope(reading: [.subscription], writing: [.pushRegistrations]),
               run: { service, params, _ throws(RPCError) in try service.receiveEndpoint(&params) }),
        Method(ProtocolMethod(
            .pushRegistrationFailed,
            summary: "The distributor refused to register a token (UnifiedPush `RegistrationFailed`): `push.registration-failed` tells the app the reason, which `push.register`'s and `push.list`'s message carry until an endpoint comes.",
            parameters: [
                ProtocolField("token", .string, required: true, "The registration's token."),
                ProtocolField("reason", .string, required: true, "The distributor's reason, as it gave it."),
            ],
            result: "`app` and `token`.",
            returns: .closedObject([
                ProtocolField("app", .string, required: true, "The registration's app."),
                ProtocolField("token", .string, required: true, "The token."),
            ]),
            errors: [-32602, -32010, -32013]),
               scope: RequestScope(reading: [.subscription], writing: [.pushRegistrations]),
               run: { service, params, _ throws(RPCError) in try service.receiveRegistrationFailure(&params) }),
        Method(ProtocolMethod(
            .pushUnregistered,
            summary: "The distributor dropped a registration (UnifiedPush `Unregistered`, also its confirmation of an unregistration): the server deletes it and its keys, and `push.unregistered` tells the app. A token already deleted is answered `unregistered: false`, not refused.",
            parameters: [ProtocolField("token", .string, required: true, "The registration's token.")],
            result: "`token`, `unregistered` (whether a registration was deleted) and, when one was, its `app`.",
            returns: .closedObject([
                ProtocolField("app", .string, "The registration's app, when one was deleted."),
                ProtocolField("token", .string, required: true, "The token."),
                ProtocolField("unregistered", .boolean, required: true, "Whether a registration was deleted."),
            ]),
            errors: [-32602, -32010, -32013]),
               scope: RequestScope(reading: [.subscription], writing: [.pushRegistrations]),
               run: { service, params, _ throws(RPCError) in try service.receiveUnregistration(&params) }),
        receiveMethod,
    ]

    // MARK: The app's methods

    /// `push.register`.
    private func registerForPush(_ params: inout Params) throws(RPCError) -> JSON {
        let app = params.string("app")
        try params.check()
        guard let app else { throw .invalidParams("The parameter \"app\" is required.") }
        let registration: PushRegistration
        do throws(Diagnostic) {
            registration = try push.register(app).registration
        } catch {
            throw pushStoreFailure(error, app: app)
        }
        if registration.endpoint == nil {
            subscribers.publish(EventName.pushRegistrationRequested.rawValue,
                                .object([("app", .string(app)), ("token", .string(registration.token))]), app: app)
        }
        return registration.answer(push.distributor)
    }

    /// `push.unregister`.
    private func unregisterFromPush(_ params: inout Params) throws(RPCError) -> JSON {
        let app = params.string("app")
        try params.check()
        guard let app else { throw .invalidParams("The parameter \"app\" is required.") }
        let removed: PushRegistration?
        do throws(Diagnostic) {
            removed = try push.unregister(app)
        } catch {
            throw pushStoreFailure(error, app: app)
        }
        guard let removed else { return .object([("app", .string(app)), ("unregistered", .bool(false))]) }
        pushLimiter.forget(app)
        subscribers.publish(EventName.pushUnregistering.rawValue,
                            .object([("app", .string(app)), ("token", .string(removed.token))]), app: app)
        return .object([("app", .string(app)), ("token", .string(removed.token)), ("unregistered", .bool(true))])
    }

    /// `push.list`.
    private func listPush(_ params: inout Params) throws(RPCError) -> JSON {
        let app = params.string("app")
        try params.check()
        let distributor = push.distributor
        return .object([
            ("registrations", .array(push.registrations(of: app).map { $0.answer(distributor) })),
            ("distributor", distributor.name.map(JSON.string) ?? .null),
            ("status", .string(distributor.status.rawValue)),
            ("message", .string(distributor.message(for: distributor.status))),
        ])
    }

    // MARK: The front end's methods

    /// `push.distributor`.
    private func reportDistributor(_ params: inout Params, from client: any EventReceiver) throws(RPCError) -> JSON {
        let name = params.string("name")
        let note = params.string("message")
        try params.check()
        push.report(distributor: name.flatMap { $0.isEmpty ? nil : $0 }, note: note, from: ObjectIdentifier(client))
        return .object([])
    }

    /// `push.endpoint`.
    private func receiveEndpoint(_ params: inout Params) throws(RPCError) -> JSON {
        let token = params.string("token")
        let endpoint = params.string("endpoint")
        try params.check()
        guard let token, let endpoint, !endpoint.isEmpty else { throw .invalidParams("\"token\" and a non-empty \"endpoint\" are required.") }
        let before = push.registration(token: token)
        let updated: PushRegistration?
        do throws(Diagnostic) {
            updated = try push.setEndpoint(endpoint, token: token)
        } catch {
            throw pushStoreFailure(error, app: before?.app, token: token)
        }
        guard let updated else {
            throw refusePush(PushRefusal(.unknownToken, token: token, app: nil,
                                         "the distributor gave an endpoint to a token this server did not give out, or unregistered"))
        }
        if before?.endpoint != endpoint {
            subscribers.publish(EventName.pushNewEndpoint.rawValue, .object([
                ("app", .string(updated.app)), ("token", .string(token)), ("endpoint", .string(endpoint)),
                ("publicKey", .string(updated.publicKey)), ("auth", .string(updated.auth)),
            ]), app: updated.app)
        }
        return updated.answer(push.distributor)
    }

    /// `push.registration-failed`.
    private func receiveRegistrationFailure(_ params: inout Params) throws(RPCError) -> JSON {
        let token = params.string("token")
        let reason = params.string("reason")
        try params.check()
        guard let token, let reason else { throw .invalidParams("\"token\" and \"reason\" are required.") }
        let updated: PushRegistration?
        do throws(Diagnostic) {
            updated = try push.setFailure(reason, token: token)
        } catch {
            throw pushStoreFailure(error, app: nil, token: token)
        }
        guard let updated else {
            throw refusePush(PushRefusal(.unknownToken, token: token, app: nil,
                                         "the distributor refused a token this server did not give out, or unregistered"))
        }
        configuration.log(.warning(.pushRegistrationRefused,
                                   "The distributor refused the push registration of \(updated.app) (token \(token)): \(reason)"))
        subscribers.publish(EventName.pushRegistrationFailed.rawValue, .object([
            ("app", .string(updated.app)), ("token", .string(token)), ("reason", .string(reason)),
        ]), app: updated.app)
        return .object([("app", .string(updated.app)), ("token", .string(token))])
    }

    /// `push.unregistered`.
    private func receiveUnregistration(_ params: inout Params) throws(RPCError) -> JSON {
        let token = params.string("token")
        try params.check()
        guard let token else { throw .invalidParams("The parameter \"token\" is required.") }
        let removed: PushRegistration?
        do throws(Diagnostic) {
            removed = try push.remove(token: token)
        } catch {
            throw pushStoreFailure(error, app: nil, token: token)
        }
        guard let removed else { return .object([("token", .string(token)), ("unregistered", .bool(false))]) }
        pushLimiter.forget(removed.app)
        subscribers.publish(EventName.pushUnregistered.rawValue,
                            .object([("app", .string(removed.app)), ("token", .string(token))]), app: removed.app)
        return .object([("app", .string(removed.app)), ("token", .string(token)), ("unregistered", .bool(true))])
    }

    // MARK: Failures

    /// `refusal` logged, as its JSON-RPC error.
    func refusePush(_ refusal: PushRefusal) -> RPCError {
        configuration.log(refusal.diagnostic)
        return refusal.rpcError
    }

    /// What a change of the push store that failed with `error` answers:
    /// `push.unavailable` (-32013) when the store cannot be used at all or
    /// no keys can be made, else -32010 (its record not written).
    func pushStoreFailure(_ error: Diagnostic, app: String?, token: String = "") -> RPCError {
        if push.unavailable != nil || error.code == .pushKeysUnavailable {
            return refusePush(PushRefusal(.unavailable, token: token, app: app, error.message))
        }
        return .stateNotWritten(error)
    }
}

extension Diagnostic.Code {
    /// The distributor refused a push registration (`push.registration-failed`).
    package static let pushRegistrationRefused = Self("push.registration-refused")
}
