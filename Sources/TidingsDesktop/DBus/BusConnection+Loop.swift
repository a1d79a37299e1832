import Glibc

/// The event loop: sd-bus reads and dispatches messages only when asked, on
/// the connection's thread. A front end either calls `run(until:)`, or polls
/// `descriptor` for `events` (at most until `timeout`) in its own loop and
/// calls `processPending` when it is ready.
extension BusConnection {
    /// The connection's socket, to poll in another event loop.
    package var descriptor: Int32 { sd.getFD(bus) }

    /// The `poll` events to wait for on `descriptor` (POLLIN, POLLOUT).
    package var events: Int16 { Int16(truncatingIfNeeded: max(sd.getEvents(bus), 0)) }

    /// The CLOCK_MONOTONIC time, in microseconds, by which `processPending`
    /// must be called even if `descriptor` is quiet; nil when there is none.
    package var timeout: UInt64? {
        var usec: UInt64 = 0
        return sd.getTimeout(bus, &usec) >= 0 && usec != UInt64.max ? usec : nil
    }

    /// Reads and dispatches the messages that are ready (signals to their
    /// handlers, calls to exported objects), at most `maximum` of them, without blocking.
    /// - Returns: true when it stopped at `maximum` (more may be ready: call it again without polling).
    @discardableResult
    package func processPending(maximum: Int = .max) throws(BusError) -> Bool {
        for _ in 0..<maximum {
            let result = sd.process(bus, nil)
            if result < 0 {
                throw BusError(BusError.operationFailed, errno: result, "cannot process the D-Bus connection")
            }
            if result == 0 { return false }
        }
        return true
    }

    /// Blocks until the connection has something to process, or `microseconds` pass.
    package func waitForActivity(microseconds: UInt64) throws(BusError) {
        let result = sd.wait(bus, microseconds)
        if result < 0 && result != -EINTR {
            throw BusError(BusError.operationFailed, errno: result, "cannot wait on the D-Bus connection")
        }
    }

    /// Processes messages until `condition` holds (checked after each round),
    /// for at most `seconds`.
    /// - Returns: true when `condition` held; false when `seconds` passed first.
    package func run(until condition: () -> Bool, seconds: Double) throws(BusError) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let deadline = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + seconds
        while true {
            try processPending()
            if condition() { return true }
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = deadline - (Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
            if left <= 0 { return false }
            try waitForActivity(microseconds: UInt64(left * 1e6))
        }
    }
}
