import Glibc
import TidingsBase
import TidingsSystemShims

/// An epoll instance: the descriptors an event loop waits on, each added
/// with a token that names it when it is ready. Level-triggered: a
/// descriptor is reported again for as long as it stays ready.
struct Epoll: ~Copyable, Sendable {
    /// What a descriptor is watched for, or found ready for.
    struct Events: OptionSet, Sendable {
        let rawValue: UInt32

        /// Data to read, or the end of the input.
        static let readable = Events(rawValue: TIDINGS_EPOLL_IN)
        /// Room to write.
        static let writable = Events(rawValue: TIDINGS_EPOLL_OUT)
        /// An error on the descriptor (always reported).
        static let error = Events(rawValue: TIDINGS_EPOLL_ERR)
        /// The other end hung up (always reported).
        static let hangUp = Events(rawValue: TIDINGS_EPOLL_HUP)
    }

    /// What epoll can answer in one wait.
    static let batch = 256

    private let descriptor: FileDescriptor

    /// A new epoll instance (close-on-exec). The corresponding C function is `epoll_create1`.
    init() throws(SystemError) {
        descriptor = try FileDescriptor(adoptingResult: tidings_epoll_create())
    }

    /// Watches `file` for `events`, naming it `token`. `EPERM` for a file
    /// epoll cannot watch: a regular file, which is always ready.
    /// The corresponding C function is `epoll_ctl(EPOLL_CTL_ADD)`.
    func add(_ file: Int32, for events: Events, token: UInt64) throws(SystemError) {
        let status = tidings_epoll_control(descriptor.rawValue, 0, file, events.rawValue, token)
        if status < 0 { throw SystemError(code: -status) }
    }

    /// Watches `file`, added with `token`, for `events` from now on.
    /// The corresponding C function is `epoll_ctl(EPOLL_CTL_MOD)`.
    func change(_ file: Int32, to events: Events, token: UInt64) {
        _ = tidings_epoll_control(descriptor.rawValue, 1, file, events.rawValue, token)
    }

    /// Stops watching `file`. The corresponding C function is `epoll_ctl(EPOLL_CTL_DEL)`.
    func remove(_ file: Int32) {
        _ = tidings_epoll_control(descriptor.rawValue, 2, file, 0, 0)
    }

    /// Waits up to `timeout` milliseconds (-1: until something is ready; 0:
    /// not at all) and fills `ready` with what is; the number filled.
    /// The corresponding C function is `epoll_wait`.
    func wait(into ready: UnsafeMutableBufferPointer<tidings_epoll_ready>, timeout: Int32) -> Int {
        let count = SystemCall.retrying {
            tidings_epoll_wait(descriptor.rawValue, ready.baseAddress, Int32(min(ready.count, Self.batch)), timeout)
        }
        return max(0, Int(count))
    }
}
