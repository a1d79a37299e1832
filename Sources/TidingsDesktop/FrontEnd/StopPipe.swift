import Glibc
import TidingsBase

/// A pipe that tells the front end's loop to stop: `stop()` from any thread
/// (a thread that waits for SIGTERM and SIGINT, a test) writes a byte that
/// the loop polls `descriptor` for. It owns both ends.
package final class StopPipe: Sendable {
    private let reading: FileDescriptor
    private let writing: FileDescriptor

    /// A new pipe, non-blocking and close-on-exec. The corresponding C functions are `pipe` and `fcntl`.
    /// - Throws: why the system made none.
    package init() throws(SystemError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SystemError.current() }
        reading = FileDescriptor(adopting: ends[0])
        writing = FileDescriptor(adopting: ends[1])
        for end in ends {
            guard fcntl(end, F_SETFD, FD_CLOEXEC) == 0, fcntl(end, F_SETFL, O_NONBLOCK) == 0 else { throw SystemError.current() }
        }
    }

    /// The end to poll for POLLIN.
    package var descriptor: Int32 { reading.rawValue }

    /// Asks the loop to stop. Safe from any thread, any number of times.
    package func stop() {
        var byte: UInt8 = 1
        _ = SystemCall.retrying { write(writing.rawValue, &byte, 1) }
    }
}
