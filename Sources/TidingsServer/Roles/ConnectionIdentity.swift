import Synchronization
import TidingsBase
import TidingsProtocol

/// One connection's identity as it goes: what it was at accept, what its
/// `server.hello` made it, and whether it is settled (a hello, or any other
/// call, came: from then on a different role or app is refused).
package final class ConnectionIdentity: Sendable {
    /// What the connection is and said, under one lock.
    private struct State {
        /// Who the connection is now.
        var identity: ClientIdentity
        /// A hello succeeded, or another call came: the role is fixed.
        var settled = false
        /// What the client called itself in its hello, for the log.
        var client: String?
    }

    /// The identity, shared by the loop and the threads answering calls.
    private let state: Mutex<State>

    /// The identity of a connection that starts as `identity`.
    package init(_ identity: ClientIdentity) {
        state = Mutex(State(identity: identity))
    }

    /// Who the connection is now.
    package var current: ClientIdentity { state.withLock { $0.identity } }

    /// A call other than hello came: the role is fixed from now on.
    /// Returns who the connection is.
    func settle() -> ClientIdentity {
        state.withLock { state in
            state.settled = true
            return state.identity
        }
    }

    /// `server.hello` as `role` for `app` (required for an app): the identity
    /// it made, or -32011 when the connection cannot be that — a sandboxed
    /// peer of another app or claiming a front end, an uninspectable peer
    /// claiming a front end, or a settled connection changing its role or app.
    func hello(role: ClientRole, app: String?, client: String?) throws(RPCError) -> ClientIdentity {
        try state.withLock { (state: inout State) throws(RPCError) -> ClientIdentity in
            let now = state.identity
            let refuse = { (why: String) -> RPCError in
                .notPermitted("\(now.described): \(why)", role: now.role.rawValue, app: now.app,
                              method: MethodName.serverHello.rawValue)
            }
            if let sandbox = now.sandbox {
                guard role == .app, app == sandbox.app else {
                    throw refuse("its \(sandbox.kind.rawValue) sandbox makes it app \(sandbox.app); it cannot say hello as \(Self.said(role, app)).")
                }
            } else if now.uninspectable && role == .frontEnd {
                throw refuse("its process could not be inspected, so it cannot be a front end; say hello as an app.")
            } else if state.settled && (role != now.role || app != now.app) && !(now.uninspectable && now.app == nil) {
                throw refuse("its role is fixed by its first call; it cannot say hello as \(Self.said(role, app)).")
            }
            state.identity.role = role
            state.identity.app = role == .app ? app : nil
            state.settled = true
            state.client = client
            return state.identity
        }
    }

    /// `role` and `app` as a refusal names them.
    private static func said(_ role: ClientRole, _ app: String?) -> String {
        role == .frontEnd ? "a front end" : "app \(app ?? "?")"
    }
}
