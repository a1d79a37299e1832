import TidingsBase

/// `events.*`: a connection's subscription to the events of some apps, or of all.
extension HostService {
    /// The family's methods.
    static let eventMethods: [Method] = [
        Method(ProtocolMethod(
            "events.subscribe",
            summary: "Hear the events of some apps, or of all: notifications delivered, presentations changed, notifications dismissed, responses forwarded and background notifications (what the inbox keeps is replayed first), badges, extension failures; and the state's health and repairs.",
            parameters: [
                ProtocolField("apps", "array of strings | \"all\"", "The apps whose events to hear; `\"all\"` (or absent): every app's. Replaces the connection's subscription."),
                ProtocolField("replay", "boolean", "Whether every inbox entry kept for the apps followed is pushed first (oldest first, each with `\"replayed\": true`); `true` by default."),
            ],
            result: "`apps` (the apps followed, or `\"all\"`), `events` (the names of every event), and `replayed`: how many inbox entries were pushed first. Before the answer come the replayed entries, `state.repaired` when loading the state repaired damage, and `state.degraded` while the state cannot be written.",
            errors: [-32602]),
               scope: RequestScope(reading: [.inbox], writing: [.subscription])) { service, params, client throws(RPCError) in
            try service.subscribe(&params, client: client)
        },
        Method(ProtocolMethod(
            "events.unsubscribe",
            summary: "Stop hearing events.",
            result: "`unsubscribed`: whether the connection was subscribed.",
            errors: [-32602]),
               scope: RequestScope(writing: [.subscription])) { service, params, client throws(RPCError) in
            try params.check()
            return .object([("unsubscribed", .bool(service.subscribers.unsubscribe(client)))])
        },
    ]

    private func subscribe(_ params: inout Params, client: any EventReceiver) throws(RPCError) -> JSON {
        // "all", as the answer says it, or no apps at all: every app.
        let apps = params.json["apps"] == .string("all") ? nil : params.strings("apps")
        let replay = params.bool("replay") ?? true
        try params.check()
        let replayed = inbox.subscribe(client, apps: apps.map(Set.init), replaying: replay)
        // What happened before the client could hear it: damage repaired at start, a disk that fails now.
        if let repairs = state?.repairs { _ = client.push(RPCReply.notification("state.repaired", params: repairs)) }
        if let health = state?.health, health.isDegraded {
            _ = client.push(RPCReply.notification("state.degraded", params: health.json))
        }
        return .object([("apps", apps.map { .array($0.map(JSON.string)) } ?? .string("all")),
                        ("events", .array(Self.events.map { .string($0.name) })), ("replayed", .integer(Int64(replayed)))])
    }
}
