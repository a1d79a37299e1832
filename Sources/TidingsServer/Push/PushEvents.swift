import TidingsBase
import TidingsProtocol

extension HostService {
    /// The events about remote notifications: to the front ends (what to
    /// register and unregister with the distributor) and to the app (its
    /// endpoint, its registration dropped or refused, its pushes limited).
    static let pushEvents: [ProtocolEvent] = [
        ProtocolEvent(.pushRegistrationRequested,
                      summary: "An app asked for remote notifications (`push.register`) and its registration has no endpoint yet: the front end that is the UnifiedPush connector registers the token with the distributor (`push.list` lists them all).",
                      fields: [pushAppField, pushTokenField]),
        ProtocolEvent(.pushUnregistering,
                      summary: "An app unregistered (`push.unregister`): its registration and keys are deleted; the front end unregisters the token from the distributor.",
                      fields: [pushAppField, pushTokenField]),
        ProtocolEvent(.pushNewEndpoint,
                      summary: "The distributor gave the app's registration a new endpoint (`push.endpoint`): what the app hands its server, which sends Web Push messages there encrypted for `publicKey` and `auth`.",
                      fields: [
                          pushAppField, pushTokenField,
                          ProtocolField("endpoint", .string, required: true, "The push endpoint URL."),
                          ProtocolField("publicKey", .string, required: true, "The registration's public key: base64url of the 65-byte uncompressed P-256 point (Web Push's `p256dh`)."),
                          ProtocolField("auth", .string, required: true, "The registration's auth secret: base64url of 16 bytes (Web Push's `auth`)."),
                      ]),
        ProtocolEvent(.pushUnregistered,
                      summary: "The distributor dropped the app's registration (`push.unregistered`): it is deleted with its keys; the app registers again (`push.register`) for a new token.",
                      fields: [pushAppField, pushTokenField]),
        ProtocolEvent(.pushRegistrationFailed,
                      summary: "The distributor refused to register the app's token (`push.registration-failed`).",
                      fields: [pushAppField, pushTokenField,
                               ProtocolField("reason", .string, required: true, "The distributor's reason.")]),
        ProtocolEvent(.pushRateLimited,
                      summary: "The app received more pushes than its rate allows (`--push-burst` at once, `--push-rate` a second): pushes are refused (`push.rate-limited`) until its bucket refills. Sent once per stretch of refusals, to the app and the front ends.",
                      fields: [pushAppField, pushTokenField]),
    ]

    /// The `app` of a push event.
    private static let pushAppField = ProtocolField("app", .string, required: true, "The registration's app.")
    /// The `token` of a push event.
    private static let pushTokenField = ProtocolField("token", .string, required: true, "The registration's token.")
}
