import TidingsBase
import TidingsRuntime

/// A JSON-RPC 2.0 error object: a code, a sentence, and data for programs.
///
/// Codes from -32768 to -32000 are the specification's; the server's own
/// lie in -32099…-32000, as it reserves them for implementations.
package struct RPCError: Error, Sendable, Equatable {
    /// The error's code.
    package var code: Int
    /// One plain sentence.
    package var message: String
    /// Details for programs: diagnostics, Apple's code, the limit exceeded.
    package var data: JSON?

    /// An error of `code` saying `message`, with optional `data`.
    package init(_ code: Int, _ message: String, data: JSON? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The line is not JSON.
    package static func parseError(_ message: String) -> RPCError { RPCError(-32700, message) }
    /// The JSON is not a request.
    package static func invalidRequest(_ message: String) -> RPCError { RPCError(-32600, message) }
    /// No method has that name.
    package static func methodNotFound(_ message: String) -> RPCError { RPCError(-32601, message) }
    /// The parameters are missing, of the wrong type, or unknown.
    package static func invalidParams(_ message: String, data: JSON? = nil) -> RPCError {
        RPCError(-32602, message, data: data)
    }
    /// Something went wrong in the server itself.
    package static func internalError(_ message: String) -> RPCError { RPCError(-32603, message) }

    /// The input the parameters carry is invalid (a payload, categories, a
    /// response the notification does not offer); `data.diagnostics` says why,
    /// `data.appleCode` Apple's UNErrorCode when Apple's API refuses it with
    /// one (1401, a notification without content). A number that does not
    /// fit (`number.out-of-range`) is an invalid parameter, -32602, with
    /// `data.field` the JSON pointer of the first.
    package static func invalidInput(_ diagnostics: [Diagnostic], appleCode: Int32? = nil) -> RPCError {
        let first = diagnostics.first { $0.severity == .error } ?? diagnostics.first
        var data: [(String, JSON)] = appleCode.map { [("appleCode", .integer(Int64($0)))] } ?? []
        let unfitting = diagnostics.first { $0.severity == .error && $0.code == .numberOutOfRange }
        if let unfitting { data.append(("field", .string(unfitting.location.path ?? ""))) }
        data.append(("diagnostics", .array(diagnostics.map(\.json))))
        return RPCError(unfitting == nil ? -32000 : -32602, (unfitting ?? first)?.message ?? "The input is invalid.", data: .object(data))
    }
    /// No delivered notification has that identifier (of `app`, when the
    /// call named one): never delivered, or removed or dismissed.
    package static func unknownNotification(_ identifier: String, app: String? = nil) -> RPCError {
        guard let app else {
            return RPCError(-32001, "No delivered notification has the identifier \"\(identifier)\"; it was never delivered, or it was dismissed or removed.",
                            data: .object([("identifier", .string(identifier))]))
        }
        return RPCError(-32001, "No delivered notification of \(app) has the identifier \"\(identifier)\"; it was never delivered, or it was dismissed or removed.",
                        data: .object([("identifier", .string(identifier)), ("app", .string(app))]))
    }
    /// The call named a notification by its identifier alone, and several
    /// apps have one of that identifier delivered: it must name the app.
    /// `data.apps` lists them.
    package static func ambiguousNotification(_ identifier: String, apps: [String]) -> RPCError {
        RPCError(-32602, "Several apps have a notification \"\(identifier)\" delivered (\(apps.joined(separator: ", "))); name the one meant with \"app\".",
                 data: .object([("identifier", .string(identifier)), ("apps", .array(apps.map(JSON.string)))]))
    }
    /// A change would take the server past one of its limits (`server.describe`'s
    /// `limits`): `data.limit` names it, `data.value` is its value.
    package static func limitReached(_ limit: String, value: Int, _ message: String) -> RPCError {
        RPCError(-32012, message, data: .object([("limit", .string(limit)), ("value", .integer(Int64(value)))]))
    }
    /// A request reused the id of one still being answered on the connection;
    /// `data.id` is the id reused (the error itself is answered with a null
    /// id, so that it cannot be taken for the answer to the first request).
    package static func duplicateIdentifier(_ id: RPCID) -> RPCError {
        RPCError(-32002, "A request with the id \(id.json.serialized()) is still being answered on this connection; ids must differ while in flight.",
                 data: .object([("id", id.json)]))
    }
    /// The line is longer than the server accepts.
    package static func messageTooLarge(limit: Int) -> RPCError {
        RPCError(-32003, "The message is longer than \(limit) bytes, the most this server accepts; it was skipped.",
                 data: .object([("limit", .integer(Int64(limit)))]))
    }
    /// An attachment was refused: `data.appleCode` is Apple's UNErrorCode (100–105).
    package static func attachmentRefused(_ failure: AttachmentFailure) -> RPCError {
        RPCError(-32004, failure.diagnostic.message, data: .object([
            ("appleCode", .integer(Int64(failure.appleCode))), ("diagnostics", .array([failure.diagnostic.json])),
        ]))
    }
    /// An element event (a tap, a submission, a text-input answer) was
    /// refused and reached no extension: `data.cause` is the diagnostic's
    /// code (`element.interaction-disabled` without
    /// UNNotificationExtensionUserInteractionEnabled, `element.no-such-element`,
    /// `element.wrong-kind`, `element.disabled`, `element.input-not-requested`,
    /// `element.events-not-handled`, `element.interface-closed` (its expanded interface is not open: `notifications.open` first), `element.invalid`).
    package static func elementRefused(_ refusal: Diagnostic) -> RPCError {
        RPCError(-32007, refusal.message,
                 data: .object([("cause", .string(refusal.code.rawValue)), ("diagnostics", .array([refusal.json]))]))
    }
    /// The call was refused as UNUserNotificationCenter refuses it:
    /// `data.appleCode` is Apple's UNErrorCode (1600: a negative badge count).
    package static func appleRefused(_ appleCode: Int, _ message: String) -> RPCError {
        RPCError(-32008, message, data: .object([("appleCode", .integer(Int64(appleCode)))]))
    }
    /// The server cannot take more work from this connection now.
    package static func overloaded(_ message: String) -> RPCError { RPCError(-32005, message) }
    /// The change was not made: its record could not be written to the
    /// state (a full disk, a failing one). `data.cause` is the diagnostic's
    /// code (`file.no-space`, `file.io-error`, …); the server is degraded
    /// until writing works again.
    package static func stateNotWritten(_ failure: Diagnostic) -> RPCError {
        RPCError(-32010, "The change was not made: its record could not be written. \(failure.message)",
                 data: .object([("cause", .string(failure.code.rawValue)), ("diagnostics", .array([failure.json]))]))
    }

    /// Refused to this connection's role (-32011 notPermitted): an app
    /// connection calling a front end's method, or naming another app.
    /// `data` carries the connection's `role` and `app` and the `method`.
    package static func notPermitted(_ message: String, role: String, app: String?, method: String) -> RPCError {
        RPCError(-32011, message, data: .object([("role", .string(role)), ("app", app.map(JSON.string) ?? .null),
                                                 ("method", .string(method))]))
    }

    /// A time limit was reached (-32012 limitReached): `data.limit` names
    /// it, `data.value` is the limit in seconds.
    package static func limitReached(_ limit: String, seconds: Double, _ message: String) -> RPCError {
        RPCError(-32012, message, data: .object([("limit", .string(limit)), ("value", .double(seconds))]))
    }

    /// The error object as JSON.
    package var json: JSON {
        var members: [(String, JSON)] = [("code", .integer(Int64(code))), ("message", .string(message))]
        if let data { members.append(("data", data)) }
        return .object(members)
    }
}
