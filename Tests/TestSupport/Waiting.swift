import Glibc

/// How long a test waits for what another thread or process does before it
/// gives up: long enough never to be what fails on a loaded machine (two
/// cores shared, load averages of 10–30). Every wait ends as soon as what it
/// waits for happens, so a passing test never waits this long; it is the
/// bound that turns a hang into a failure, not a timing the test asserts.
public let patience: Double = 60

/// Polls `condition` until it holds, for at most `seconds`: for what only
/// polling can see (a file's content, a process's memory, a state another
/// thread moves on). Where an event says it (a latch, a pipe, a server
/// event, a process's exit), wait for the event instead.
/// - Returns: true as soon as `condition` holds; false when it still did not after `seconds`.
@discardableResult
public func eventually(within seconds: Double = patience, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = monotonicSeconds() + seconds
    var pause: UInt32 = 1_000
    while try !condition() {
        if monotonicSeconds() > deadline { return try condition() }
        // The interval between looks, not a synchronisation: the condition decides.
        usleep(pause)
        pause = min(pause * 2, 20_000)
    }
    return true
}

/// Seconds on the monotonic clock.
private func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
