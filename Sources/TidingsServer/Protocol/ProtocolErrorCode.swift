import TidingsBase

/// One JSON-RPC error code the server answers, as the protocol reference
/// lists it (the errors themselves are made by `RPCError`).
package struct ProtocolErrorCode: Sendable {
    /// The code.
    package let code: Int
    /// What it means, and what its `data` carries.
    package let meaning: String
    /// Whether any request can get it, whatever its method (the transport's
    /// and the request's own errors), rather than only the methods that list it.
    package let anyRequest: Bool

    /// The entry of `code`.
    init(_ code: Int, anyRequest: Bool = false, _ meaning: String) {
        self.code = code
        self.meaning = meaning
        self.anyRequest = anyRequest
    }

    /// The entry as the machine-readable description lists it.
    package var json: JSON {
        .object([("code", .integer(Int64(code))), ("meaning", .string(meaning)), ("anyRequest", .bool(anyRequest))])
    }

    /// The entry as an OpenRPC error object: its code, and its meaning as the message.
    package var openRPC: JSON {
        .object([("code", .integer(Int64(code))), ("message", .string(meaning))])
    }

    /// Every code the server answers, in the order the reference lists them.
    package static let all: [ProtocolErrorCode] = [
        ProtocolErrorCode(-32700, anyRequest: true, "The line is not JSON."),
        ProtocolErrorCode(-32600, anyRequest: true,
                          "Not a JSON-RPC 2.0 request: no `\"jsonrpc\": \"2.0\"`, no method, `params` neither an object nor an array, or an unknown member."),
        ProtocolErrorCode(-32601, anyRequest: true, "No method has that name; the message suggests the closest one (\"did you mean\")."),
        ProtocolErrorCode(-32602,
                          "A parameter is missing, of the wrong type or unknown, or an `identifier`, `app`, `identifiers` or `apps` is empty; `data.diagnostics` lists every problem, each with the parameter's path. Also: an `identifier` without `app` that several apps have a notification of delivered; `data.apps` names them (name one with `app`)."),
        ProtocolErrorCode(-32002, anyRequest: true,
                          "The id is still in flight on this connection: answered with `\"id\": null` and the id reused in `data.id`, so that it cannot be taken for the answer to the first request."),
        ProtocolErrorCode(-32003, anyRequest: true,
                          "The message is longer than the server accepts (`data.limit`, in bytes); it was skipped and the connection goes on."),
        ProtocolErrorCode(-32006, anyRequest: true,
                          "The peer is another user than the server's; the connection closes after this answer (id null)."),
        ProtocolErrorCode(-32000, "The input the parameters carry is invalid: a payload, categories, a registration, a response the notification does not offer; `data.diagnostics` says why, and `data.appleCode` Apple's UNErrorCode when Apple refuses it with one (1401: a notification with nothing to show, sound or badge)."),
        ProtocolErrorCode(-32001, "No delivered notification has that identifier (of that app, when the call names one): it was never delivered, or it was dismissed or removed; `data.identifier` is the identifier, `data.app` the app named."),
        ProtocolErrorCode(-32004, "An attachment was refused: `data.appleCode` is Apple's UNErrorCode (100–105), `data.diagnostics` says why."),
        ProtocolErrorCode(-32007, "An element event was refused and reached no extension; `data.cause` says why: `element.interaction-disabled` (the manifest does not set `UNNotificationExtensionUserInteractionEnabled` to true), `element.events-not-handled` (the extension offers no `tidings.element-events/1`), `element.no-such-element`, `element.wrong-kind`, `element.disabled` (hidden or disabled), `element.input-not-requested`, `element.interface-closed` (its expanded interface is not open: `notifications.open` first), `element.invalid` (an identifier or text too long — 256 and 16,384 bytes — empty, or holding a NUL)."),
        ProtocolErrorCode(-32008, "Refused as UNUserNotificationCenter refuses it: `data.appleCode` is Apple's UNErrorCode (1600, badgeInputInvalid: a negative badge count)."),
        ProtocolErrorCode(-32010, "The change was not made: its record could not be written to the state (a full or failing disk); `data.cause` is the diagnostic's code (`file.no-space`, `file.too-large`, `file.io-error`, …), `data.diagnostics` the diagnostic. The server is degraded (`state.degraded`) until writing works again."),
        ProtocolErrorCode(-32011, anyRequest: true,
                          "notPermitted: refused to this connection's role. An app connection (`server.hello` as an app, or a sandboxed peer) called a front end's method, named another app, or said hello as another role or app than it is; `data` is `{role, app, method}`."),
        ProtocolErrorCode(-32012, anyRequest: true,
                          "limitReached: a limit of the server was reached (`server.describe`'s `limits`); `data.limit` names it and `data.value` is its value. A change refused for it was not made (`pendingRequests`: the pending requests of all apps). A connection over a connection limit (`connections`, `connectionsPerProcess`) gets this one line (id null) and is closed; one that leaves a request unfinished too long (`partialRequestTimeout`, `value` in seconds), the same."),
        ProtocolErrorCode(-32013,
                          "pushRefused: a push message (or a front end's call about a token) was refused; nothing was shown and no extension ran. `data` is `{code, token, app?, reason}`, `code` one of `push.too-large` (the body is over 4,096 bytes), `push.unknown-token` (no registration has the token), `push.rate-limited` (the app's pushes are over `--push-burst`/`--push-rate`), `push.undecryptable` (it does not decrypt with the registration's keys: tampered, or for other keys), `push.not-a-payload` (the plaintext is not a JSON object with an `aps` dictionary, or the delivery refused it: `data.diagnostics`), `push.unavailable` (the registrations could not be read, or no keys can be made). The server logs each refusal with the registration and the reason."),
    ]
}
