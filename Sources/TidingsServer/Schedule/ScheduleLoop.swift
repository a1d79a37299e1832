import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// The one thread that fires pending requests on time: it sleeps in epoll
/// until the earliest is due, on
/// - a `CLOCK_REALTIME` timerfd armed at the earliest calendar date, with
///   `TFD_TIMER_CANCEL_ON_SET`: setting the wall clock wakes it (ECANCELED)
///   and calendar requests are re-armed; intervals are left alone;
/// - a `CLOCK_BOOTTIME` timerfd armed at the earliest interval deadline
///   (it counts a suspend: an interval lasts its real time across one);
/// - an inotify watch of `/etc` for `localtime` (the machine's time zone
///   changed: calendar requests are re-evaluated in the new zone);
/// - an eventfd that wakes it when an earlier request is armed, or to stop.
///
/// No periodic tick: an idle server with pending requests makes no wake-up
/// until the earliest is due. The thread starts with the first request armed.
final class ScheduleLoop: Sendable {
    /// The descriptors, made with the thread and owned by it.
    private final class Descriptors: Sendable {
        let epoll: Epoll
        let bell: FileDescriptor
        let wallTimer: FileDescriptor
        let elapsedTimer: FileDescriptor
        /// The inotify instance watching /etc; -1 when it cannot be had (zone changes are then noticed at restart).
        let zoneWatch: FileDescriptor

        init() throws(SystemError) {
            epoll = try Epoll()
            bell = try FileDescriptor(adoptingResult: tidings_eventfd())
            wallTimer = try FileDescriptor(adoptingResult: tidings_timerfd_on(CLOCK_REALTIME))
            elapsedTimer = try FileDescriptor(adoptingResult: tidings_timerfd_on(CLOCK_BOOTTIME))
            zoneWatch = FileDescriptor(adopting: inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)))
            try epoll.add(bell.rawValue, for: .readable, token: Token.bell.rawValue)
            try epoll.add(wallTimer.rawValue, for: .readable, token: Token.wall.rawValue)
            try epoll.add(elapsedTimer.rawValue, for: .readable, token: Token.elapsed.rawValue)
            if zoneWatch.rawValue >= 0,
               inotify_add_watch(zoneWatch.rawValue, "/etc", UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE)) >= 0 {
                try epoll.add(zoneWatch.rawValue, for: .readable, token: Token.zone.rawValue)
            }
        }
    }

    /// What each descriptor is added to epoll as.
    private enum Token: UInt64 {
        case bell, wall, elapsed, zone
    }

    /// The thread's state: not started, running over its descriptors, or stopped.
    private enum Phase {
        case idle
        case running(Descriptors)
        case stopped
    }

    private let phase = Mutex(Phase.idle)
    /// The scheduler served; set once, before the thread starts.
    private let scheduler = Mutex<WeakScheduler>(WeakScheduler())

    /// A loop not started yet.
    init() {}

    /// Serves `scheduler` from now on.
    func attach(_ scheduler: PendingScheduler) {
        self.scheduler.withLock { $0.value = scheduler }
    }

    /// Wakes the thread to look at the heaps again, starting it the first time.
    func wake() {
        let descriptors: Descriptors? = phase.withLock { phase in
            switch phase {
            case .running(let descriptors): return descriptors
            case .stopped: return nil
            case .idle:
                guard let made = try? Descriptors() else { return nil }
                guard Threads.start({ [self] in run(made) }) else { return nil }
                phase = .running(made)
                return nil
            }
        }
        if let descriptors { ring(descriptors.bell) }
    }

    /// Ends the thread.
    func stop() {
        let descriptors: Descriptors? = phase.withLock { phase in
            defer { phase = .stopped }
            if case .running(let descriptors) = phase { return descriptors }
            return nil
        }
        if let descriptors { ring(descriptors.bell) }
    }

    /// Writes to the eventfd `bell`.
    private func ring(_ bell: borrowing FileDescriptor) {
        var one: UInt64 = 1
        _ = SystemCall.retrying { write(bell.rawValue, &one, 8) }
    }

    /// The thread: fires what is due, arms the timers for what comes next, sleeps until one of its descriptors wakes it.
    private func run(_ descriptors: Descriptors) {
        withUnsafeTemporaryAllocation(of: tidings_epoll_ready.self, capacity: 4) { ready in
            while true {
                // The scheduler held only while it runs: one let go of ends the thread (it owns the loop).
                guard case .running = phase.withLock({ $0 }), let next = scheduler.withLock({ $0.value })?.runDue() else { return }
                _ = tidings_timerfd_arm_at(descriptors.wallTimer.rawValue, next.wall.map { max(1, $0) } ?? 0, 1)
                _ = tidings_timerfd_arm_at(descriptors.elapsedTimer.rawValue, next.elapsed.map { max(1, $0) } ?? 0, 0)
                let count = descriptors.epoll.wait(into: ready, timeout: -1)
                for event in ready.prefix(count) {
                    switch Token(rawValue: event.token) {
                    case .bell?: drain(descriptors.bell)
                    case .elapsed?: drain(descriptors.elapsedTimer)
                    case .wall?:
                        if !drain(descriptors.wallTimer) && errno == ECANCELED { scheduler.withLock { $0.value }?.clockChanged() }
                    case .zone?:
                        if Self.localtimeChanged(descriptors.zoneWatch), let scheduler = scheduler.withLock({ $0.value }),
                           let system = scheduler.clock as? SystemScheduleClock {
                            system.reloadTimeZone()
                            scheduler.timeZoneChanged()
                        }
                    case nil: break
                    }
                }
            }
        }
    }

    /// Reads the counter of the eventfd or timerfd `file`; false when there was none to read (errno says why).
    @discardableResult
    private func drain(_ file: borrowing FileDescriptor) -> Bool {
        var value: UInt64 = 0
        return SystemCall.retrying { read(file.rawValue, &value, 8) } == 8
    }

    /// Reads what inotify reports of /etc; true when `localtime` was among the names.
    private static func localtimeChanged(_ watch: borrowing FileDescriptor) -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in SystemCall.retrying { read(watch.rawValue, bytes.baseAddress, bytes.count) } }
            guard count > 0 else { return changed }
            // Each event: wd (4), mask (4), cookie (4), len (4), then len bytes of NUL-padded name.
            var offset = 0
            while offset + 16 <= count {
                let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)) }
                let name = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                if name.elementsEqual("localtime".utf8) { changed = true }
                offset += 16 + length
            }
        }
    }
}

/// The scheduler a loop serves, held weakly: the scheduler owns the loop.
private struct WeakScheduler {
    weak var value: PendingScheduler?
}
