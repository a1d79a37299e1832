import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// Who reads a worker's channel, and the reader thread's alarm clock.
///
/// A caller waiting for its answer reads the channel itself (asleep in
/// `poll`, or first spinning when `spinTime` says so: on a machine with few
/// cores a spinning caller takes the core the worker needs to answer); the
/// reader thread watches the channel only when no caller reads it, none
/// has for a millisecond, or a caller stopped reading to wait for it (then
/// it is woken at once). Meanwhile it sleeps: a caller that stops reading
/// while the one-shot alarm (a timerfd) is not set sets it a millisecond
/// ahead; when it rings, the reader takes the channel if the quiet time has
/// passed, and otherwise sets it again for the rest of it. So a call costs
/// no timer system call (two, on a VM, cost as much as the call's own
/// work), the reader wakes at most once a millisecond while calls keep
/// coming, and once after the last.
final class ChannelReaders: Sendable {
    /// How long after the last caller reading it the reader keeps away from the channel.
    static let quietMilliseconds: Int32 = 1

    /// How long a caller spins for its answer before it sleeps, in
    /// nanoseconds: `TIDINGS_WORKER_SPIN` microseconds (read once), 0 — no
    /// spinning — when unset. It pays only where a core is free while the
    /// worker answers (see Docs/running.md).
    static let spinTime: UInt64 = {
        guard let value = getenv("TIDINGS_WORKER_SPIN").flatMap({ UInt64(String(cString: $0)) }) else { return 0 }
        return min(value, 10_000) * 1_000
    }()

    private let reading = Atomic<Int>(0)
    private let waiting = Atomic<Int>(0)
    /// When the last caller reading the channel stopped (monotonic nanoseconds).
    private let lastRead = Atomic<UInt64>(0)
    private let closed = Atomic<Bool>(false)
    /// Whether the quiet alarm is set.
    private let alarmSet = Atomic<Bool>(false)
    /// An eventfd that wakes the reader thread.
    private let wake: FileDescriptor
    /// The alarm that gives the channel back to the reader a quiet time after the last caller read it.
    private let quietAlarm: FileDescriptor

    /// Readers with an eventfd and a timerfd of their own; thrown: why none could be made (`EMFILE`, …).
    init() throws(SystemError) {
        wake = try FileDescriptor(adoptingResult: tidings_eventfd())
        quietAlarm = try FileDescriptor(adoptingResult: tidings_timerfd())
    }

    /// The timerfd to poll for the end of a quiet time.
    var alarmDescriptor: Int32 { quietAlarm.rawValue }

    /// The eventfd to poll for the reader's wake-ups.
    var wakeDescriptor: Int32 { wake.rawValue }

    /// A caller starts reading the channel for its answer.
    func beginReading() {
        reading.add(1, ordering: .relaxed)
    }

    /// A caller stopped reading the channel.
    func endReading() {
        lastRead.store(MonotonicClock.now(), ordering: .sequentiallyConsistent)
        reading.subtract(1, ordering: .sequentiallyConsistent)
        setAlarm(after: Self.quiet)
    }

    /// The quiet time, in nanoseconds.
    private static let quiet = UInt64(quietMilliseconds) * 1_000_000

    /// A caller stopped reading the channel and waits for the reader: it is woken now.
    func beginWaiting() {
        waiting.add(1, ordering: .relaxed)
        var one: UInt64 = 1
        _ = SystemCall.retrying { write(wakeDescriptor, &one, 8) }
    }

    func endWaiting() {
        waiting.subtract(1, ordering: .relaxed)
    }

    /// True when the reader thread should watch the channel now. When it
    /// should not because the last caller stopped reading less than the
    /// quiet time ago, the alarm is set for the rest of it.
    func channelIsTheReaders(now: UInt64) -> Bool {
        guard reading.load(ordering: .sequentiallyConsistent) == 0 else { return false }
        if waiting.load(ordering: .relaxed) > 0 { return true }
        // A caller may have stopped reading after `now` was read: then the channel is not the reader's yet.
        let last = lastRead.load(ordering: .sequentiallyConsistent)
        guard now > last else { return false }
        if now - last >= Self.quiet { return true }
        setAlarm(after: Self.quiet - (now - last))
        return false
    }

    /// Sets the alarm `nanoseconds` ahead unless it is set already.
    private func setAlarm(after nanoseconds: UInt64) {
        guard !alarmSet.exchange(true, ordering: .sequentiallyConsistent) else { return }
        if tidings_timerfd_arm(quietAlarm.rawValue, nanoseconds + 1) != 0 {
            alarmSet.store(false, ordering: .sequentiallyConsistent)
        }
    }

    /// Takes the reader's wake-up.
    func clearWake() {
        var count: UInt64 = 0
        _ = SystemCall.retrying { read(wakeDescriptor, &count, 8) }
    }

    /// Takes the alarm's expiry: it is no longer set.
    func clearAlarm() {
        var count: UInt64 = 0
        _ = SystemCall.retrying { read(alarmDescriptor, &count, 8) }
        alarmSet.store(false, ordering: .sequentiallyConsistent)
    }

    var channelClosed: Bool { closed.load(ordering: .relaxed) }

    func noteChannelClosed() {
        closed.store(true, ordering: .relaxed)
    }
}
