import Glibc

/// The one place that retries a system call interrupted by a signal.
///
/// A call that returns -1 with `errno` set to `EINTR` did nothing and may be
/// made again; every other result is final. Wrap each blocking C call whose
/// interruption is not itself the answer (`read`, `write`, `recvmsg`,
/// `sendmsg`, `waitpid`, `open` of a FIFO, …) in `retrying`.
package enum SystemCall {
    /// Calls `body` until it does not fail with `EINTR`; its last result.
    /// `errno` is left as the last call set it.
    @inline(__always)
    package static func retrying<Result: BinaryInteger>(_ body: () -> Result) -> Result {
        while true {
            let result = body()
            if result != -1 || errno != EINTR { return result }
        }
    }

    /// Calls `body`, a shim call that answers a negative errno rather than
    /// setting `errno` (TidingsSystemShims' `tidings_…`), until it does not
    /// answer `-EINTR`; its last result.
    @inline(__always)
    package static func retryingNegative(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result != -EINTR { return result }
        }
    }

    /// `retrying`, throwing `SystemError` for a result of -1.
    @inline(__always)
    package static func checked<Result: BinaryInteger>(_ body: () -> Result) throws(SystemError) -> Result {
        let result = retrying(body)
        if result == -1 { throw SystemError.current() }
        return result
    }
}
