import TidingsBase
import TidingsProtocol

extension HostService {
    /// The events the server pushes, as JSON-RPC notifications: the table
    /// `events.subscribe` and `server.describe` list and the protocol
    /// reference is made from. Each published event carries `seq`; the
    /// connection's own `events.lagging` does not.
    package static let events: [ProtocolEvent] = published.map { event in
        ProtocolEvent(EventName(event.name), summary: event.summary, fields: event.fields + [seqField])
    } + [lagging]

    /// The `seq` every published event carries.
    private static let seqField = ProtocolField("seq", .integer(atLeast: 1), "The event's sequence number: larger than every earlier event's, across restarts too (not one apart: a subscriber hears some events only, and a restart skips some numbers). Give the last one heard as `after` to `events.subscribe` to resume. Absent from what is pushed on subscribing rather than published: replayed inbox entries (`replayed: true`), `state.repaired`, and `state.degraded` sent on subscribing.")

    /// The notice a connection gets when it falls behind.
    private static let lagging = ProtocolEvent(
        .eventsLagging,
        summary: "The connection has left more than half of the output it may leave unread (`limits.unreadOutput`) unread: it is falling behind and, should it reach the limit, will be cut off (its output dropped, the connection closed) with no further word — the socket is full. Sent once each time it falls behind (again after it caught up); to any connection, subscribed or not, whatever its `events` filter. A front end cut off reconnects and resumes with `after`.",
        fields: [
            ProtocolField("behind", .integer(atLeast: 0), required: true, "The bytes left unread, this notice excluded."),
            ProtocolField("limit", .integer(atLeast: 0), required: true, "The bytes it may leave unread before it is cut off."),
        ])

    /// The events published to subscribers, before each is given its `seq`.
    private static let published: [ProtocolEvent] = basePublished + pushEvents

    /// The events published to subscribers but those of remote notifications.
    private static let basePublished: [ProtocolEvent] = [
        ProtocolEvent(.notificationDelivered,
                      summary: "A notification was delivered, by any client (its presentation once the content extension answered; `dismissed` when the extension closed it at once).",
                      fields: [appField, ProtocolField("notification", .named("Notification"), required: true, "The notification, as in the answer to `notifications.deliver`; one a scheduled request delivered has its `trigger`, and `late: true` when it fired more than a second after its time (as its `request.fired` says)."),
                               presentationField]),
        ProtocolEvent(.presentationChanged,
                      summary: "What a notification shows changed other than in the answer to its delivery: its expanded interface opened or closed (`presentation.expanded`; by `notifications.open`/`close`, by opening another, by a response on a closed interface, by the extension's `dismissNotificationContentExtension`); its extension changed the view, height, title, actions or media on its own, while answering a response it keeps on screen (`doNotDismiss`), an element event or a media tap; or a thread-mate delivered while it is open changed it. Changes an extension makes on its own come at most once a frame (60 a second) per notification: the first at once, those within the frame after it as one event at its end with the state as it is then; the last state always comes. An extension that changes what it shows far faster than that, for long, is a flood: its calls are refused from then on, and a worker's is ended (fault `abuse`).",
                      fields: [appField, presentationField]),
        ProtocolEvent(.notificationDismissed, summary: "A notification left the screen.", fields: [
            ProtocolField("identifier", .string, required: true, "The notification's identifier."),
            appField,
            ProtocolField("reason", .choice("response", "extension", "removed", "replaced", "expired"), required: true,
                          "`response`, `extension` (its extension dismissed it), `removed`, `replaced` (a new delivery of its identifier took its place), `expired` (the oldest, beyond the `--keep` limit)."),
        ]),
        ProtocolEvent(.responseForwarded,
                      summary: "The app received a response, kept in its inbox until taken: from the user straight (no extension, or one without a response handler) or forwarded by the extension (`dismissAndForwardAction`, or its default action).",
                      fields: inboxEntry(kind: "response") + [
                          ProtocolField("actionIdentifier", .string, required: true, "The action: a custom one's identifier, `com.apple.UNNotificationDefaultActionIdentifier` or `com.apple.UNNotificationDismissActionIdentifier`."),
                          ProtocolField("userText", .nullable(.string), required: true, "The user's text, for a text-input action; `null` otherwise."),
                          ProtocolField("opensApp", .boolean, required: true, "The response brings the app to the foreground, as iOS launches it: the default action, an action with the `foreground` option."),
                          replayedField,
                      ]),
        ProtocolEvent(.notificationBackground,
                      summary: "The app was woken with a notification (`content-available` 1: a background one, never shown, or one also shown or badged), kept in its inbox until taken.",
                      fields: inboxEntry(kind: "background") + [replayedField]),
        ProtocolEvent(.inboxTaken, summary: "A front end took entries out of the app's inbox (`inbox.take`).", fields: [
            appField, ProtocolField("ids", .array(.integer(atLeast: 1)), required: true, "The ids of the entries taken."),
        ]),
        ProtocolEvent(.inboxDropped,
                      summary: "The app's inbox was full (`--inbox-limit`): its oldest entries were dropped before a front end took them.",
                      fields: [
                          appField, ProtocolField("ids", .array(.integer(atLeast: 1)), required: true, "The ids of the entries dropped."),
                          ProtocolField("diagnostic", .named("Diagnostic"), required: true, "The warning (`inbox.dropped`), also in the server's log."),
                      ]),
        ProtocolEvent(.appBadgeChanged, summary: "A notification or the app (`badge.set`) changed the app's badge.", fields: [
            appField, ProtocolField("badge", .integer(atLeast: 0), required: true, "The badge; 0: none."),
        ]),
        ProtocolEvent(.authorizationRequested,
                      summary: "An app not determined asked to notify (`authorization.request`): a front end prompts the user (Allow / Don't Allow) and answers with `authorization.decide`. Published once while requests of the app wait.",
                      fields: [
                          appField,
                          ProtocolField("name", .string, "The app's registered name, when it has one (`apps.register`)."),
                          ProtocolField("options", .array(.choice(AppAuthorization.Option.allCases.map(\.rawValue))), required: true, "What it asks for: `badge`, `sound`, `alert`, …"),
                      ]),
        ProtocolEvent(.authorizationChanged,
                      summary: "An app's authorization changed: the user decided (`authorization.decide`), or the app was granted provisional authorization.",
                      fields: [
                          appField,
                          ProtocolField("status", .named("AuthorizationStatus"), required: true, "`notDetermined`, `denied`, `authorized`, `provisional` or `ephemeral`."),
                      ]),
        ProtocolEvent(.extensionFailed,
                      summary: "An extension failed (to load, to answer in time, …) or misbehaved outside a call, or a call fell back to default content.",
                      fields: [
                          ProtocolField("app", .nullable(.string), required: true, "The app whose extension it is; `null` when no app is known (a bundle no longer on the search path)."),
                          ProtocolField("diagnostic", .named("Diagnostic"), required: true, "What happened: `code`, `severity`, `message`, where."),
                      ]),
        ProtocolEvent(.extensionLateCompletion,
                      summary: "An extension completed a response (or a service request) after its deadline, when the host had already applied `dismissAndForwardAction`: the call was refused and is reported, and is no fault.",
                      fields: [
                          appField,
                          ProtocolField("notification", .string, required: true, "The notification's identifier."),
                          ProtocolField("extension", .string, required: true, "The extension's bundle identifier."),
                          ProtocolField("diagnostic", .named("Diagnostic"), required: true, "The warning, `response.completion-late`."),
                      ]),
        ProtocolEvent(.requestScheduled,
                      summary: "A request was added to the app's pending ones (`requests.add`), or replaced one of its identifier.",
                      fields: [
                          appField, requestIdentifierField, triggerField,
                          ProtocolField("nextTriggerDate", .nullable(.date), required: true, "When it fires next (ISO 8601); `null` for a region, or date components that match no date to come."),
                          ProtocolField("replaced", .boolean, required: true, "`true` when it replaced a pending request of its identifier."),
                      ]),
        ProtocolEvent(.requestFired,
                      summary: "A pending request's trigger fired and the request was delivered (its `notification.delivered`, or its inbox entry or badge, came first); a one-shot one is then removed, a repeating one armed again.",
                      fields: [
                          appField, requestIdentifierField,
                          ProtocolField("date", .date, required: true, "When it fired (ISO 8601): the notification's date."),
                          ProtocolField("late", .boolean, required: true, "`true` when it fired more than a second after its time: the time passed while the server was down (a one-shot request is then delivered once as the server starts), the machine slept, or the clock was set past it."),
                          triggerField,
                          ProtocolField("crossing", .choice("entry", "exit"), "For a region: `entry` or `exit`."),
                      ]),
        ProtocolEvent(.requestRemoved,
                      summary: "Pending requests of the app were removed.",
                      fields: [
                          appField,
                          ProtocolField("identifiers", .strings, required: true, "The requests removed."),
                          ProtocolField("reason", .choice("removed", "fired", "limit", "undeliverable"), required: true, "`removed` (`requests.remove`), `fired` (a one-shot request fired and was delivered), `limit` (the app's pending limit pushed it out) or `undeliverable` (it fired and its delivery was refused: its payload or app no longer serve; the server's log says why)."),
                      ]),
        ProtocolEvent(.stateDegraded,
                      summary: "Changes can no longer be written to the state (a full or failing disk) and are refused; also sent on subscribing while degraded. Every subscriber hears it, whatever apps it follows.",
                      fields: [
                          ProtocolField("status", .choice("degraded"), required: true, "`\"degraded\"`."),
                          ProtocolField("cause", .named("Diagnostic"), required: true, "The diagnostic of the write that failed."),
                          ProtocolField("since", .date, required: true, "When writing began to fail (ISO 8601)."),
                      ]),
        ProtocolEvent(.stateRecovered,
                      summary: "Changes are written to the state again. Every subscriber hears it.",
                      fields: [ProtocolField("status", .choice("ok"), required: true, "`\"ok\"`.")]),
        ProtocolEvent(.stateRepaired,
                      summary: "Loading the state at start repaired damage or a crash's leftovers; sent to each client when it subscribes.",
                      fields: [
                          ProtocolField("repaired", .diagnostics, required: true, "A diagnostic for each repair."),
                          ProtocolField("losses", .array(.anyObject), required: true, "What could not be kept, each with its cause."),
                      ]),
    ]

    /// The `app` of an event about an app.
    private static let appField = ProtocolField("app", .string, required: true, "The app the event is about.")
    /// The `identifier` of an event about a pending request.
    private static let requestIdentifierField = ProtocolField("identifier", .string, required: true, "The request's identifier.")
    /// The `trigger` of an event about a pending request.
    private static let triggerField = ProtocolField("trigger", .named("Trigger"), required: true, "The request's trigger, as `requests.add` takes it.")
    /// The `presentation` of an event about what a notification shows.
    private static let presentationField = ProtocolField("presentation", .named("Presentation"), required: true,
                                                    "The presentation, as `notifications.presentation` answers it.")
    /// The `replayed` mark of an inbox entry pushed on subscribing.
    private static let replayedField = ProtocolField("replayed", .boolean, "`true` when the entry was replayed on subscribing; absent when pushed as it happened.")

    /// The members every inbox entry of `kind` carries.
    private static func inboxEntry(kind: String) -> [ProtocolField] {
        [
            ProtocolField("id", .integer(atLeast: 1), required: true, "The entry's id: larger than every earlier one, across restarts too; give it to `inbox.take`."),
            appField,
            ProtocolField("kind", .choice(kind), required: true, "`\"\(kind)\"`."),
            ProtocolField("received", .date, required: true, "When the app received it (ISO 8601)."),
            ProtocolField("notification", .named("Notification"), required: true, "The whole notification: identifier, date, full content, `userInfo`, category, thread, target content id, attachments; the `trigger` that delivered it, and `late: true` when a scheduled request fired late."),
        ]
    }
}
