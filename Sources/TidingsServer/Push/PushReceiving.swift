import TidingsBase
import TidingsCrypto
import TidingsProtocol
import TidingsRuntime

/// `push.receive`: a Web Push message the distributor handed the front end,
/// checked, decrypted and delivered to its registration's app exactly as
/// `notifications.deliver` delivers a remote notification.
extension HostService {
    /// The largest message body Web Push allows (RFC 8030 §7.2: 4,096 bytes).
    package static let pushMessageLimit = 4_096
    /// The longest message id remembered as given, in bytes; a longer one is remembered by its SHA-256.
    static let longestRememberedID = 100

    /// The method.
    static let receiveMethod = Method(ProtocolMethod(
        .pushReceive,
        summary: "A push message the distributor handed the front end (UnifiedPush `Message`), for the registration of `token`. Checked in this order: the decoded body is at most 4,096 bytes (`push.too-large`), the token is one this server gave out and did not delete (`push.unknown-token`), `id` was not accepted before (a replay, the last 1,024 ids per registration, across restarts: answered `{delivered: false, duplicate: true}`, not an error), the app is within its rate (a token bucket per app, `--push-burst` at once and `--push-rate` a second; `push.rate-limited`, and the app told once per stretch with the event `push.rate-limited`), the body decrypts with the registration's keys (RFC 8291 Web Push in RFC 8188 `aes128gcm`; `push.undecryptable`), the plaintext is an APNs payload, a JSON object with an `aps` dictionary (`push.not-a-payload`). Refusals are error -32013 and a line in the server's log naming the registration and the reason; nothing is shown and no extension runs. Accepted, the payload is delivered to the registration's app exactly as `notifications.deliver` delivers it (service extension on `mutable-content`, attachments, presentation, the inbox on `content-available`), with the push trigger.",
        parameters: [
            ProtocolField("token", .string, required: true, "The registration's token, as the distributor named it."),
            ProtocolField("message", .string, required: true, "The message body, the raw `aes128gcm` bytes (header, records), in standard base64 (RFC 4648 §4, padding optional)."),
            ProtocolField("id", .string, "The message's id, when the distributor gives one: a message with an id accepted before is delivered once. A message without an id (or with an empty one) is never taken for a replay. An id longer than 100 bytes is remembered by its SHA-256."),
        ],
        result: "Accepted: the answer `notifications.deliver` gives (`display`, `app`, `notification` with `trigger: {\"push\": true}`, …) plus `delivered: true` and `push: {token, id}` (`id` null when the message had none). A replay: `{delivered: false, duplicate: true, push: {token, id}}`.",
        returns: .named("PushDelivery"),
        errors: [-32602, -32000, -32004, -32010, -32013]),
                                        scope: { _ in
        RequestScope(reading: [.pushRegistrations, .categories, .subscription, .interface], writing: [.newNotification, .inboxEntry])
    },
                                        later: { service, params, _, reply throws(RPCError) in
        try service.receivePush(&params, reply: reply)
    })

    /// Checks, decrypts and delivers the message; answers through `reply`
    /// once it is delivered (its service extension may take a while).
    private func receivePush(_ params: inout Params, reply: @escaping Method.Reply) throws(RPCError) {
        let token = params.string("token")
        let message = params.string("message")
        // An empty id is none (UnifiedPush's Message may carry one empty).
        let id = params.string("id").flatMap { $0.isEmpty ? nil : $0 }
        try params.check()
        guard let token, let message else { throw .invalidParams("\"token\" and \"message\" are required.") }
        guard let body = Base64.decode(message) else {
            throw .invalidParams("\"message\" must be the message body in standard base64 (RFC 4648 §4).")
        }
        let known = push.registration(token: token)
        let refuse = { (code: PushRefusal.Code, reason: String) -> RPCError in
            self.refusePush(PushRefusal(code, token: token, app: known?.app, reason))
        }
        let pushed: JSON = .object([("token", .string(token)), ("id", id.map(JSON.string) ?? .null)])
        // What the registration remembers of the id: itself, or a long one's digest, so that
        // 1,024 ids cost at most some 100 KB of the registrations file whatever the distributor sends.
        let remembered = id.map { id in
            id.utf8.count <= Self.longestRememberedID ? id : "sha256:" + ((try? SHA256.hex(of: Array(id.utf8))) ?? String(id.prefix(64)))
        }
        if let unavailable = push.unavailable {
            throw refuse(.unavailable, "the push registrations cannot be read: \(unavailable.message)")
        }
        guard body.count <= Self.pushMessageLimit else {
            throw refuse(.tooLarge, "its body is \(body.count) bytes, more than the \(Self.pushMessageLimit) Web Push allows")
        }
        guard let registration = known else {
            throw refuse(.unknownToken, "no registration has this token: it was never given out, or was unregistered")
        }
        let duplicate: JSON = .object([("delivered", .bool(false)), ("duplicate", .bool(true)), ("push", pushed)])
        if let id, let remembered, push.hasSeen(remembered, token: token) {
            configuration.log(.note(.pushReplayed, "A push for \(registration.app) (token \(token)) repeats message \(id), delivered before: not delivered again."))
            return reply(.success(duplicate))
        }
        if case .limited(let startsStretch) = pushLimiter.take(for: registration.app) {
            if startsStretch {
                subscribers.publish(EventName.pushRateLimited.rawValue,
                                    .object([("app", .string(registration.app)), ("token", .string(token))]), app: registration.app)
            }
            throw refuse(.rateLimited, "\(registration.app) received more than \(pushLimiter.burst) pushes at once or \(NumberText.short(pushLimiter.rate)) a second")
        }
        let plaintext: [UInt8]
        do throws(CryptoError) {
            plaintext = try registration.subscriber.decrypt(body)
        } catch {
            throw refuse(.undecryptable, "it does not decrypt with the registration's keys (\(error.description))")
        }
        let payload: JSON
        do throws(Diagnostic) {
            payload = try JSON.parse(plaintext)
        } catch {
            throw refuse(.notAPayload, "its plaintext is not JSON (\(error.message))")
        }
        guard payload.objectMembers != nil, payload["aps"]?.objectMembers != nil else {
            throw refuse(.notAPayload, "its plaintext is not an APNs payload: a JSON object with an \"aps\" dictionary")
        }
        if let remembered {
            let first: Bool
            do throws(Diagnostic) {
                first = try push.accept(remembered, token: token)
            } catch {
                throw pushStoreFailure(error, app: registration.app, token: token)
            }
            guard first else { return reply(.success(duplicate)) }
        }
        var submission = PayloadSubmission(payload: payload, appOption: "the push registration's app")
        submission.sizeLimit = configuration.payloadSizeLimit
        submission.app = registration.app
        let state = self.state
        host.deliver(submission, recordingWith: { (notification: UserNotification, app: String, width: Double, expiring: [NotificationKey]) throws(Diagnostic) in
            try state?.recordDelivery(of: notification, to: app, width: width, expiring: expiring)
        }, then: { delivered in
            reply(Result { () throws(RPCError) -> JSON in
                if case .failure(.payload(let diagnostics)) = delivered {
                    var refusal = PushRefusal(.notAPayload, token: token, app: registration.app,
                                              diagnostics.first { $0.severity == .error }?.message ?? "its payload was refused")
                    refusal.diagnostics = diagnostics
                    throw self.refusePush(refusal)
                }
                let answer = try self.deliveryAnswer(delivered, presentationOnly: false)
                return .object((answer.objectMembers ?? []) + [("delivered", .bool(true)), ("push", pushed)])
            })
        })
    }
}

extension Diagnostic.Code {
    /// A push repeated a message id accepted before: not delivered again.
    package static let pushReplayed = Self("push.replayed")
}
