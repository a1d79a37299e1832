/// What inspecting a peer's process at accept found.
package enum PeerInspection: Sendable, Equatable {
    /// The peer runs in no sandbox the server knows: it may be a front end.
    case unsandboxed
    /// The peer runs in a sandbox, which names its app.
    case sandboxed(PeerSandbox)
    /// The peer's process could not be inspected (gone, not dumpable, in a
    /// pid namespace the server cannot see, a /proc it cannot read): fail
    /// closed, it may only be an app connection, of the app its hello names.
    case uninspectable(String)
}
