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
            result: "`name`, `version`, `abiVersion`; `protocol`: `{version, capabilities}` — the protocol's own version (\(HostService.protocolVersion): 1 was the protocol before events carried `seq`) and what it offers beyond version 1 (`\(HostService.capabilities.joined(separator: "`, `"))`); `methods`: each method's `name` and `summary`; `events`: each event's `method` and a sentence on its `params`; `limits` (`payloadSize` and `messageSize` in bytes; `responseDeadline` and `serviceDeadline` in seconds; `keptNotifications`; `inboxEntries`: the most each app's inbox keeps; `attachmentStore`: bytes and files per notification, bundle and app, and the refusals that make a fault; `listPage`: the default and maximum `limit` of the list methods; `willPresentDeadline` in seconds; `eventReplay`: the most events kept for subscribers that resume; per connection `callsPerConnection` and `unreadOutput` in bytes); `sandbox`: the sandbox's layers, each `{layer, status, detail}`; `workers`: the warm workers kept for content extensions, `{idle, residentBytes, anonymousBytes}` (null in process); `state`: the state's status and what it keeps — with `setAside`, `{count, diagnostics}`: the records loading could not use (unreadable, or a request or notification whose numbers do not fit, such as an interval an older version accepted), left out so that the server serves; `serverRequests`: the requests the server sent its clients (`app.willPresent`), `{sent, answered, unanswered, unknownResponses}` (answers to an id nothing waits under, ignored); `schedule`: the pending requests — `pending` (how many), `apps` (of how many apps), `nextTriggerDate` (the next to fire, ISO 8601, or `null`), `timeZone` (the user's, which date components without one of their own are matched in), `pendingLimit` (the most requests pending per app).",
            errors: [-32602]),
               scope: .nothing) { service, params, _ throws(RPCError) in try service.describe(&params) },
        Method(ProtocolMethod(
            .serverPing,
            summary: "Answers at once: whether the connection and the server are alive.",
            result: "`pong`: `true`; `time`: the server's clock (ISO 8601).",
            errors: [-32602]),
               scope: .nothing) { _, params, _ throws(RPCError) in
            try params.check()
            return .object([("pong", .bool(true)), ("time", .string(ISO8601.format(Payload.currentTime())))])
        },
        Method(ProtocolMethod(
            .serverProtocol,
            summary: "The protocol's machine-readable description: every method with its parameters, result and errors, every event with its params, every error code — the reference's protocol.json.",
            result: "`jsonrpc` (\"2.0\"), `methods` (each `name`, `summary`, `params` (each `name`, `type`, `required`, `meaning`), `result`, `errors`), `events` (each `name`, `summary`, `params`), `errors` (each `code`, `meaning`, `anyRequest`).",
            errors: [-32602]),
               scope: .nothing) { _, params, _ throws(RPCError) in
            try params.check()
            return ProtocolReference.json
        },
        Method(ProtocolMethod(
            .extensionsList,
            summary: "The extension bundles on the search path, what they declare, and their problems.",
            result: "`searchPath` (`origin`, `directories`), `bundles` (each `name`, `path`, `usable`, what its manifest declares — `identifier`, `app`, `point`, `executable`, `categories`, `initialContentSizeRatio`, `defaultContentHidden`, `overridesDefaultTitle`, `userInteractionEnabled`, `interface` — and its `diagnostics`), and the search's own `diagnostics`.",
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

    private func describe(_ params: inout Params) throws(RPCError) -> JSON {
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
            ("inboxEntries", .integer(Int64(inbox.limit))),
            ("attachmentStore", Self.described(configuration.host.attachmentQuota)),
            ("listPage", .object([("default", .integer(Int64(ListCursor.defaultLimit))),
                                  ("maximum", .integer(Int64(ListCursor.maximumLimit)))])),
            ("willPresentDeadline", .double(configuration.willPresentDeadline)),
            ("eventReplay", .integer(Int64(configuration.eventReplayLimit))),
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
