import TidingsBase
import TidingsProtocol

/// Remote notifications: the front end is Tidings' UnifiedPush connector
/// (`PushConnector`), as it is GeoClue's client, so that the server stays a
/// process without a bus. The registrations are the server's (`push.list`):
/// on each synchronisation and each `push.registration-requested` the front
/// end registers every token with the distributor and says which one it
/// is (`push.distributor`, null when none is on the bus); on
/// `push.unregistering` it unregisters the token. What the distributor calls
/// goes to the server with the front-end methods: `NewEndpoint` as
/// `push.endpoint`, `Message` as `push.receive` (the raw body, base64),
/// `Unregistered` as `push.unregistered`, a refused `Register` as
/// `push.registration-failed`. The server decides everything else (the
/// token, the size, the id seen before, the rate, the decryption); a
/// notification it delivers reaches the screen as any other does, through
/// `notification.delivered`.
///
/// Nothing is lost while the server is away: each call waits (at most
/// `pushKept` of them, `pushKeptBytes` in all) and is sent once the front
/// end is synchronised again; one sent on a connection that ended before its
/// answer came is sent again (the server delivers a message id once).
extension DesktopFrontEnd {
    /// A call to the server for the connector.
    struct PushForward {
        /// The method and its params.
        var method: MethodName
        var params: JSON
        /// The registration it is about, and its size, for the log and the bound.
        var token: String
        var bytes: Int
    }

    /// The most calls kept for the server while it is away.
    static let pushKept = 256
    /// The most bytes of messages kept for the server while it is away (4 MiB).
    static let pushKeptBytes = 4 << 20
    /// The events of the push family the front end hears, when the server has them.
    static let pushEvents: [EventName] = [.pushRegistrationRequested, .pushUnregistering]
    /// What the server is told when no distributor is on the bus.
    static let noDistributor = "No UnifiedPush distributor is on the session bus: install and start one "
        + "(KUnifiedPush, or the ntfy or Gotify desktop distributor); Tidings registers with it as soon as it appears."

    /// Lists the server's registrations (`push.list`) and registers each with the distributor.
    func listPush() {
        guard let server, synchronised, pushOffered, let push else { return }
        server.call(.pushList) { [unowned self] answer in
            switch answer {
            case .success(let list):
                let registrations = (list["registrations"]?.arrayValue ?? []).compactMap { item -> PushConnector.Registration? in
                    guard let token = item["token"]?.stringValue, let app = item["app"]?.stringValue else { return nil }
                    return PushConnector.Registration(token: token, app: app,
                                                      description: "Notifications of \(display(of: app).name)")
                }
                log.record("push", [("step", .string("listed")), ("registrations", .integer(Int64(registrations.count))),
                                    ("apps", .array(registrations.map { .string($0.app) }))],
                           "the server has \(registrations.count) push registrations: registering them with the distributor",
                           detailed: true)
                push.synchronise(registrations, remembered: list["distributor"]?.stringValue)
            case .failure(let error):
                log.record("push", [("step", .string("list-failed")), ("code", .integer(error.code)),
                                    ("message", .string(error.message))],
                           "the server did not list its push registrations: \(error.message)")
            }
        }
    }

    /// Handles what the connector did: each call of the distributor goes to the server.
    func servicePush() {
        guard let push else { return }
        for happened in push.service() {
            switch happened {
            case .ready:
                log.record("push", [("step", .string("ready")), ("busName", .string(PushConnector.busName))],
                           "the UnifiedPush connector is \(PushConnector.busName) on the session bus", detailed: true)
            case .distributor(let name, let version):
                log.record("push", [("step", .string("distributor")), ("name", name.map(JSON.string) ?? .null),
                                    ("interface", version.map { .string($0.rawValue) } ?? .null)],
                           name.map { "registering with the UnifiedPush distributor \($0)" } ?? Self.noDistributor)
                var params: [(String, JSON)] = [("name", name.map(JSON.string) ?? .null)]
                if name == nil { params.append(("message", .string(Self.noDistributor))) }
                forwardPush(PushForward(method: .pushDistributor, params: .object(params), token: "", bytes: 0))
            case .registered(let registration, let distributor):
                log.record("push", [("step", .string("registered")), ("app", .string(registration.app)),
                                    ("token", .string(registration.token)), ("distributor", .string(distributor))],
                           "registered \(registration.app)'s push token with \(distributor)", detailed: true)
            case .registrationFailed(let registration, let reason):
                log.record("push", [("step", .string("registration-failed")), ("app", .string(registration.app)),
                                    ("token", .string(registration.token)), ("reason", .string(reason))],
                           "the distributor refused \(registration.app)'s push registration: \(reason)")
                forwardPush(PushForward(method: .pushRegistrationFailed,
                                        params: .object([("token", .string(registration.token)), ("reason", .string(reason))]),
                                        token: registration.token, bytes: 0))
            case .unregisterSent(let token, let distributor):
                log.record("push", [("step", .string("unregister")), ("token", .string(token)),
                                    ("distributor", .string(distributor))],
                           "unregistered push token \(token) with \(distributor)", detailed: true)
            case .confirmed(let token):
                log.record("push", [("step", .string("confirmed")), ("token", .string(token))],
                           "the distributor confirmed that push token \(token) is unregistered", detailed: true)
            case .call(let call, let interface):
                takeDistributorCall(call, interface: interface)
            case .distributorLeft(let name):
                log.record("push", [("step", .string("gone")), ("name", .string(name))],
                           "the UnifiedPush distributor \(name) left the bus: looking for one again")
            case .distributorRestarted(let name, let owner):
                log.record("push", [("step", .string("restarted")), ("name", .string(name)), ("owner", .string(owner))],
                           "the UnifiedPush distributor \(name) restarted (\(owner)): registering again")
            case .refused(let sentence):
                log.record("push", [("step", .string("refused")), ("reason", .string(sentence))], sentence)
            case .failed(let error):
                log.record("push", [("step", .string("failed")), ("code", .string(error.code.rawValue)),
                                    ("message", .string(error.diagnostic.message))],
                           "the UnifiedPush connector failed: \(error.diagnostic.message)")
            }
        }
    }

    /// A call of the distributor, as the server's front-end method.
    private func takeDistributorCall(_ call: UnifiedPushConnectorObject.Call, interface: String) {
        switch call {
        case .newEndpoint(let token, let endpoint):
            log.record("push", [("step", .string("endpoint")), ("token", .string(token)), ("endpoint", .string(endpoint)),
                                ("interface", .string(interface))],
                       "the distributor gave push token \(token) the endpoint \(endpoint)", detailed: true)
            forwardPush(PushForward(method: .pushEndpoint,
                                    params: .object([("token", .string(token)), ("endpoint", .string(endpoint))]),
                                    token: token, bytes: 0))
        case .message(let token, let message, let id):
            log.record("push", [("step", .string("message")), ("token", .string(token)), ("id", id.map(JSON.string) ?? .null),
                                ("bytes", .integer(Int64(message.count))), ("interface", .string(interface))],
                       "a push of \(message.count) bytes came for token \(token)"
                       + (message.count > UnifiedPushLimits.webPushMessage
                          ? " (more than Web Push's \(UnifiedPushLimits.webPushMessage): the server refuses it)" : ""),
                       detailed: true)
            var params: [(String, JSON)] = [("token", .string(token)), ("message", .string(Base64.encode(message)))]
            if let id { params.append(("id", .string(id))) }
            forwardPush(PushForward(method: .pushReceive, params: .object(params), token: token, bytes: message.count))
        case .unregistered(let token):
            log.record("push", [("step", .string("unregistered")), ("token", .string(token)), ("interface", .string(interface))],
                       "the distributor dropped push token \(token)")
            forwardPush(PushForward(method: .pushUnregistered, params: .object([("token", .string(token))]),
                                    token: token, bytes: 0))
        }
    }

    /// Sends `forward` now, or once the server is back.
    func forwardPush(_ forward: PushForward) {
        pushWaiting.append(forward)
        var bytes = pushWaiting.reduce(0) { $0 + $1.bytes }
        while pushWaiting.count > Self.pushKept || bytes > Self.pushKeptBytes {
            let lost = pushWaiting.removeFirst()
            bytes -= lost.bytes
            log.record("push", [("step", .string("lost")), ("method", .string(lost.method.rawValue)),
                                ("token", .string(lost.token))],
                       "too much waits for the server: \(lost.method) for push token \(lost.token) is lost")
        }
        pumpPush()
    }

    /// Sends what waits, once synchronised with a server that has the push methods.
    func pumpPush() {
        guard let server, synchronised, pushOffered, !pushWaiting.isEmpty else { return }
        let waiting = pushWaiting
        pushWaiting = []
        for forward in waiting {
            nextPushForward += 1
            let key = nextPushForward
            pushInFlight[key] = forward
            server.call(forward.method, forward.params) { [unowned self] answer in
                pushInFlight[key] = nil
                answered(forward, answer)
            }
        }
    }

    /// The server went away: what it did not answer is sent again once it is back.
    func keepUnansweredPushes() {
        pushWaiting = pushInFlight.sorted { $0.key < $1.key }.map(\.value) + pushWaiting
        pushInFlight = [:]
    }

    /// Logs the server's answer to `forward`.
    private func answered(_ forward: PushForward, _ answer: Result<JSON, RPCErrorReply>) {
        switch answer {
        case .success(let result):
            guard forward.method == .pushReceive else { return }
            let duplicate = result["duplicate"]?.boolValue == true
            log.record("push", [("step", .string(duplicate ? "duplicate" : "delivered")), ("token", .string(forward.token)),
                                ("id", forward.params["id"] ?? .null), ("answer", result)],
                       duplicate ? "the server had this push for token \(forward.token) already"
                                 : "the server delivered the push for token \(forward.token)", detailed: true)
        case .failure(let error):
            log.record("push", [("step", .string("server-refused")), ("method", .string(forward.method.rawValue)),
                                ("token", .string(forward.token)), ("code", .integer(error.code)),
                                ("reason", error.data?["code"] ?? .null), ("message", .string(error.message))],
                       "the server refused \(forward.method) for push token \(forward.token): \(error.message)")
        }
    }

    /// A push event of the server.
    func handlePushEvent(_ method: String, _ params: JSON) {
        switch method {
        case EventName.pushRegistrationRequested.rawValue:
            log.record("push", [("step", .string("requested")), ("app", params["app"] ?? .null)],
                       "\(params["app"]?.stringValue ?? "an app") asked for push: listing the registrations", detailed: true)
            listPush()
        case EventName.pushUnregistering.rawValue:
            guard let token = params["token"]?.stringValue else { return }
            log.record("push", [("step", .string("unregistering")), ("app", params["app"] ?? .null), ("token", .string(token))],
                       "\(params["app"]?.stringValue ?? "an app") dropped push token \(token): unregistering it", detailed: true)
            push?.unregister(token)
        default:
            return
        }
    }
}
