import Glibc
import TidingsBase
import TidingsSystemShims

/// The server's side of `UnixSocket` (in TidingsBase): accepting clients,
/// through the system shims' `accept4`.
extension UnixSocket {
    /// The next client waiting on `listener` (which must not block), if
    /// one waits; thrown: why none could be accepted (`EMFILE` and the other
    /// shortages: the client still waits; others: the listener is shut down
    /// or closed). The client's descriptor is close-on-exec from the moment
    /// it exists (no worker started meanwhile inherits it), and does not
    /// block, as the event loop wants.
    /// The corresponding C function is `accept4`.
    package static func accept(on listener: borrowing FileDescriptor) throws(SystemError) -> FileDescriptor? {
        while true {
            let flags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            let client = SystemCall.retrying { tidings_accept4(listener.rawValue, flags) }
            if client >= 0 { return FileDescriptor(adopting: client) }
            switch errno {
            case ECONNABORTED, EPROTO: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw SystemError.current()
            }
        }
    }

    /// True for an error of `accept` that says the system is short of
    /// something (descriptors, memory) for now, the client still waiting.
    package static func isShortage(_ error: SystemError) -> Bool {
        [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.code)
    }
}

extension Diagnostic.Code {
    /// A client cannot be accepted for now: the process or the system is
    /// out of descriptors (`RLIMIT_NOFILE`) or memory.
    package static let acceptShortage = Self("serve.accept-shortage")
}
