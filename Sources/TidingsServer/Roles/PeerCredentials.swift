/// The process at the other end of a socket as the kernel names it
/// (SO_PEERCRED): its pid, in the server's pid namespace (0 when it is
/// outside it), and its user.
package struct PeerCredentials: Sendable, Equatable {
    /// The peer's pid; 0 when it cannot be named from the server's pid namespace.
    package var pid: Int32
    /// The peer's user id.
    package var uid: UInt32

    /// Credentials of `pid` and `uid`.
    package init(pid: Int32, uid: UInt32) {
        self.pid = pid
        self.uid = uid
    }
}
