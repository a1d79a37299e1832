import TidingsBase
import TidingsProtocol

/// `events.*`: a connection's subscription to the events of some apps, or of all.
extension HostService {
    /// The family's methods.
    static let eventMethods: [Method] = [
        Method(ProtocolMethod(
            .eventsSubscribe,
            summary: "Hear the events of some apps, or of all, or only some events: notifications delivered, presentations changed, notifications dismissed, responses forwarded and background notifications (what the inbox keeps is replayed first), badges, extension failures; and the state's health and repairs. Every event carries `seq`, its sequence number; a front end that reconnects gives the last it saw as `after` and hears what it missed, with no gap and nothing twice.",
            parameters: [
                ProtocolField("apps", .either(.names, .choice("all")), "The apps whose events to hear; `\"all\"` (or absent): every app's. Replaces the connection's subscription."),
                ProtocolField("events", .array(.choice(HostService.events.map(\.name))), "The events to hear, by name (those `server.protocol` lists); absent: all. An unknown name is an error. `events.lagging` is sent whatever this says."),
                ProtocolField("after", .integer(atLeast: 0), "Resume: the `seq` of the last event the front end heard. The events it would hear with a larger `seq` are pushed first (from the last `limits.eventReplay` events the server keeps, in memory), then the events as they happen: none missed, none twice. Across a restart: a server stopped cleanly (SIGTERM) pushes every event of the calls it answered to the subscribers still connected before it closes, and records its last `seq` after them, so a front end that heard that last event resumes with the events of the new run; one that missed events before the stop, or a server that crashed, re-lists. When some are no longer kept (too many since), none are pushed, `resumed` is `false`, `reason` says `\"too far behind: re-list\"` and the front end re-lists (the subscription is made all the same: re-listing after the answer misses nothing); when they went with a restart (`after` is from before it), the same with `reason` `\"server restarted: re-list\"` and `restarted: true`."),
                ProtocolField("replay", .boolean, "Whether every inbox entry kept for the apps followed is pushed first (oldest first, each with `\"replayed\": true` and no `seq`); `true` by default, `false` by default with `after`."),
            ],
            result: "`apps` (the apps followed, or `\"all\"`), `events` (the names of the events heard), `replayed`: how many inbox entries were pushed first, `seq`: the last sequence number given (0: none yet), and with `after`, `resumed` (`true`, and `missed`: how many events were pushed first; or `false`, and `reason`: `\"too far behind: re-list\"`, or `\"server restarted: re-list\"` with `restarted: true` when the events after `after` went with a restart). Before the answer come the events resumed, the replayed entries, `state.repaired` when loading the state repaired damage, and `state.degraded` while the state cannot be written.",
            returns: .object([
                ProtocolField("apps", .either(.strings, .choice("all")), required: true, "The apps followed, or `\"all\"`."),
                ProtocolField("events", .strings, required: true, "The names of the events heard."),
                ProtocolField("replayed", .integer(atLeast: 0), required: true, "How many inbox entries were pushed first."),
                ProtocolField("seq", .integer(atLeast: 0), required: true, "The last sequence number given; 0: none yet."),
                ProtocolField("resumed", .boolean, "With `after`: whether the events missed were pushed first."),
                ProtocolField("missed", .integer(atLeast: 0), "Resumed: how many events were pushed first."),
                ProtocolField("reason", .string, "Not resumed: why."),
            ]),
            errors: [-32602]),
               scope: RequestScope(reading: [.inbox], writing: [.subscription])) { service, params, client throws(RPCError) in
            try service.subscribe(&params, client: client)
        },
        Method(ProtocolMethod(
            .eventsUnsubscribe,
            summary: "Stop hearing events.",
            result: "`unsubscribed`: whether the connection was subscribed.",
            returns: .object([ProtocolField("unsubscribed", .boolean, required: true, "Whether the connection was subscribed.")]),
            errors: [-32602]),
               scope: RequestScope(writing: [.subscription])) { service, params, client throws(RPCError) in
            try params.check()
            return .object([("unsubscribed", .bool(service.subscribers.unsubscribe(client)))])
        },
    ]

    /// Why a subscription could not resume: events after it are no longer kept.
    static let tooFarBehind = "too far behind: re-list"
    /// Why a subscription could not resume: the events after it went with a restart.
    static let restarted = "server restarted: re-list"

    private func subscribe(_ params: inout Params, client: any EventReceiver) throws(RPCError) -> JSON {
        // "all", as the answer says it, or no apps at all: every app.
        let apps = params.json["apps"] == .string("all") ? nil : params.strings("apps")
        let events = params.strings("events")
        let after = params.integer("after", in: 0...Int.max).map(UInt64.init)
        let replay = params.bool("replay") ?? (after == nil)
        try params.check()
        let known = Self.events.map(\.name)
        if let unknown = events?.first(where: { !known.contains($0) }) {
            let hint = Suggestion.closest(to: unknown, among: known).map { "; did you mean \"\($0)\"?" } ?? "; server.protocol lists the events."
            throw .invalidParams("There is no event \"\(unknown)\"\(hint)")
        }
        let (replayed, resumption, last) = inbox.subscribe(client, apps: apps.map(Set.init), events: events.map(Set.init),
                                                           after: after, replaying: replay)
        // What happened before the client could hear it: damage repaired at start, a disk that fails now.
        if events?.contains("state.repaired") ?? true, let repairs = state?.repairs {
            _ = client.push(RPCReply.notification("state.repaired", params: repairs))
        }
        if events?.contains("state.degraded") ?? true, let health = state?.health, health.isDegraded {
            _ = client.push(RPCReply.notification("state.degraded", params: health.json))
        }
        var answer: [(String, JSON)] = [
            ("apps", apps.map { .array($0.map(JSON.string)) } ?? .string("all")),
            ("events", .array((events ?? known).map(JSON.string))), ("replayed", .integer(Int64(replayed))),
            ("seq", .integer(Int64(clamping: last))),
        ]
        switch resumption {
        case .resumed(let missed)?: answer += [("resumed", .bool(true)), ("missed", .integer(Int64(missed)))]
        case .tooFarBehind?: answer += [("resumed", .bool(false)), ("reason", .string(Self.tooFarBehind))]
        case .restarted?:
            answer += [("resumed", .bool(false)), ("reason", .string(Self.restarted)), ("restarted", .bool(true))]
        case nil: break
        }
        return .object(answer)
    }
}
