import Glibc
import TidingsBase

/// What a worker process does to itself before it loads an extension: it
/// gives up what it does not need, so that the extension cannot use it.
///
/// Both functions change the whole process, so a worker calls them once,
/// early: after it connected to the host and before it loads the library.
/// `enter` closes every descriptor it is not told to keep, including those a
/// library (libdispatch's epoll descriptor, say) opened behind the worker's
/// back, so nothing may be running that holds one.
package enum WorkerSandbox {
    /// What `enter` set, for the worker's report to the host.
    package struct Applied: Sendable, Equatable {
        /// The data segment limit (`RLIMIT_DATA`) in bytes, or nil when there is none.
        package var dataLimit: UInt64?
        /// How many descriptors were closed, as `/proc/self/fd` listed them
        /// (0 when it could not be read but `close_range` closed them anyway).
        package var closedDescriptors: Int
    }

    /// Drops what a worker does not need:
    /// - no new privileges (`PR_SET_NO_NEW_PRIVS`): nothing it executes gains any;
    /// - every descriptor but 0, 1, 2 and `keeping` closed (`close_range`, or one
    ///   by one as `/proc/self/fd` lists them where the kernel lacks it);
    /// - no core file (`RLIMIT_CORE` 0): a deliberate crash leaves nothing behind;
    /// - with a `memoryLimit`, a data limit (`RLIMIT_DATA`) of the data size the
    ///   worker already uses (`VmData` of `/proc/self/status`) plus `memoryLimit`,
    ///   so that the extension gets `memoryLimit` bytes of its own. Since Linux
    ///   4.7 the limit covers `brk` and private writable mappings (`malloc`'s
    ///   large blocks, thread stacks); an allocation beyond it fails.
    ///
    /// Limits are set as both soft and hard limits, so the extension cannot
    /// raise them again (and neither can the worker). A limit above the
    /// current hard limit is lowered to it.
    /// - Parameters:
    ///   - memoryLimit: the bytes the extension may allocate; nil for no data limit.
    ///   - keeping: descriptors to leave open besides 0, 1 and 2 (the host's socket,
    ///     the read end of `captureStandardOutput`); numbers below 3 are ignored.
    /// - Returns: what was set.
    package static func enter(memoryLimit: UInt64?, keeping: [Int32]) throws(SystemError) -> Applied {
        try forbidNewPrivileges()
        let closed = try closeDescriptors(keeping: keeping)
        _ = try setLimit(RLIMIT_CORE, to: 0)
        var dataLimit: UInt64?
        if let memoryLimit {
            let wanted = Self.dataLimit(currentSize: try currentDataSize(), allowance: memoryLimit)
            let set = try setLimit(RLIMIT_DATA, to: wanted)
            dataLimit = set == unlimited ? nil : set
        }
        return Applied(dataLimit: dataLimit, closedDescriptors: closed)
    }

    /// Redirects descriptor 1 (standard output) into a new pipe and returns
    /// the pipe's read end, so that what an extension prints never reaches
    /// anyone's standard output; the worker reads it and reports it.
    ///
    /// Buffered output of the C library's `stdout` is flushed first. Someone
    /// must keep reading: an extension that fills the pipe (64 KiB) blocks
    /// in its next write until it is drained.
    /// The corresponding C functions are `pipe2` and `dup2`.
    package static func captureStandardOutput() throws(SystemError) -> FileDescriptor {
        fflush(nil)  // every stream: `stdout` is a C global Swift 6 will not touch
        return try redirect(STDOUT_FILENO)
    }

    // MARK: - Parts, tested on their own

    /// Points `target` at the write end of a new pipe and returns the read end
    /// (close-on-exec; `target` itself is not).
    static func redirect(_ target: Int32) throws(SystemError) -> FileDescriptor {
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        guard let pipe2 = CLibrary.function("pipe2", as: Pipe2.self) else { throw SystemError(code: ENOSYS) }
        var ends: [Int32] = [-1, -1]
        guard pipe2(&ends, O_CLOEXEC) == 0 else { throw SystemError.current() }
        // With `target` closed, the pipe may have been given its number;
        // both ends move above 2 first, so that `dup2` closes neither.
        let readEnd = try descriptorAboveStandard(ends[0])
        let writeEnd = try descriptorAboveStandard(ends[1])
        while dup2(writeEnd.rawValue, target) < 0 {
            guard errno == EINTR || errno == EBUSY else { throw SystemError.current() }
        }
        return readEnd
    }

    /// An owner of `descriptor`, moved to a number above 2 (close-on-exec) when it is 0, 1 or 2.
    private static func descriptorAboveStandard(_ descriptor: Int32) throws(SystemError) -> FileDescriptor {
        let owner = FileDescriptor(adopting: descriptor)
        guard descriptor <= STDERR_FILENO else { return owner }
        let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        guard moved >= 0 else { throw SystemError.current() }
        return FileDescriptor(adopting: moved)
    }

    /// `VmData` of a `/proc/PID/status` text, in bytes: the process's private
    /// writable memory, as `RLIMIT_DATA` counts it. Nil when the text has no
    /// such line or it is not a number of kB.
    static func dataSize(inStatus text: String) -> UInt64? {
        for line in text.split(separator: "\n") where line.hasPrefix("VmData:") {
            let fields = line.dropFirst("VmData:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2, fields[1] == "kB", let kilobytes = UInt64(fields[0]) else { return nil }
            let (bytes, overflow) = kilobytes.multipliedReportingOverflow(by: 1024)
            return overflow ? nil : bytes
        }
        return nil
    }

    /// The data limit that leaves `allowance` bytes beyond `currentSize`:
    /// their sum, or `unlimited` when it does not fit.
    static func dataLimit(currentSize: UInt64, allowance: UInt64) -> UInt64 {
        let (sum, overflow) = currentSize.addingReportingOverflow(allowance)
        return overflow || sum >= unlimited ? unlimited : sum
    }

    /// The inclusive ranges of descriptors 3 and up that are not in `keeping`,
    /// in order, the last one open-ended (up to `UInt32.max`), as `close_range` takes them.
    static func rangesToClose(keeping: [Int32]) -> [ClosedRange<UInt32>] {
        var ranges: [ClosedRange<UInt32>] = []
        var first: UInt32 = 3
        for kept in Set(keeping.filter { $0 >= 3 }).sorted().map(UInt32.init) {
            if kept > first { ranges.append(first...(kept - 1)) }
            first = kept + 1
        }
        ranges.append(first...UInt32.max)
        return ranges
    }

    /// The descriptors open in this process, as `/proc/self/fd` lists them
    /// (without the one the listing itself uses).
    /// The corresponding C functions are `opendir` and `readdir`.
    static func openDescriptors() throws(SystemError) -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { throw SystemError.current() }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var descriptors: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let descriptor = Int32(name), descriptor != own { descriptors.append(descriptor) }
        }
        return descriptors.sorted()
    }

    // MARK: - Steps of `enter`

    /// `prctl(PR_SET_NO_NEW_PRIVS, 1)`: no `execve` of this process or its
    /// children gains privileges (set-user-ID, file capabilities) again.
    /// The corresponding C function is `prctl`.
    private static func forbidNewPrivileges() throws(SystemError) {
        // `prctl` is variadic, which Swift cannot call; glibc's reads its four
        // optional arguments as unsigned longs without `va_arg` on x86_64 and
        // AArch64, so a fixed five-argument signature calls it correctly.
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let prctl = CLibrary.function("prctl", as: Prctl.self) else { throw SystemError(code: ENOSYS) }
        let setNoNewPrivileges: Int32 = 38  // PR_SET_NO_NEW_PRIVS, <linux/prctl.h>
        guard prctl(setNoNewPrivileges, 1, 0, 0, 0) == 0 else { throw SystemError.current() }
    }

    /// Closes every descriptor but 0, 1, 2 and `keeping`, and says how many were open.
    private static func closeDescriptors(keeping: [Int32]) throws(SystemError) -> Int {
        let kept = Set(keeping)
        let listed: [Int32]?
        let listing: SystemError?
        do {
            listed = try openDescriptors().filter { $0 > STDERR_FILENO && !kept.contains($0) }
            listing = nil
        } catch {
            listed = nil
            listing = error
        }
        if closeRanges(rangesToClose(keeping: keeping)) { return listed?.count ?? 0 }
        guard let listed else { throw listing ?? SystemError(code: ENOSYS) }
        for descriptor in listed { close(descriptor) }
        return listed.count
    }

    /// Closes `ranges` with `close_range`: glibc's function (2.34 and later)
    /// or else the system call. False when the kernel has none (before 5.9).
    /// The corresponding C function is `close_range`.
    private static func closeRanges(_ ranges: [ClosedRange<UInt32>]) -> Bool {
        typealias CloseRange = @convention(c) (UInt32, UInt32, Int32) -> Int32
        // `syscall` is variadic; glibc's passes its integer arguments on in registers.
        typealias Syscall = @convention(c) (Int, Int, Int, Int) -> Int
        let closeRangeCall = 436  // SYS_close_range, the same number on every architecture
        let closeRange: (ClosedRange<UInt32>) -> Bool
        if let function = CLibrary.function("close_range", as: CloseRange.self) {
            closeRange = { function($0.lowerBound, $0.upperBound, 0) == 0 }
        } else if let syscall = CLibrary.function("syscall", as: Syscall.self) {
            closeRange = { syscall(closeRangeCall, Int($0.lowerBound), Int($0.upperBound), 0) == 0 }
        } else {
            return false
        }
        for range in ranges {
            guard closeRange(range) else { return false }
        }
        return true
    }

    /// `VmData` of `/proc/self/status`, in bytes.
    private static func currentDataSize() throws(SystemError) -> UInt64 {
        guard let bytes = try? FileSystem.readFile("/proc/self/status", limit: 1 << 20) else {
            throw SystemError(code: EIO)
        }
        guard let size = dataSize(inStatus: String(decoding: bytes, as: UTF8.self)) else {
            throw SystemError(code: ENODATA)
        }
        return size
    }

    /// Sets `resource`'s soft and hard limits to `value`, or to the hard limit
    /// when that is lower, and returns what it set.
    /// The corresponding C functions are `getrlimit` and `setrlimit`.
    private static func setLimit(_ resource: __rlimit_resource, to value: UInt64) throws(SystemError) -> UInt64 {
        let which = __rlimit_resource_t(resource.rawValue)
        var limit = rlimit()
        guard getrlimit(which, &limit) == 0 else { throw SystemError.current() }
        let applied = UInt64(limit.rlim_max) == unlimited ? rlim_t(value) : min(rlim_t(value), limit.rlim_max)
        limit.rlim_cur = applied
        limit.rlim_max = applied
        guard setrlimit(which, &limit) == 0 else { throw SystemError.current() }
        return UInt64(applied)
    }

    /// `RLIM_INFINITY`, `(rlim_t) -1`, which Swift imports as an overflowing literal.
    static let unlimited = UInt64.max
}
