import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// `server.*` and `extensions.list`: what the server is, what it serves, and its protocol.
extension HostService {
    /// The family's methods.
    static let serverMethods: [Method] = [
        Method(ProtocolMethod(
            .serverDescribe,
            summary: "The server's version, ABI version, protocol version and capabilities, methods, events and limits.",
            result: "`name`, `version`, `abiVersion`; `protocol`: `{version, capabilities}` — the protocol's own version (\(HostService.protocolVersion): 1 was the protocol before events carried `seq`) and what it offers beyond version 1 (`\(HostService.capabilities.joined(separator: "`, `"))`); `methods`: each method's `name` and `summary`; `events`: each event's `method` and a sentence on its `params`; `limits` (`payloadSize` and `messageSize` in bytes; `responseDeadline` and `serviceDeadline` in seconds; `keptNotifications`; `inboxEntries`: the most each app's inbox keeps; `attachmentStore`: bytes and files per notification, bundle and app, and the refusals that make a fault; `listPage`: the default and maximum `limit` of the list methods; `willPresentDeadline` in seconds; `eventReplay`: the most events kept for subscribers that resume; per connection `callsPerConnection` and `unreadOutput` in bytes; the connections: `connections` in all, `connectionsPerProcess`, `connectionReserve` (kept for processes that have none), `partialRequestTimeout` in seconds); `connection`: this connection's `{role, app, sandbox, peer: {pid, uid}}` (see `server.hello`); `sandbox`: the sandbox's layers, each `{layer, status, detail}`; `workers`: the warm workers kept for content extensions, `{idle, residentBytes, anonymousBytes}` (null in process); `state`: the state's status and what it keeps — with `setAside`, `{count, diagnostics}`: the records loading could not use (unreadable, or a request or notification whose numbers do not fit, such as an interval an older version accepted), left out so that the server serves; `serverRequests`: the requests the server sent its clients (`app.willPresent`), `{sent, answered, unanswered, unknownResponses}` (answers to an id nothing waits under, ignored); `schedule`: the pending requests — `pending` (how many), `apps` (of how many apps), `nextTriggerDate` (the next to fire, ISO 8601, or `null`), `timeZone` (the user's, which date components without one of their own are matched in), `pendingLimit` (the most requests pending per app).",
            returns: .object([
                ProtocolField("name", .string, required: true, "The server's name."),
                ProtocolField("version", .string, required: true, "Its version."),
                ProtocolField("abiVersion", .integer(atLeast: 1), required: true, "The extension ABI's version."),
                ProtocolField("protocol", .object([
                    ProtocolField("version", .integer(atLeast: 1), required: true, "The protocol's version."),
                    ProtocolField("capabilities", .strings, required: true, "What it offers beyond version 1."),
                ]), required: true, "The protocol's version and capabilities."),
                ProtocolField("methods", .array(.object([
                    ProtocolField("name", .string, required: true, "The method."),
                    ProtocolField("summary", .string, required: true, "What it does."),
                ])), required: true, "Every method, by name."),
                ProtocolField("events", .array(.object([
                    ProtocolField("method", .string, required: true, "The event."),
                    ProtocolField("params", .string, required: true, "When it is sent, and its params' names."),
                ])), required: true, "Every event."),
                ProtocolField("limits", .object(
                    ["payloadSize", "messageSize", "keptNotifications", "keptNotificationsPerApp", "inboxEntries",
                     "inboxEntriesInAll", "pendingRequests", "pendingRequestsPerApp", "eventReplay", "callsPerConnection",
                     "unreadOutput", "connections", "connectionsPerProcess", "connectionReserve"].map {
                        ProtocolField($0, .nullable(.integer(atLeast: 0)), "A count, or bytes; `null`: no limit.")
                    } + [
                        ProtocolField("pushBurst", .integer(atLeast: 1), "The push messages one app may receive at once (`--push-burst`)."),
                        ProtocolField("pushRate", .number(atLeast: 0), "The push messages one app may receive per second, sustained (`--push-rate`)."),
                        ProtocolField("pushMessageSize", .integer(atLeast: 0), "The largest push message body taken, in bytes (4,096, as Web Push allows)."),
                        ProtocolField("pushMessageIDs", .integer(atLeast: 1), "The message ids each registration remembers against replays."),
                    ] + ["responseDeadline", "serviceDeadline", "willPresentDeadline"].map {
                        ProtocolField($0, .number(atLeast: 0), required: true, "Seconds.")
                    } + [
                        ProtocolField("partialRequestTimeout", .number(atLeast: 0), "Seconds a request begun may take to finish its line."),
                        ProtocolField("attachmentStore", .anyObject, required: true, "The attachment store's quota."),
                        ProtocolField("listPage", .object([
                            ProtocolField("default", .integer(atLeast: 1), required: true, "The default `limit`."),
                            ProtocolField("maximum", .integer(atLeast: 1), required: true, "The largest `limit`."),
                        ]), required: true, "The list methods' pages."),
                    ]), required: true, "Every limit a client meets."),
                ProtocolField("sandbox", .array(.anyObject), required: true, "The sandbox's layers, each `{layer, status, detail}`."),
                ProtocolField("workers", .nullable(.anyObject), required: true, "The warm workers; `null` in process."),
                ProtocolField("state", .object([
                    ProtocolField("status", .string, required: true, "`ok`, or what is wrong."),
                    ProtocolField("kept", .boolean, "`false` when the server keeps no state."),
                    ProtocolField("directory", .string, "Where it is kept."),
                    ProtocolField("durability", .string, "When a change is on disk."),
                    ProtocolField("journalBytes", .integer(atLeast: 0), "The journal's size."),
                    ProtocolField("folds", .anyObject, "How often the journal was folded into the records."),
                    ProtocolField("repaired", .diagnostics, "What loading it repaired."),
                    ProtocolField("losses", .array(.anyObject), "What could not be kept, each with its cause."),
                    ProtocolField("setAside", .object([
                        ProtocolField("count", .integer(atLeast: 0), required: true, "How many kept records could not be used."),
                        ProtocolField("diagnostics", .diagnostics, required: true, "Why each was set aside."),
                    ]), "The kept records set aside on loading."),
                ]), required: true, "The state's status and what it keeps."),
                ProtocolField("serverRequests", .object(["sent", "answered", "unanswered", "unknownResponses"].map {
                    ProtocolField($0, .integer(atLeast: 0), required: true, "How many requests the server sent, and what came of them.")
                }), required: true, "The requests the server sent its clients."),
                ProtocolField("schedule", .object([
                    ProtocolField("pending", .integer(atLeast: 0), required: true, "How many requests are pending."),
                    ProtocolField("apps", .integer(atLeast: 0), required: true, "Of how many apps."),
                    ProtocolField("nextTriggerDate", .nullable(.date), required: true, "The next to fire, or `null`."),
                    ProtocolField("timeZone", .string, required: true, "The user's time zone."),
                    ProtocolField("pendingLimit", .integer(atLeast: 1), required: true, "The most requests pending per app."),
                ]), required: true, "The pending requests."),
                ProtocolField("connection", .object([
                    ProtocolField("role", .choice(ClientRole.allCases.map(\.rawValue)), required: true, "The connection's role."),
                    ProtocolField("app", .nullable(.string), required: true, "An app connection's app; null for a front end."),
                    ProtocolField("sandbox", .nullable(.anyObject), required: true, "`{kind, app, instance}`, or null."),
                    ProtocolField("peer", .nullable(.object([
                        ProtocolField("pid", .integer(atLeast: 0), required: true, "The peer's pid (0: outside the server's pid namespace)."),
                        ProtocolField("uid", .integer(atLeast: 0), required: true, "The peer's user."),
                    ])), required: true, "The peer's process (SO_PEERCRED); null for standard I/O."),
                ]), required: true, "This connection: its role, app, sandbox and peer."),
            ]),
            errors: [-32602]),
               scope: .nothing) { service, params, client throws(RPCError) in try service.describe(&params, for: client) },
        Method(ProtocolMethod(
            .serverPing,
            summary: "Answers at once: whether the connection and the server are alive.",
            result: "`pong`: `true`; `time`: the server's clock (ISO 8601).",
            returns: .object([ProtocolField("pong", .boolean, required: true, "`true`."),
                              ProtocolField("time", .date, required: true, "The server's clock.")]),
            errors: [-32602]),
               scope: .nothing) { _, params, _ throws(RPCError) in
            try params.check()
            return .object([("pong", .bool(true)), ("time", .string(ISO8601.format(Payload.currentTime())))])
        },
        Method(ProtocolMethod(
            .serverProtocol,
            summary: "The protocol's machine-readable description, an OpenRPC \(ProtocolReference.openRPCVersion) document (the reference's openrpc.json): every method with the JSON Schema of its parameters and result and its errors, the objects they carry as named schemas, every event and server request with the schema of its params.",
            result: "`openrpc` (its version), `info`, `methods` (each `name`, `description`, `params` (each `name`, `description`, `required`, `schema`), `result` (`name`, `description`, `schema`), `errors`, `x-params-schema`: the schema of the whole `params` object), `components` (`schemas`: the named schemas, `errors`: every error code), `x-any-request-errors`, `x-events` and `x-server-requests` (each `name`, `description`, `params`, `x-params-schema`; a request also its `result`).",
            returns: .object([
                ProtocolField("openrpc", .string, required: true, "The OpenRPC version."),
                ProtocolField("info", .object([ProtocolField("title", .string, required: true, "Tidings."),
                                               ProtocolField("description", .string, required: true, "What it describes."),
                                               ProtocolField("version", .string, required: true, "The protocol's version.")]),
                              required: true, "What the document describes."),
                ProtocolField("methods", .array(.anyObject), required: true, "Every method."),
                ProtocolField("components", .anyObject, required: true, "The named schemas and the error codes."),
                ProtocolField("x-any-request-errors", .array(.anyObject), required: true, "The errors any request can get."),
                ProtocolField("x-events", .array(.anyObject), required: true, "Every event."),
                ProtocolField("x-server-requests", .array(.anyObject), required: true, "Every request the server sends."),
            ]),
            errors: [-32602]),
               scope: .nothing) { _, params, _ throws(RPCError) in
            try params.check()
            return ProtocolReference.openRPC
        },
        Method(ProtocolMethod(
            .extensionsList,
            summary: "The extension bundles on the search path, what they declare, and their problems.",
            result: "`searchPath` (`origin`, `directories`), `bundles` (each `name`, `path`, `usable`, what its manifest declares — `identifier`, `app`, `point`, `executable`, `categories`, `initialContentSizeRatio`, `defaultContentHidden`, `overridesDefaultTitle`, `userInteractionEnabled`, `interface` — and its `diagnostics`), and the search's own `diagnostics`.",
            returns: .object([
                ProtocolField("searchPath", .object([ProtocolField("origin", .string, required: true, "Where the path came from."),
                                                     ProtocolField("directories", .strings, required: true, "The directories searched.")]),
                              required: true, "The search path."),
                ProtocolField("bundles", .array(.object([
                    ProtocolField("name", .string, required: true, "The bundle's directory name."),
                    ProtocolField("path", .string, required: true, "Its path."),
                    ProtocolField("usable", .boolean, required: true, "Whether it can be loaded."),
                    ProtocolField("diagnostics", .diagnostics, required: true, "Its problems."),
                ])), required: true, "The bundles found."),
                ProtocolField("diagnostics", .diagnostics, required: true, "The search's own problems."),
            ]),
            errors: [-32602]),
               scope: .nothing) { service, params, _ throws(RPCError) in
            try params.check()
            return service.host.index.json
        },
    ]

    /// The protocol's version: 1 was the protocol before events carried
    /// `seq`; 2 adds what `capabilities` names. A change that a client
    /// written for the earlier version would misread makes the next.
    static let protocolVersion = 2

    /// What the protocol offers beyond version 1, as `server.describe` names it.
    static let capabilities = ["events.seq", "events.resume", "events.filter", "events.lagging", "server.ping"]

    private func describe(_ params: inout Params, for client: any EventReceiver) throws(RPCError) -> JSON {
        try params.check()
        return .object([
            ("name", .string(HostFunctions.name)),
            ("version", .string(HostFunctions.version)),
            ("abiVersion", .integer(Int64(HostFunctions.abiVersion))),
            ("methods", .array(Self.methods.keys.sorted().map { name in
                .object([("name", .string(name)), ("summary", .string(Self.methods[name]!.documentation.summary))])
            })),
            ("events", .array(Self.events.map { event in
                .object([("method", .string(event.name)), ("params", .string(Self.described(event)))])
            })),
            ("protocol", .object([("version", .integer(Int64(Self.protocolVersion))),
                                  ("capabilities", .array(Self.capabilities.map(JSON.string)))])),
            ("limits", .object(limits)),
            ("sandbox", .array(configuration.sandbox())),
            ("workers", configuration.workers()),
            ("state", state?.report ?? .object([("status", .string("ok")), ("kept", .bool(false))])),
            ("serverRequests", serverRequestTally.json),
            ("schedule", schedule.summary),
            ("connection", ((client as? any IdentifiedClient)?.identity.current ?? .frontEnd).json),
        ])
    }

    /// `event` as `server.describe` lists it: when it is sent, and its params' names.
    private static func described(_ event: ProtocolEvent) -> String {
        "\(event.summary.dropLast()): {\(event.fields.map(\.name).joined(separator: ", "))}."
    }

    /// Every limit a client meets, for `server.describe`: sizes in bytes,
    /// deadlines in seconds.
    private var limits: [(String, JSON)] {
        [
            ("payloadSize", .integer(Int64(configuration.payloadSizeLimit))),
            ("responseDeadline", .double(configuration.host.responseDeadline)),
            ("serviceDeadline", .double(configuration.host.serviceDeadline)),
            ("keptNotifications", configuration.host.deliveredLimit.map { .integer(Int64($0)) } ?? .null),
            ("keptNotificationsPerApp", configuration.host.deliveredLimitPerApp.map { .integer(Int64($0)) } ?? .null),
            ("inboxEntries", .integer(Int64(inbox.limit))),
            ("inboxEntriesInAll", .integer(Int64(inbox.totalLimit))),
            ("pendingRequests", .integer(Int64(schedule.totalLimit))),
            ("pendingRequestsPerApp", .integer(Int64(schedule.limit))),
            ("attachmentStore", Self.described(configuration.host.attachmentQuota)),
            ("listPage", .object([("default", .integer(Int64(ListCursor.defaultLimit))),
                                  ("maximum", .integer(Int64(ListCursor.maximumLimit)))])),
            ("willPresentDeadline", .double(configuration.willPresentDeadline)),
            ("eventReplay", .integer(Int64(configuration.eventReplayLimit))),
            ("pushBurst", .integer(Int64(pushLimiter.burst))),
            ("pushRate", .double(pushLimiter.rate)),
            ("pushMessageSize", .integer(Int64(Self.pushMessageLimit))),
            ("pushMessageIDs", .integer(Int64(configuration.push.rememberedIDs))),
        ] + transportLimits.withLock { $0 }
    }

    /// The attachment store's quota as `server.describe` lists it: bytes and
    /// files per notification, bundle and app, and the refusals that make a fault.
    private static func described(_ quota: AttachmentQuota) -> JSON {
        func pair(_ bytes: UInt64, _ files: Int) -> JSON {
            .object([("bytes", .integer(Int64(clamping: bytes))), ("files", .integer(Int64(files)))])
        }
        return .object([
            ("perNotification", pair(quota.notificationBytes, quota.notificationFiles)),
            ("perBundle", pair(quota.bundleBytes, quota.bundleFiles)),
            ("perApp", pair(quota.appBytes, quota.appFiles)),
            ("faultAfterRefusals", .object([("refusals", .integer(Int64(quota.abuseRefusals))),
                                            ("withinSeconds", .double(quota.abuseWindow))])),
        ])
    }
}
