import Glibc
import TidingsBase

/// Watches the directory of the server's socket with inotify, so that the
/// front end reconnects as soon as a server puts its socket there (it
/// renames it into place once it listens) rather than at its next retry.
/// It owns its inotify descriptor; where the directory does not exist yet,
/// it watches nothing and the retry timer alone is left.
package final class SocketWatch {
    private let inotify: FileDescriptor
    private let directory: String
    private var watching = false

    /// A watch of the directory of `socketPath`.
    /// - Throws: why inotify cannot be used.
    package init(socketPath: String) throws(SystemError) {
        let created = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard created >= 0 else { throw SystemError.current() }
        inotify = FileDescriptor(adopting: created)
        directory = Path.directory(of: socketPath)
    }

    /// The descriptor to poll for POLLIN.
    package var descriptor: Int32 { inotify.rawValue }

    /// Watches the directory when it exists now; true when it is watched.
    @discardableResult
    package func arm() -> Bool {
        if !watching {
            let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB)
            watching = inotify_add_watch(inotify.rawValue, directory, mask) >= 0
        }
        return watching
    }

    /// Reads the events waiting; true when any came (something changed in the directory).
    package func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var any = false
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in
                SystemCall.retrying { read(inotify.rawValue, bytes.baseAddress, bytes.count) }
            }
            guard count > 0 else { return any }
            any = true
            // IN_IGNORED (the directory went away) ends the watch: arm again later.
            if Self.contains(IN_IGNORED, in: buffer[..<count]) { watching = false }
        }
    }

    /// True when one of the events in `bytes` has `flag` in its mask.
    private static func contains(_ flag: Int32, in bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.endIndex {
            let (mask, length) = bytes[offset..<(offset + header)].withUnsafeBytes { raw in
                (raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self), raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
            }
            if mask & UInt32(flag) != 0 { return true }
            offset += header + Int(length)
        }
        return false
    }
}
