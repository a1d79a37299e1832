import TidingsBase

/// The protocol reference, made from the server's own tables — the methods
/// it dispatches (`HostService.protocolMethods`), the events it pushes
/// (`HostService.events`), the requests it sends its clients
/// (`HostService.serverRequests`), the error codes it answers
/// (`ProtocolErrorCode.all`) and the named schemas of what they carry
/// (`ProtocolComponent.all`) — so that it cannot say other than the server does.
///
/// Three forms: Markdown for the front-end and app developer
/// (`Docs/reference/protocol.md`), an OpenRPC document with JSON Schema for
/// every parameter, result and event (`Docs/reference/openrpc.json`, the
/// answer of `server.protocol`), and a compact list of names and types
/// (`Docs/reference/protocol.json`). Every type in the three comes from one
/// `ProtocolSchema`.
package enum ProtocolReference {
    /// The files the reference is committed as, each with the
    /// `tidings manual --protocol` format that makes it.
    package static let files: [(path: String, format: String)] = [
        ("Docs/reference/protocol.md", "markdown"), ("Docs/reference/protocol.json", "json"),
        ("Docs/reference/openrpc.json", "openrpc"),
    ]

    /// The commands that write the committed files again, from the package's directory.
    package static var regenerate: String {
        files.map { "swift run tidings manual --protocol \($0.format) > \($0.path)" }.joined(separator: "; ")
    }

    /// The reference in `format` (`markdown`, `json` or `openrpc`), as the file holds it; nil for another format.
    package static func text(_ format: String) -> String? {
        switch format {
        case "markdown": markdown
        case "json": json.serialized(pretty: true) + "\n"
        case "openrpc": openRPC.serialized(pretty: true) + "\n"
        default: nil
        }
    }

    /// The compact description: every method, event and error code, each
    /// parameter with its type in words.
    package static let json: JSON = .object([
        ("jsonrpc", .string("2.0")),
        ("methods", .array(HostService.protocolMethods.map { withAccess($0.json, of: $0, named: "access") })),
        ("events", .array(HostService.events.map(\.json))),
        ("serverRequests", .array(HostService.serverRequests.map(\.serverRequestJSON))),
        ("errors", .array(ProtocolErrorCode.all.map(\.json))),
    ])

    /// The OpenRPC version the document is written in.
    package static let openRPCVersion = "1.3.2"

    /// The machine-readable description, an OpenRPC document: every method
    /// with JSON Schema for its params and result, the named schemas
    /// (`components/schemas`) and the error codes (`components/errors`);
    /// OpenRPC has no events nor requests from the server, so those are in
    /// `x-events` and `x-server-requests`, each with the schema of its
    /// `params` (and, for a request, of the result it expects).
    package static let openRPC: JSON = .object([
        ("openrpc", .string(openRPCVersion)),
        ("info", .object([
            ("title", .string("Tidings")),
            ("description", .string("The JSON-RPC 2.0 protocol of `tidings serve`: one JSON object per line over a Unix socket (or standard input and output), parameters by name. Made from the server's method table; Docs/reference/protocol.md says the same in words.")),
            ("version", .string("\(HostService.protocolVersion)")),
        ])),
        ("methods", .array(HostService.protocolMethods.map { withAccess($0.openRPC, of: $0, named: "x-access") })),
        ("components", .object([
            ("schemas", .object(ProtocolComponent.all.map { ($0.name, $0.jsonSchema) })),
            ("errors", .object(ProtocolErrorCode.all.map { ("\($0.code)", $0.openRPC) })),
        ])),
        ("x-any-request-errors", .array(ProtocolErrorCode.all.filter(\.anyRequest).map {
            .object([("$ref", .string("#/components/errors/\($0.code)"))])
        })),
        ("x-events", .array(HostService.events.map(\.openRPC))),
        ("x-server-requests", .array(HostService.serverRequests.map(\.openRPC))),
    ])

    /// `entry` (a method's object) with its access level (`MethodAccess`) as member `name`.
    private static func withAccess(_ entry: JSON, of method: ProtocolMethod, named name: String) -> JSON {
        .object((entry.objectMembers ?? []) + [(name, .string(MethodAccess.of(method.name).rawValue))])
    }

    /// The Markdown reference: the transport, then every method, event and error code.
    package static var markdown: String {
        var lines = introduction
        lines += ["## Methods", ""]
        lines += HostService.protocolMethods.map { "- [`\($0.name)`](#\(anchor($0.name))) — \(MethodAccess.of($0.name).described)" } + [""]
        for method in HostService.protocolMethods { lines += section(of: method) }
        lines += ["## Events", "", eventsIntroduction, ""]
        for event in HostService.events { lines += section(of: event) }
        lines += ["## Server requests", "", serverRequestsIntroduction, ""]
        for request in HostService.serverRequests { lines += section(ofServerRequest: request) }
        lines += ["## Schemas", "", schemasIntroduction, ""]
        for component in ProtocolComponent.all { lines += section(of: component) }
        lines += ["## Errors", "", errorsIntroduction, "", "| code | any request | meaning |", "| --- | --- | --- |"]
        lines += ProtocolErrorCode.all.map { "| \($0.code) | \($0.anyRequest ? "yes" : "") | \(cell($0.meaning)) |" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The entry of `method`: its summary, parameters, result and errors.
    private static func section(of method: ProtocolMethod) -> [String] {
        var lines = ["### `\(method.name)`", "", method.summary, "", "Who may call it: **\(MethodAccess.of(method.name).described)**.", ""]
        if method.parameters.isEmpty {
            lines += ["Parameters: none.", ""]
        } else {
            lines += ["| parameter | type | required | meaning |", "| --- | --- | --- | --- |"]
            lines += method.parameters.map { "| `\($0.name)` | \(cell($0.type)) | \($0.required ? "yes" : "no") | \(cell($0.meaning)) |" }
            lines.append("")
        }
        if !method.oneOf.isEmpty {
            lines += ["Give exactly one of " + method.oneOf.map { "`\($0)`" }.joined(separator: " and ") + ".", ""]
        }
        lines += result("Result", method.returns, method.result)
        lines += ["Errors: " + method.errors.map { "\($0)" }.joined(separator: ", ") + " (and those of any request).", ""]
        return lines
    }

    /// The entry of `request`, a request the server sends: when, its params, the answer it expects.
    private static func section(ofServerRequest request: ProtocolMethod) -> [String] {
        var lines = ["### `\(request.name)`", "", request.summary, ""]
        lines += ["| param | type | always | meaning |", "| --- | --- | --- | --- |"]
        lines += request.parameters.map { "| `\($0.name)` | \(cell($0.type)) | \($0.required ? "yes" : "no") | \(cell($0.meaning)) |" }
        return lines + [""] + result("The answer's result", request.returns, request.result)
    }

    /// The entry of `event`: when it is sent and its params.
    private static func section(of event: ProtocolEvent) -> [String] {
        var lines = ["### `\(event.name)`", "", event.summary, ""]
        lines += ["| param | type | always | meaning |", "| --- | --- | --- | --- |"]
        lines += event.fields.map { "| `\($0.name)` | \(cell($0.type)) | \($0.required ? "yes" : "no") | \(cell($0.meaning)) |" }
        return lines + [""]
    }

    /// The entry of `component`, a named schema: what it is, and its members or the types it may be.
    private static func section(of component: ProtocolComponent) -> [String] {
        var lines = ["### `\(component.name)`", "", component.summary, ""]
        switch component.schema.kind {
        case .object:
            lines += members(of: component.schema)
        case .either(let alternatives) where alternatives.allSatisfy({ !members(of: $0).isEmpty }):
            // One table for each object it may be.
            for (position, alternative) in alternatives.enumerated() {
                lines += [position == 0 ? "One of these objects:" : "Or:", ""] + members(of: alternative)
            }
        default:
            lines += ["Type: \(component.schema.prose).", ""]
        }
        return lines
    }

    /// A result's paragraph: `title`, its type unless a table of its
    /// members follows, what it holds in words (`text`), then the table.
    private static func result(_ title: String, _ schema: ProtocolSchema, _ text: String) -> [String] {
        let table = members(of: schema)
        return ["\(title)\(table.isEmpty ? " (\(schema.prose))" : ""): \(text)", ""] + table
    }

    /// The table of the members of `schema`, when it is an object with members; nothing otherwise.
    private static func members(of schema: ProtocolSchema) -> [String] {
        guard case .object(let members, _) = schema.kind, !members.isEmpty else { return [] }
        return ["| member | type | always | meaning |", "| --- | --- | --- | --- |"]
            + members.map { "| `\($0.name)` | \(cell($0.type)) | \($0.required ? "yes" : "no") | \(cell($0.meaning)) |" } + [""]
    }

    /// `text` for a table cell: a `|` would end the cell.
    private static func cell(_ text: String) -> String {
        text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }

    /// The anchor GitHub gives the heading `` `name` ``.
    private static func anchor(_ name: String) -> String {
        String(name.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    }

    /// What comes before the methods: what the reference is, and the transport.
    private static let introduction = [
        "# The Tidings protocol",
        "",
        "<!-- Made by `tidings manual --protocol markdown` from the server's method table; do not edit. To change it, change the table (Sources/TidingsServer/Service) and run: \(regenerate) -->",
        "",
        "`tidings serve` is driven over **JSON-RPC 2.0, one JSON object per line**. This reference is made from the server's own table of methods and events, so it says what the server does. The same description, machine-readable, is the OpenRPC document [`openrpc.json`](openrpc.json) — JSON Schema for every parameter, result and event, the objects they carry as named [schemas](#schemas) — which the server answers to `server.protocol`; [`protocol.json`](protocol.json) lists the names and types alone. Every type here is made from the same value as the document's schema.",
        "",
        "## Transport",
        "",
        "- **Socket.** A Unix socket, by default `$XDG_RUNTIME_DIR/tidings/tidings.sock` (`tidings serve --socket PATH`); its directory is 0700 and the socket 0600, and a peer of another user is refused (-32006, then the connection closes). The socket appears at its path only once the server listens, so a client may connect as soon as it sees the file. Many clients at once. `tidings serve --stdio` serves one client on standard input and output instead.",
        "- **Framing.** One JSON object per line, UTF-8, each way. The last request may go without its newline: the end of the input ends it. A message longer than the limit (1 MiB by default, `--max-message-size`; `server.describe` says it, `limits.messageSize`) gets -32003 and is skipped; the connection goes on.",
        "- **Requests.** `{\"jsonrpc\": \"2.0\", \"id\": …, \"method\": …, \"params\": {…}}`. Parameters go by name, in an object. An `id` is a string, a number (`7`, `1.0`, `1.5`: answered as given) or null. A request without an `id` is a notification: it is run and gets no answer. An id must not be reused while its request is still being answered on the connection (-32002).",
        "- **Batches.** An array of requests is answered with an array of the answers, in order; the requests touch what each touches.",
        "- **Order.** On one connection, a request that touches what an earlier request still under way changes, or changes what it touches, waits for it; the others run at once and their answers may come in another order: match them by `id`. Requests of two clients are not ordered against each other.",
        "- **Errors.** A failed call is answered `{\"jsonrpc\": \"2.0\", \"id\": …, \"error\": {\"code\", \"message\", \"data\"}}`: the code says what kind of failure (see [Errors](#errors)), the message is one plain sentence, and `data` carries details for programs (`diagnostics`, each with a stable `code`, where it was, and a sentence). Each method lists the codes it can answer besides those any request can.",
        "- **The server's requests.** The server may send a client a request of its own (`app.willPresent`, to a client that said an app is in the foreground with a delegate), under an id `\"s1\"`, `\"s2\"`, …; the client answers it as any request is answered. See [Server requests](#server-requests).",
        "- **Subscriptions.** `events.subscribe` makes the connection hear events: JSON-RPC notifications (`{\"jsonrpc\": \"2.0\", \"method\": …, \"params\": {…}}`, no `id`) about the apps it follows. The events a call causes are pushed before the call is answered. A client that stops reading is disconnected rather than allowed to grow the server's memory.",
        "- **Roles.** A connection is an **app** connection or a **front end**. `server.hello` says which (`role`, and an app's `app`); a connection that calls anything else first is a front end, with every right; a sandboxed peer (Flatpak, Snap: read by the server from outside the sandbox) is an app connection of its sandbox's app id from the start, and cannot say otherwise. Each method says who may call it: **everyone**; **own app** (an app connection for its own app only: an absent `app` is its own, another app's is refused, and a list shows only its own; a front end for any app); **front end only** (what only the person does: decide authorization, respond, open, close and work the expanded interface, tell the device's location). A refusal is -32011 (`data: {role, app, method}`). `server.describe` says the connection's role (`connection`).",
        "- **Limits.** `server.describe` lists every limit a client meets (`limits`): payload and message sizes, deadlines, how many notifications and inbox entries are kept, the attachment store's quota, list pages, calls in flight and unread output per connection, connections in all and per process, and how long a request may take to finish its line. A connection over a connection limit, or that leaves a request unfinished too long, gets one -32012 error line (id null; `data: {limit, value}`) and is closed.",
        "",
    ]

    /// What comes before the events.
    private static let eventsIntroduction = "Pushed as JSON-RPC notifications to the subscribers of the event's app and to those of all apps (`events.subscribe` without `apps`, or with `\"all\"`); a subscriber of other apps hears nothing of it. The state's events (`state.…`) are about the server, not an app: every subscriber hears them. Every event carries `seq`, its sequence number: larger than every earlier event's, across restarts too, though not one apart (a subscriber hears some events only; a restart skips some numbers). A front end keeps the last it handled and resumes after it (`events.subscribe` with `after`): the events it missed, as many as the server still keeps (`limits.eventReplay`, in memory: across a clean restart only a front end that heard the stopped server's last event resumes — a server stopped cleanly pushes every event of the calls it answered before it closes its connections), come first, then the events as they happen; beyond that the answer says `\"resumed\": false` and `\"reason\": \"too far behind: re-list\"`, or, when the events went with a restart (a crash), `\"reason\": \"server restarted: re-list\"` and `\"restarted\": true`. `events.subscribe` with `events` hears only the events named. A connection that falls behind is told (`events.lagging`) before it is cut off."

    /// What comes before the server's requests.
    private static let serverRequestsIntroduction = "JSON-RPC allows requests both ways on one connection: the server sends these to a client that asked for them, under ids of its own — strings `\"s1\"`, `\"s2\"`, … counted on each connection — and the client answers each as any request is answered, one line `{\"jsonrpc\": \"2.0\", \"id\": \"s1\", \"result\": {…}}` (or an `error`), in any order, among its own requests. An answer is awaited up to a deadline, holding nothing of the connection: the client's own requests go on meanwhile. An answer that comes too late, or to an id the server never sent, is ignored (`server.describe` counts it, `serverRequests.unknownResponses`)."

    /// What comes before the named schemas.
    private static let schemasIntroduction = "The objects the methods, events and server requests carry, each described once: the tables above link to them. In `openrpc.json` they are `components/schemas`, referred to with `$ref`. Members not listed may be added by a later version: a client ignores those it does not know. A parameter object takes no member it does not list (`x-params-schema` of each method says so, and which parameters are one of two)."

    /// What comes before the error codes.
    private static let errorsIntroduction = "Codes from -32768 to -32000 are JSON-RPC's; the server's own lie in -32099…-32000. \"Any request\" marks the codes a request can get whatever its method; the others are listed by the methods that answer them."
}
