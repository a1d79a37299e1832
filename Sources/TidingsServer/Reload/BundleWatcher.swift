import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// Watches extension directories with inotify and says, once things have
/// settled, that bundles were added, removed, renamed, replaced or edited.
///
/// It watches each directory of the search path and each `NAME.appex` in it
/// (for an edited Info.plist or a replaced library). Events are gathered
/// until `quiet` passes without another — a bundle being copied in makes
/// many — then `changed` is called once, on the watcher's thread.
package final class BundleWatcher: Sendable {
    private let inotify: Int32
    private let directories: [String]
    private let quiet: Int32
    private let changed: @Sendable () -> Void
    /// The directories watched, by watch descriptor.
    private let watched = Mutex<[Int32: String]>([:])
    /// Rung by `stop()`: the thread waits on it beside inotify, so that it
    /// sleeps until something happens, never waking to look.
    private let stopBell: FileDescriptor

    /// Watches `directories`; calls `changed` after a burst of changes, once
    /// `quiet` milliseconds have passed without one.
    /// - Returns: nil when inotify cannot be had (the server then serves without live reload).
    package init?(directories: [String], quiet milliseconds: Int32 = 30, changed: @escaping @Sendable () -> Void) {
        guard let bell = try? FileDescriptor(adoptingResult: tidings_eventfd()) else { return nil }
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { return nil }
        stopBell = bell
        self.directories = directories
        quiet = milliseconds
        self.changed = changed
        refreshWatches()
        Threads.start { [self] in run() }
    }

    /// Stops watching.
    package func stop() {
        var one: UInt64 = 1
        _ = write(stopBell.rawValue, &one, 8)
    }

    /// The events that mean a bundle changed.
    private static let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB
        | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Watches every search-path directory and every bundle in them, and
    /// forgets the watches of what is gone.
    private func refreshWatches() {
        var wanted = Set(directories)
        for directory in directories {
            for entry in (try? FileSystem.entries(of: directory)) ?? []
            where Path.pathExtension(of: entry.name) == "appex" {
                wanted.insert(Path.join(directory, entry.name))
            }
        }
        let current = watched.withLock { Set($0.values) }
        for path in wanted.subtracting(current) {
            let descriptor = inotify_add_watch(inotify, path, Self.mask)
            if descriptor >= 0 { watched.withLock { $0[descriptor] = path } }
        }
        watched.withLock { watched in
            for (descriptor, path) in watched where !wanted.contains(path) {
                inotify_rm_watch(inotify, descriptor)
                watched[descriptor] = nil
            }
        }
    }

    private func run() {
        defer { close(inotify) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var pending = false
        while true {
            var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: stopBell.rawValue, events: Int16(POLLIN), revents: 0)]
            // Asleep until an event or `stop()`; after an event, until `quiet` passes without another.
            let ready = SystemCall.retrying { poll(&descriptors, 2, pending ? quiet : -1) }
            if descriptors[1].revents != 0 { return }
            if ready > 0 && descriptors[0].revents != 0 {
                // What the events say does not matter: a rescan looks at everything.
                _ = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                pending = true
            } else if ready == 0 && pending {
                pending = false
                refreshWatches()
                changed()
            } else if ready < 0 {
                return
            }
        }
    }
}
