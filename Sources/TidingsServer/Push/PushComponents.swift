import TidingsBase

extension ProtocolComponent {
    /// The named schemas of remote notifications: a registration, and what `push.receive` answers.
    static let push: [ProtocolComponent] = [
        ProtocolComponent("PushRegistration", "An app's registration for remote notifications, its \"device token\": what the app hands its server (the endpoint, the public key and the auth secret a Web Push sender encrypts for) and how far it got.", .object([
            ProtocolField("app", .string, required: true, "The app."),
            ProtocolField("token", .string, required: true, "The token the distributor knows the registration by: 32 hex digits, random."),
            ProtocolField("endpoint", .nullable(.string), required: true, "The push endpoint URL the app's server posts to; null until the distributor gives one (`push.new-endpoint`)."),
            ProtocolField("publicKey", .string, required: true, "The public key: base64url (no padding) of the 65-byte uncompressed P-256 point, Web Push's `p256dh`."),
            ProtocolField("auth", .string, required: true, "The auth secret: base64url (no padding) of 16 bytes, Web Push's `auth`."),
            ProtocolField("status", .choice(PushDistributor.Status.allCases.map(\.rawValue)), required: true,
                          "`registered` (the endpoint is known), `pending` (a front end is registering it with the distributor), `noDistributor` (the front end found no UnifiedPush distributor on the session bus), `noFrontEnd` (no front end has reported: `tidings desktop` is not running)."),
            ProtocolField("distributor", .nullable(.string), required: true, "The distributor's D-Bus name, null when none was reported."),
            ProtocolField("message", .string, required: true, "What the status means and what to do: hand the endpoint to the app's server, run `tidings desktop`, install a distributor (KUnifiedPush, ntfy's)."),
        ])),
        ProtocolComponent("PushDelivery", "The answer to `push.receive`: a delivery as `notifications.deliver` answers it with `push` beside it, or a replay not delivered again.", .object([
            ProtocolField("push", .closedObject([
                ProtocolField("token", .string, required: true, "The registration's token."),
                ProtocolField("id", .nullable(.string), required: true, "The message's id, null when it had none."),
            ]), required: true, "The message: its registration's token and its id."),
            ProtocolField("delivered", .boolean, required: true, "`true` when delivered; `false` for a replay (with `duplicate: true`)."),
            ProtocolField("duplicate", .boolean, "`true` when the message's id was accepted before: not delivered again."),
            ProtocolField("display", .choice("presented", "background", "badge", "denied", "foreground"), "Delivered: what was done with it, as `Delivery` says."),
            ProtocolField("app", .string, "Delivered: the registration's app."),
            ProtocolField("notification", .named("Notification"), "Delivered: the notification, its `trigger` `{\"push\": true}`."),
            ProtocolField("inbox", .named("InboxEntry"), "Delivered with `content-available` 1: its inbox entry."),
        ])),
    ]
}
