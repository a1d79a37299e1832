import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// `requests.add`, `.pending`, `.remove` and `location.update`: local
/// notifications scheduled with a trigger (UNUserNotificationCenter's
/// `add(_:)`, `getPendingNotificationRequests`,
/// `removePendingNotificationRequests`), and the device's position that
/// location triggers fire on.
extension HostService {
    /// The largest request `requests.add` keeps, as compact JSON without its
    /// trigger: 16 KiB, four times an APNs payload, for the attachments and
    /// userInfo of a local request.
    static let requestSizeLimit = 16 << 10
    /// The family's methods.
    static let requestMethods: [Method] = [
        Method(ProtocolMethod(
            .requestsAdd,
            summary: "Schedule a request: it is delivered, as `notifications.deliver` delivers a request payload, when its trigger fires — after a time interval, at a date, on entering or leaving a region (UNUserNotificationCenter.add). A pending request of the same app and identifier is replaced. Kept across restarts.",
            parameters: [
                ProtocolField("request", .named("Request"), required: true,
                              "The request, at most 16 KiB as compact JSON without its trigger (-32602 beyond it; the server keeps at most `server.describe`'s `limits.pendingRequests` pending across apps, 4,096 by default: -32012 beyond it): `identifier` (made up when absent), `content` as in a request payload, and `trigger`: `{\"timeInterval\": 90, \"repeats\": false}` (seconds, more than 0 and at most 10,000,000,000, about 317 years; at least 60 when repeating), `{\"dateMatching\": {\"hour\": 8, \"minute\": 30}, \"repeats\": true}` (any of `era`, `year`, `month`, `day`, `hour`, `minute`, `second`, `weekday` (1 Sunday … 7 Saturday), `weekdayOrdinal`, `weekOfMonth`, `weekOfYear`, and `timeZone`, a zone name; the user's zone otherwise) or `{\"region\": {\"identifier\": \"office\", \"latitude\": 48.85, \"longitude\": 2.35, \"radius\": 100, \"notifyOnEntry\": true, \"notifyOnExit\": false}, \"repeats\": false}`. A number that does not fit — an interval past the bound, a component out of its range, an integer no 64 bits hold — is -32602 with `data.field`, the JSON pointer of the first, and the diagnostics (`number.out-of-range`)."),
                ProtocolField("app", .name, required: true, "The app it is for. Over RPC a request names its app: the server does not guess it from the category; a call without it is refused with -32602."),
            ],
            result: "`app`, `identifier`, `nextTriggerDate` (ISO 8601; `null` for a region, or for date components that match no date to come), `replaced` (a pending request of its identifier was replaced), `dropped`: the identifiers of the app's requests its pending limit (`server.describe`'s `schedule.pendingLimit`, 64 by default as on iOS) pushed out, the latest-firing first — requests that never fire first, then the latest dated, region requests last; it may be this one.",
            returns: .object([
                appMember, ProtocolField("identifier", .string, required: true, "The request's identifier."),
                ProtocolField("nextTriggerDate", .nullable(.date), required: true, "When it fires next, or `null`."),
                ProtocolField("replaced", .boolean, required: true, "Whether a pending request of its identifier was replaced."),
                ProtocolField("dropped", .strings, required: true, "The identifiers of the requests the pending limit pushed out."),
            ]),
            errors: [-32602, -32000, -32010, -32012]),
               scope: RequestScope(reading: [.categories, .subscription], writing: [.pendingRequests])) {
            service, params, _ throws(RPCError) in try service.addRequest(&params)
        },
        Method(ProtocolMethod(
            .requestsPending,
            summary: "The requests waiting for their trigger, with the next date each fires (getPendingNotificationRequests).",
            parameters: [ProtocolField("app", .name, "Only this app's; every app's when absent.")],
            result: "`requests`: each `{app, identifier, request, trigger, nextTriggerDate, added}` — the request payload as added (its identifier in it, its trigger beside it), the next date it fires (ISO 8601; `null` for a region or a date that never comes), when it was added — soonest first, then those that never fire (date components matching no date to come), region requests last.",
            returns: .object([ProtocolField("requests", .array(.object([
                appMember, ProtocolField("identifier", .string, required: true, "The request's identifier."),
                ProtocolField("request", .named("RequestPayload"), required: true, "The request payload as added, its identifier in it."),
                ProtocolField("trigger", .named("Trigger"), required: true, "Its trigger."),
                ProtocolField("nextTriggerDate", .nullable(.date), required: true, "When it fires next, or `null`."),
                ProtocolField("added", .date, required: true, "When it was added."),
            ])), required: true, "The pending requests, soonest first.")]),
            errors: [-32602]),
               scope: RequestScope(reading: [.pendingRequests])) { service, params, _ throws(RPCError) in
            let app = params.string("app")
            try params.check()
            return .object([("requests", .array(service.schedule.pending(of: app)))])
        },
        Method(ProtocolMethod(
            .requestsRemove,
            summary: "Remove pending requests before they fire: those named, or all of the app's (removePendingNotificationRequests, removeAllPendingNotificationRequests).",
            parameters: [
                ProtocolField("app", .name, required: true, "The app whose requests they are."),
                ProtocolField("identifiers", .names, "The requests' identifiers; every request of the app when absent. One not pending is passed over."),
            ],
            result: "`removed`: the identifiers of the requests removed (a `request.removed` event, reason `removed`, says so too).",
            returns: .object([ProtocolField("removed", .strings, required: true, "The identifiers of the requests removed.")]),
            errors: [-32602, -32010]),
               scope: RequestScope(reading: [.subscription], writing: [.pendingRequests])) { service, params, _ throws(RPCError) in
            let app = params.string("app")
            let identifiers = params.strings("identifiers")
            try params.check()
            guard let app else { throw .invalidParams("The parameter \"app\" is required.") }
            do throws(Diagnostic) {
                return .object([("removed", .array(try service.schedule.remove(identifiers, of: app).map(JSON.string)))])
            } catch {
                throw .stateNotWritten(error)
            }
        },
        Method(ProtocolMethod(
            .locationUpdate,
            summary: "Tell the device's position: the pending region requests it crosses the edge of fire (on entry or exit, as each asks). The first position after a region is added only tells whether the device is inside it; a position whose accuracy is coarser than a region's radius says nothing of that region.",
            parameters: [
                ProtocolField("latitude", .number(-90...90), required: true, "Degrees, -90 – 90."),
                ProtocolField("longitude", .number(-180...180), required: true, "Degrees, -180 – 180."),
                ProtocolField("accuracy", .number(atLeast: 0), "The position's accuracy, in metres (CLLocation.horizontalAccuracy); exact when absent."),
            ],
            result: "`fired`: each `{app, identifier, crossing}` (`entry` or `exit`), the requests that fired and are being delivered (a one-shot one is then removed).",
            returns: .object([ProtocolField("fired", .array(.object([
                appMember, ProtocolField("identifier", .string, required: true, "The request's identifier."),
                ProtocolField("crossing", .nullable(.choice("entry", "exit")), required: true, "Which edge it crossed."),
            ])), required: true, "The requests that fired.")]),
            errors: [-32602]),
               scope: RequestScope(reading: [.categories, .subscription], writing: [.pendingRequests, .allNotifications, .inboxEntry])) {
            service, params, _ throws(RPCError) in
            let latitude = params.number("latitude", in: -90...90)
            let longitude = params.number("longitude", in: -180...180)
            let accuracy = params.number("accuracy", in: 0...Double.greatestFiniteMagnitude)
            try params.check()
            guard let latitude, let longitude else { throw .invalidParams("\"latitude\" and \"longitude\" are required.") }
            let fired = service.schedule.locate(latitude: latitude, longitude: longitude, accuracy: accuracy)
            return .object([("fired", .array(fired.map { firing in
                .object([("app", .string(firing.key.app)), ("identifier", .string(firing.key.identifier)),
                         ("crossing", firing.crossing.map(JSON.string) ?? .null)])
            }))])
        },
    ]

    /// `requests.add`: reads the request and its trigger (refused as iOS
    /// refuses them), finds its app, and schedules it.
    private func addRequest(_ params: inout Params) throws(RPCError) -> JSON {
        let given = params.string("app")
        let request = params.object("request")
        try params.check()
        guard let request, let members = request.objectMembers else { throw .invalidParams("The parameter \"request\" is required.") }
        guard request["aps"] == nil else {
            throw .invalidParams("requests.add schedules a request (`identifier`, `content`, `trigger`), not an APNs payload; deliver that now with notifications.deliver.")
        }
        guard let triggerJSON = request["trigger"] else {
            throw .invalidParams("The request has no \"trigger\": give one to schedule it (a time interval, a date or a region), or deliver it now with notifications.deliver.")
        }
        let reading = NotificationTrigger.read(triggerJSON, at: ["request", "trigger"])
        guard let trigger = reading.trigger else { throw .invalidInput(reading.diagnostics) }
        let payload = JSON.object(members.filter { $0.0 != "trigger" })
        // Kept as long as it is pending, in memory and in the journal: bounded, as an APNs payload is.
        let size = payload.utf8Count()
        guard size <= Self.requestSizeLimit else {
            throw .invalidParams("The request is \(size) bytes as compact JSON; a scheduled request is at most \(Self.requestSizeLimit).")
        }
        let decoded = Payload.decode(payload, baseDirectory: nil)
        guard let notification = decoded.notification else {
            throw .invalidInput(decoded.diagnostics, appleCode: Payload.appleCode(of: decoded.diagnostics))
        }
        guard let app = given else {
            throw .invalidParams("Name the app the request is for with \"app\": the server does not guess it from the category.")
        }
        let added: PendingScheduler.Added
        do throws(Diagnostic) {
            added = try schedule.add(app: app, identifier: notification.identifier, trigger: trigger, request: payload)
        } catch where error.code == .scheduleTotalReached {
            throw .limitReached("pendingRequests", value: schedule.totalLimit, error.message)
        } catch {
            throw .stateNotWritten(error)
        }
        return .object([
            ("app", .string(app)), ("identifier", .string(notification.identifier)),
            ("nextTriggerDate", added.nextTriggerDate.map { .string(ISO8601.format($0)) } ?? .null),
            ("replaced", .bool(added.replaced)), ("dropped", .array(added.dropped.map(JSON.string))),
        ])
    }

    /// Delivers the request that fired as `firing` says, as
    /// `notifications.deliver` delivers a request payload — its date the
    /// fire time, its trigger set, at the server's default width — and tells
    /// the scheduler how it ended. Holds no thread while a delivery waits.
    func deliverFired(_ firing: Firing) {
        guard let request = firing.request else {
            return schedule.settle(firing, .refused(.error(.stateUnreadable, "Its record could not be read back.")))
        }
        var submission = PayloadSubmission(payload: request, appOption: "the request's app")
        submission.sizeLimit = configuration.payloadSizeLimit
        submission.identifier = firing.key.identifier
        submission.app = firing.key.app
        submission.trigger = firing.trigger
        submission.firedAt = firing.date
        submission.late = firing.late
        let state = self.state
        host.deliver(submission, recordingWith: { (notification: UserNotification, app: String, width: Double, expiring: [NotificationKey]) throws(Diagnostic) in
            try state?.recordDelivery(of: notification, to: app, width: width, expiring: expiring)
        }, then: { [weak self] delivered in
            guard let self else { return }
            switch delivered {
            case .success(let made):
                publishFailures(made.diagnostics, of: made.app)
                do throws(RPCError) {
                    _ = try keepForApp(made, presentationOnly: true)
                    schedule.settle(firing, .delivered)
                } catch {
                    schedule.settle(firing, .notRecorded(.error(.stateNotWritten, error.message)))
                }
            case .failure(.notRecorded(let problem)): schedule.settle(firing, .notRecorded(problem))
            case .failure(.payload(let problems)):
                schedule.settle(firing, .refused(problems.first { $0.severity == .error } ?? .error(.payloadInvalid, "The request is not valid.")))
            case .failure(.addressing(let problem)), .failure(.attachmentStore(let problem)):
                schedule.settle(firing, .refused(problem))
            case .failure(.attachment(let failure)): schedule.settle(firing, .refused(failure.diagnostic))
            }
        })
    }
}

extension Diagnostic.Code {
    /// A change that could not be written to the server's state.
    static let stateNotWritten = Self("state.not-written")
}
