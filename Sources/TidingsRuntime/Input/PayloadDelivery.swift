import TidingsBase
import TidingsProtocol

/// A payload a front end hands to the host, with what the front end says
/// about it: the one way from a payload to a delivery, for the CLI and the
/// server alike.
package struct PayloadSubmission: Sendable {
    /// The payload: an APNs payload (`aps`) or a local request.
    package var payload: JSON
    /// The largest APNs payload accepted, in bytes.
    package var sizeLimit = Payload.defaultSizeLimit
    /// The file it came from, named in diagnostics; nil when it came over a connection.
    package var file: String?
    /// Where relative attachment paths are resolved; nil when the payload
    /// came over a connection and has no directory of its own.
    package var baseDirectory: String?
    /// The request identifier (APNs payloads carry none); nil: the payload's, else a new one.
    package var identifier: String?
    /// The app it is addressed to; nil: found from its category.
    package var app: String?
    /// How the front end names its app option, in messages ("--app").
    package var appOption: String
    /// The content width in points; nil: the host's default.
    package var width: Double?
    /// Whether attachment files are copied or moved into the store.
    package var attachments = AttachmentStore.Disposition.copy
    /// The registration (name, icon, show previews) of the app it is
    /// addressed to, made before it is delivered; nil keeps the app's.
    package var registration: AppRegistration?
    /// Open its expanded interface at once (`NotificationHost.open(_:)`).
    package var opening = false
    /// The trigger of a scheduled request that fired, which the notification
    /// carries; nil for a payload delivered at once (a request payload with a
    /// `trigger` of its own is then refused: scheduling is `requests.add`).
    package var trigger: NotificationTrigger?
    /// When a scheduled request fired, the notification's date; nil: now, or the request's own `date`.
    package var firedAt: Double?
    /// A scheduled request fired late (its time passed while the host was down): the notification says so.
    package var late = false

    /// A submission of `payload`, whose front end names its app option `appOption`.
    package init(payload: JSON, appOption: String) {
        self.payload = payload
        self.appOption = appOption
    }

    /// The payload's size as APNs counts it, in bytes: its compact UTF-8
    /// JSON, as a provider sends it (no whitespace between tokens, members in
    /// the payload's order, strings escaping only what JSON requires) —
    /// whatever the front end received, a file's layout or a connection's
    /// message, so that every front end accepts and refuses alike.
    package var size: Int { payload.utf8Count() }
}

/// Why a payload did not become a delivery, by the step that refused it,
/// for each front end to map to its own errors.
package enum PayloadRefusal: Error {
    /// The payload is too large or is not a notification.
    case payload([Diagnostic])
    /// No app could be found for it, or more than one.
    case addressing(Diagnostic)
    /// It has attachments and there is no usable attachment store.
    case attachmentStore(Diagnostic)
    /// An attachment was refused, as iOS refuses it (with Apple's code).
    case attachment(AttachmentFailure)
    /// The delivery's record could not be written; nothing was shown.
    case notRecorded(Diagnostic)
}

/// What a payload became: shown (the delivery and the attachments taken into
/// the store), or, when iOS would not show it, what the app receives instead.
package struct PayloadDelivery: Sendable {
    /// What was done with it: presented, handed to the app in the background, or only its badge set.
    package var display: DisplayKind
    /// The app it was addressed to.
    package var app: String
    /// The notification as delivered (after the service stage, when it ran).
    package var notification: UserNotification
    /// The delivery, the payload's notes first among its diagnostics; nil
    /// when it was not presented (`display` is not `.presented`).
    package var delivery: Delivery?
    /// The payload's notes, when it was not presented (a delivery holds its own).
    package var notes: [Diagnostic] = []
    /// The attachment files taken into the store, in the payload's order.
    package var admitted: [AttachmentStore.Admission] = []
    /// How it was presented (`PresentationOptions`): all four unless its app, in the foreground, chose.
    package var options = PresentationOptions.all

    /// True when the app is woken with the notification (`content-available`
    /// 1): a background notification, and one that is shown or badged as
    /// well, as iOS hands it to `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    package var wakesApp: Bool { display == .background || notification.content.contentAvailable }

    /// The badge the notification sets for its app, if it sets one (0
    /// removes it) and its options let it; none for an app whose notifications are denied.
    package var badge: Int64? { display != .denied && options.contains(.badge) ? notification.content.badge : nil }

    /// What it produced that a front end reads: the delivery's diagnostics, else the notes.
    package var diagnostics: [Diagnostic] { delivery?.diagnostics ?? notes }

    /// The delivery as JSON: `display` and `app` first, the badge it sets
    /// when it sets one; then, presented, the delivery with the attachments
    /// taken in; else the notification and the diagnostics.
    package var json: JSON {
        var members: [(String, JSON)] = [("display", .string(display.rawValue)), ("app", .string(app))]
        if let badge { members.append(("badge", .integer(badge))) }
        guard let delivery else {
            if options != .all { members.append(("presentationOptions", options.json)) }
            return .object(members + [("notification", notification.json), ("diagnostics", .array(notes.map(\.json)))])
        }
        var delivered = delivery.json.objectMembers ?? []
        delivered.insert(("attachments", .array(admitted.map(\.json))), at: min(1, delivered.count))
        return .object(members + delivered)
    }

    /// What a front end draws from: `display`, `app` and the badge it sets,
    /// then, presented, only the presentation and the diagnostics; one not
    /// presented as `json` gives it.
    package var presentationJSON: JSON {
        guard let delivery else { return json }
        var members: [(String, JSON)] = [("display", .string(display.rawValue)), ("app", .string(app))]
        if let badge { members.append(("badge", .integer(badge))) }
        members += [("presentation", delivery.presentation.json), ("diagnostics", .array(delivery.diagnostics.map(\.json)))]
        return .object(members)
    }
}

extension NotificationHost {
    /// Turns `submission` into a delivery: measures and decodes the payload,
    /// finds its app (from the categories registered with this host when the
    /// submission names none), localizes it with the app's strings, takes its
    /// attachment files into the store (all or none, as iOS), then delivers
    /// it — the service stage, the content extension. A notification iOS
    /// does not show (`DisplayKind`: background, badge only, or an app the
    /// configuration's `presentationPolicy` denies) stops before its
    /// attachments: nothing is shown, no extension runs; the front end hands
    /// it to the app or sets its badge. Throws the step that refused it.
    package func deliver(_ submission: PayloadSubmission) throws(PayloadRefusal) -> PayloadDelivery {
        try deliver(submission, by: { (ready: ReadyPayload) throws(Diagnostic) -> Delivery in
            deliver(ready.notification, to: ready.app, width: submission.width, opening: submission.opening)
        })
    }

    /// `deliver(_:)` for a host whose changes are journaled: `record` is
    /// told, before anything is shown, the notification, its app, its width
    /// and the notification that expires to make room
    /// (`deliver(_:to:width:opening:recordingWith:)`); a notification not
    /// shown is not recorded.
    package func deliver(
        _ submission: PayloadSubmission,
        recordingWith record: (UserNotification, String, Double, [NotificationKey]) throws(Diagnostic) -> Void
    ) throws(PayloadRefusal) -> PayloadDelivery {
        try deliver(submission, by: { (ready: ReadyPayload) throws(Diagnostic) -> Delivery in
            try deliver(ready.notification, to: ready.app, width: submission.width, opening: submission.opening) {
                (made: UserNotification, width: Double, expiring: [NotificationKey]) throws(Diagnostic) in
                try record(made, ready.app, width, expiring)
            }
        })
    }

    /// `submission` prepared, then delivered by `delivering`; what it throws
    /// is a record that could not be written.
    private func deliver(_ submission: PayloadSubmission,
                         by delivering: (ReadyPayload) throws(Diagnostic) -> Delivery) throws(PayloadRefusal) -> PayloadDelivery {
        let ready: ReadyPayload
        switch try prepare(submission) {
        case .done(let made): return made
        case .ready(let prepared): ready = prepared
        }
        do throws(Diagnostic) {
            return ready.delivered(try delivering(ready))
        } catch {
            throw .notRecorded(error)
        }
    }

    /// `deliver(_:recordingWith:)` without waiting for a service extension:
    /// calls `finish` once with what the payload became, or the step that
    /// refused it — at once, on this thread, unless a service extension takes
    /// its time; then when it answers or its time runs out, on the host's
    /// finishing thread, with no thread waiting meanwhile.
    package func deliver(
        _ submission: PayloadSubmission,
        recordingWith record: @escaping @Sendable (UserNotification, String, Double, [NotificationKey]) throws(Diagnostic) -> Void,
        then finish: @escaping @Sendable (Result<PayloadDelivery, PayloadRefusal>) -> Void
    ) {
        let ready: ReadyPayload
        do throws(PayloadRefusal) {
            switch try prepare(submission) {
            case .done(let made): return finish(.success(made))
            case .ready(let prepared): ready = prepared
            }
        } catch {
            return finish(.failure(error))
        }
        deliver(ready.notification, to: ready.app, width: submission.width, opening: submission.opening,
                recordingWith: { (made: UserNotification, width: Double, expiring: [NotificationKey]) throws(Diagnostic) in
                    try record(made, ready.app, width, expiring)
                }, then: { delivery in
                    finish(delivery.map(ready.delivered).mapError(PayloadRefusal.notRecorded))
                })
    }

    /// A payload decoded, addressed and its attachments taken in, ready for the host's delivery.
    private struct ReadyPayload: Sendable {
        var notification: UserNotification
        var app: String
        var notes: [Diagnostic]
        var admitted: [AttachmentStore.Admission]

        /// What the payload became once `delivery` was made of it: presented,
        /// or, when its decider withheld it, what it reports instead.
        func delivered(_ delivery: Delivery) -> PayloadDelivery {
            var delivery = delivery
            delivery.diagnostics.insert(contentsOf: notes, at: 0)
            let options = delivery.presentation.presentationOptions
            guard delivery.display == .presented else {
                return PayloadDelivery(display: delivery.display, app: app, notification: delivery.presentation.notification,
                                       notes: delivery.diagnostics, options: options)
            }
            return PayloadDelivery(display: .presented, app: app, notification: delivery.presentation.notification,
                                   delivery: delivery, admitted: admitted, options: options)
        }
    }

    /// Where preparing a payload ends: what it became already (not shown), or ready for delivery.
    private enum Prepared {
        case done(PayloadDelivery)
        case ready(ReadyPayload)
    }

    /// Measures and decodes `submission`'s payload, finds its app, localizes
    /// it and takes its attachments into the store (see `deliver(_:recordingWith:)`).
    private func prepare(_ submission: PayloadSubmission) throws(PayloadRefusal) -> Prepared {
        let payload = submission.payload
        if payload["aps"] != nil, case let size = submission.size, size > submission.sizeLimit {
            throw .payload([.error(.payloadTooLarge,
                                   "The payload is \(size) bytes as sent (its compact JSON); APNs accepts at most \(submission.sizeLimit).",
                                   at: submission.file.map { .init(file: $0) } ?? .init())])
        }
        if payload["aps"] == nil, payload["trigger"] != nil, submission.trigger == nil {
            throw .payload([.error(.payloadScheduled,
                                   "A request with a \"trigger\" is scheduled, not delivered: schedule it with tidings schedule "
                                       + "(the server's requests.add), or leave the trigger out to deliver it now.",
                                   at: .init(file: submission.file, path: "/trigger"))])
        }
        var reading = Payload.decode(payload, file: submission.file, baseDirectory: submission.baseDirectory,
                                     identifier: submission.identifier, now: submission.firedAt ?? Payload.currentTime())
        guard var notification = reading.notification else { throw .payload(reading.diagnostics) }
        if let trigger = submission.trigger {
            notification.trigger = trigger
            if let firedAt = submission.firedAt { notification.date = firedAt }
            notification.late = submission.late
        }
        let category = notification.content.categoryIdentifier
        let app: String
        do throws(Diagnostic) {
            let registering = submission.app != nil ? []
                : registeredCategories().filter { $0.value.contains { $0.identifier == category } }.map(\.key).sorted()
            app = try Addressing.app(for: notification, given: submission.app, registering: registering, index: index,
                                     naming: submission.appOption)
        } catch {
            throw .addressing(error)
        }
        if let registration = submission.registration { register(registration, for: app) }
        var notes = reading.diagnostics
        if Payload.usesLocalization(payload) {
            let (strings, warnings) = Addressing.strings(ofApp: app, index: index)
            notes += warnings
            reading = Payload.decode(payload, file: submission.file, baseDirectory: submission.baseDirectory,
                                     identifier: notification.identifier, strings: strings)
            notification = reading.notification ?? notification
        }
        // What iOS does not show runs no extension and takes no attachment into the store;
        // a denied app's notifications show nothing, while background ones still reach it.
        var display = DisplayKind.of(notification.content)
        if display != .background, configuration.presentationPolicy(app) == .deny { display = .denied }
        guard display == .presented else {
            return .done(PayloadDelivery(display: display, app: app, notification: notification, notes: notes))
        }
        let admitted = try admit(reading.attachments, as: submission.attachments,
                                 for: AttachmentStore.Owner(app: app, notification: notification.identifier, bundle: nil))
        notification.content.attachments = admitted.map(\.attachment)
        return .ready(ReadyPayload(notification: notification, app: app, notes: notes, admitted: admitted))
    }

    /// Takes `requests` into the attachment store, all or none, counted for `owner`.
    private func admit(_ requests: [AttachmentRequest], as disposition: AttachmentStore.Disposition,
                       for owner: AttachmentStore.Owner) throws(PayloadRefusal) -> [AttachmentStore.Admission]
    {
        guard !requests.isEmpty else { return [] }
        guard let store = attachments else {
            throw .attachmentStore(.error(.attachmentMoveIntoDataStoreFailed,
                                          "The payload has attachments, but there is no attachment store (set HOME or XDG_STATE_HOME)."))
        }
        do throws(Diagnostic) {
            try store.check()
        } catch {
            throw .attachmentStore(error)
        }
        switch store.admit(all: requests, as: disposition, for: owner) {
        case .success(let admitted): return admitted
        case .failure(let failure): throw .attachment(failure)
        }
    }
}
