import TidingsBase

/// One layer of a worker's sandbox and whether it holds: what `tidings
/// list`, `server.describe` and the threat model in Docs/running.md name.
package struct SandboxLayer: Sendable, Equatable {
    /// Whether a layer holds.
    package enum Status: String, Sendable, CaseIterable {
        /// In place, as designed.
        case active
        /// In place with less than designed (a fallback); `detail` says what is missing.
        case weakened
        /// Not in place; `detail` says why.
        case missing
    }

    /// The layer's name: "namespaces", "filesystem", "landlock", "seccomp", "memory", "tasks", "cpu", "processes", "network".
    package var name: String
    package var status: Status
    /// One sentence: what it does, or why it is weakened or missing.
    package var detail: String

    package init(_ name: String, _ status: Status, _ detail: String) {
        self.name = name
        self.status = status
        self.detail = detail
    }

    /// `{"layer": …, "status": …, "detail": …}`.
    package var json: JSON {
        .object([("layer", .string(name)), ("status", .string(status.rawValue)), ("detail", .string(detail))])
    }
}
