import TidingsBase
import TidingsRuntime

/// Whether the server's changes are being written: ok, or degraded with
/// the cause (a full disk, a failing one), as `server.describe` and the
/// `state.degraded` and `state.recovered` events report it.
package struct StateHealth: Sendable, Equatable {
    /// Why changes are not being written; nil while they are.
    package var cause: Diagnostic?
    /// When that began, in seconds since 1970; nil while changes are written.
    package var since: Double?

    /// Changes are being written.
    package init() {}

    /// True while changes are not being written.
    package var isDegraded: Bool { cause != nil }

    /// `{"status": "ok" | "degraded", "cause": diagnostic, "since": ISO 8601}`.
    package var json: JSON {
        var members: [(String, JSON)] = [("status", .string(isDegraded ? "degraded" : "ok"))]
        if let cause { members.append(("cause", cause.json)) }
        if let since { members.append(("since", .string(ISO8601.format(since)))) }
        return .object(members)
    }
}
