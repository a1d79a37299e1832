import TidingsBase

/// What a connection is, as the server holds it to: its role, the app it
/// is (an app connection's), the sandbox its peer runs in and the peer's
/// process as the kernel names it.
///
/// A connection that says nothing is an unsandboxed front end (today's
/// rights); `server.hello` makes it an app connection; a sandboxed peer is
/// one from the start, of the app its sandbox names (`PeerSandbox`). A peer
/// whose process could not be inspected (`uninspectable`) is no front end:
/// it is an app connection that has not yet said which app, and may call
/// only what everyone may until it does.
package struct ClientIdentity: Sendable, Equatable {
    /// The connection's role.
    package var role: ClientRole
    /// The app an app connection is; nil for a front end, and for an app
    /// connection that has yet to say (an uninspectable peer before hello).
    package var app: String?
    /// The sandbox the peer runs in, read at accept; nil when it runs in none.
    package var sandbox: PeerSandbox?
    /// The peer's process (SO_PEERCRED); nil for standard I/O and in-process clients.
    package var peer: PeerCredentials?
    /// The peer's process could not be inspected (its /proc root unreadable):
    /// it can be no front end.
    package var uninspectable = false

    /// A front end: what a connection that says nothing is, and an in-process caller.
    package static let frontEnd = ClientIdentity(role: .frontEnd)

    /// The identity of a peer `peer`, inspected as `inspection` says.
    package init(peer: PeerCredentials?, inspection: PeerInspection) {
        self.peer = peer
        switch inspection {
        case .unsandboxed:
            role = .frontEnd
        case .sandboxed(let sandbox):
            role = .app
            app = sandbox.app
            self.sandbox = sandbox
        case .uninspectable:
            role = .app
            uninspectable = true
        }
    }

    /// An identity of `role` for `app`.
    package init(role: ClientRole, app: String? = nil) {
        self.role = role
        self.app = app
    }

    /// The identity as `server.describe`'s `connection` lists it: `{role, app, sandbox, peer}`.
    package var json: JSON {
        .object([
            ("role", .string(role.rawValue)),
            ("app", app.map(JSON.string) ?? .null),
            ("sandbox", sandbox?.json ?? .null),
            ("peer", peer.map { .object([("pid", .integer(Int64($0.pid))), ("uid", .integer(Int64($0.uid)))]) } ?? .null),
        ])
    }

    /// The answer of `server.hello`: `{role, app, sandbox}`.
    package var helloJSON: JSON {
        .object([("role", .string(role.rawValue)), ("app", app.map(JSON.string) ?? .null), ("sandbox", sandbox?.json ?? .null)])
    }

    /// The identity as a sentence's subject, for refusals: "This connection is app X's".
    var described: String {
        switch role {
        case .frontEnd: "This connection is a front end"
        case .app: app.map { "This connection is app \($0)'s" } ?? "This connection has not said which app it is"
        }
    }
}
