import TidingsBase

/// Why a push message (or a front end's call about a token) was refused:
/// answered as error -32013 (pushRefused) with `data: {code, token, app?,
/// reason}`, and logged by the server naming the registration and the
/// reason. Nothing is shown and no extension runs for a refused message.
package struct PushRefusal: Error, Sendable, Equatable {
    /// The refusal's code, as `data.code` carries it.
    package enum Code: String, Sendable, CaseIterable {
        /// The decoded body is larger than Web Push allows (4,096 bytes).
        case tooLarge = "push.too-large"
        /// No registration has the token: never given out, or unregistered.
        case unknownToken = "push.unknown-token"
        /// The app received more pushes than its rate allows (`--push-burst`, `--push-rate`).
        case rateLimited = "push.rate-limited"
        /// The body does not decrypt with the registration's keys (tampered, or for other keys).
        case undecryptable = "push.undecryptable"
        /// The plaintext is not an APNs-style payload (a JSON object a notification can be made of).
        case notAPayload = "push.not-a-payload"
        /// The server cannot take pushes now: its registrations could not be read, or no keys can be made.
        case unavailable = "push.unavailable"
    }

    /// The error code of every refusal.
    package static let rpcCode = -32013

    /// Why.
    package let code: Code
    /// The token the message or call named (empty when it named none).
    package let token: String
    /// The registration's app, when the token is known.
    package let app: String?
    /// The reason, one plain sentence.
    package let reason: String
    /// The payload's own diagnostics (`push.not-a-payload` from the delivery), if any.
    package var diagnostics: [Diagnostic] = []

    /// A refusal of `code` for `token` (of `app`) because of `reason`.
    package init(_ code: Code, token: String, app: String?, _ reason: String) {
        self.code = code
        self.token = token
        self.app = app
        self.reason = reason
    }

    /// The JSON-RPC error.
    package var rpcError: RPCError {
        var data: [(String, JSON)] = [("code", .string(code.rawValue)), ("token", .string(token))]
        if let app { data.append(("app", .string(app))) }
        data.append(("reason", .string(reason)))
        if !diagnostics.isEmpty { data.append(("diagnostics", .array(diagnostics.map(\.json)))) }
        return RPCError(Self.rpcCode, "Push refused (\(code.rawValue)): \(reason)", data: .object(data))
    }

    /// The line the server logs: the registration (app and token) and the reason.
    package var diagnostic: Diagnostic {
        .warning(Diagnostic.Code(code.rawValue),
                 "A push for \(app ?? "no known app") (token \(token.isEmpty ? "none" : token)) was refused: \(reason)")
    }
}
