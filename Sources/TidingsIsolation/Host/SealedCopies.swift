import Glibc
import Synchronization
import TidingsBase
import TidingsSystemShims

/// What a worker gets for an attachment it opens: a sealed copy of the
/// store's file that names nothing (a memfd called "attachment", mode
/// 0400, sealed against writing, shrinking and growing), never a
/// descriptor of the store's own file, whose link in `/proc/self/fd` would
/// name the store's path.
///
/// One copy per store file per worker connection, made on the first open
/// and kept until the worker ends or serves another instance (a descriptor the worker still holds
/// keeps the copy alive anyway, so a copy freed earlier and made again
/// would only multiply the host's memory); each open hands out a new
/// read-only description of it, with its own offset, as opening the file
/// would. The copies of one connection hold at most `byteLimit` bytes
/// together; beyond, an open finds nothing.
///
/// This class owns the copies' descriptors and closes them when it goes.
final class SealedCopies: Sendable {
    /// The most bytes the copies of one worker hold together.
    static let byteLimit: UInt64 = 256 << 20

    private struct State {
        /// Copies by the store file's device and inode.
        var copies: [FileIdentity: Int32] = [:]
        var bytes: UInt64 = 0
        var closed = false
    }

    /// A file's device and inode.
    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private let state = Mutex(State())

    init() {}

    deinit {
        release()
    }

    /// A new read-only descriptor of the sealed copy of `file` (the store's
    /// own, opened by the host), made when there is none yet; nil when it
    /// cannot be made, the copies are over their limit, or they were released.
    func open(_ file: borrowing FileDescriptor) -> FileDescriptor? {
        guard let status = try? file.status(), status.st_mode & S_IFMT == S_IFREG else { return nil }
        let identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        let size = UInt64(max(0, status.st_size))
        // Made under the lock: two opens of one file make one copy, and the connection's copying is one
        // thread's anyway (its attachment queue).
        let reopened: Int32 = state.withLock { state in
            guard !state.closed else { return -EBADF }
            if let copy = state.copies[identity] { return tidings_reopen_read_only(copy) }
            guard state.bytes + size <= Self.byteLimit else { return -EFBIG }
            let copy = tidings_sealed_copy(file.rawValue, "attachment", Self.byteLimit - state.bytes)
            guard copy >= 0 else { return copy }
            state.copies[identity] = copy
            state.bytes += size
            return tidings_reopen_read_only(copy)
        }
        return reopened >= 0 ? FileDescriptor(adopting: reopened) : nil
    }

    /// Closes every copy made so far, and makes new ones from now on (the
    /// worker's instance ended; the worker serves another).
    func clear() {
        let copies: [Int32] = state.withLock { state in
            defer { (state.copies, state.bytes) = ([:], 0) }
            return Array(state.copies.values)
        }
        for copy in copies { close(copy) }
    }

    /// Closes every copy (the worker ended): what the worker held goes with its process.
    func release() {
        let copies: [Int32] = state.withLock { state in
            state.closed = true
            defer { state.copies = [:] }
            return Array(state.copies.values)
        }
        for copy in copies { close(copy) }
    }
}
