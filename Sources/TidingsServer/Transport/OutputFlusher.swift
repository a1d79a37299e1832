import Glibc
import Synchronization
import TidingsBase

/// Sends what clients could not take at once: one thread waits, with `poll`,
/// until their sockets take more, and hands each its pending output.
final class OutputFlusher: Sendable {
    /// The connections with output pending, by output descriptor.
    private let watched = Mutex<[Int32: Connection]>([:])
    /// A pipe that wakes the thread when the set changes, or to stop it.
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let stopped = Atomic<Bool>(false)

    /// Starts the thread.
    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        }
        wakeReader = ends[0]
        wakeWriter = ends[1]
        Threads.start { [self] in run() }
    }

    /// Sends `connection`'s pending output once its socket takes more.
    func watch(_ connection: Connection) {
        watched.withLock { $0[connection.output] = connection }
        wake()
    }

    /// Ends the thread.
    func stop() {
        stopped.store(true, ordering: .releasing)
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }

    private func run() {
        defer {
            close(wakeReader)
            close(wakeWriter)
        }
        while !stopped.load(ordering: .acquiring) {
            let connections = watched.withLock { Array($0.values) }
            var descriptors = [pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
            descriptors += connections.map { pollfd(fd: $0.output, events: Int16(POLLOUT), revents: 0) }
            guard SystemCall.retrying({ poll(&descriptors, nfds_t(descriptors.count), -1) }) >= 0 else { return }
            if descriptors[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(wakeReader, &drain, drain.count)
            }
            for (position, connection) in connections.enumerated() where descriptors[position + 1].revents != 0 {
                // Taken off before flushing: output pushed meanwhile watches it again.
                watched.withLock { $0[connection.output] = nil }
                if connection.flush() { watched.withLock { $0[connection.output] = connection } }
            }
        }
    }
}
