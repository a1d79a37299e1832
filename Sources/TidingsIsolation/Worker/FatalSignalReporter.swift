import Glibc
import TidingsBase
import TidingsSystemShims
import TidingsRuntime

/// Tells a stack overflow and running out of memory from other crashes, so
/// that the host can say which it was: all end the worker by a signal
/// (`SIGSEGV`, or `SIGABRT` when the code aborts on a failed allocation).
///
/// `install` gives the calling thread an alternate signal stack (an
/// overflowing thread has no stack left to run a handler on) and installs a
/// process-wide handler of the fatal signals (`SIGSEGV`, `SIGBUS`, `SIGABRT`,
/// `SIGILL`, `SIGTRAP`, `SIGFPE`). When a segmentation fault's address lies
/// within 64 KiB of the low end of the registered thread's stack (its guard
/// page, or just past it), the handler sends the overflow message to a
/// descriptor; otherwise, when a 1 MiB mapping cannot be made any more (the
/// data limit is reached), it sends the out-of-memory message. Then it
/// returns, and since the handler was reset to the default action
/// (`SA_RESETHAND`) the faulting instruction faults again (a signal that
/// was sent is raised again) and the process dies by it as usual, without
/// a core file where `WorkerSandbox.enter` forbade them.
///
/// The handler is async-signal-safe: it allocates nothing, takes no lock
/// and calls nothing of the Swift runtime; it reads only `ReporterState`,
/// prepared before the handler is installed.
package enum FatalSignalReporter {
    /// How far below and above the stack's low end a fault counts as an overflow.
    static let window: UInt = 64 * 1024

    /// Registers the calling thread: a fault next to its stack's low end
    /// sends `overflow` to `descriptor` before the process dies; another
    /// fatal signal with memory exhausted sends `outOfMemory`.
    ///
    /// The message is sent with `send(MSG_DONTWAIT | MSG_NOSIGNAL)`, as one
    /// datagram on a datagram or sequenced-packet socket, or with `write`
    /// when `descriptor` is not a socket; it is lost when it does not fit.
    /// Call it once, on the thread that runs the extension's calls; a second
    /// call registers its own thread in place of the first (the earlier
    /// message and alternate stack are kept, not freed, as a handler may
    /// still be reading them). It replaces whatever handled those signals
    /// before (the Swift runtime's backtracer, say).
    /// The corresponding C functions are `sigaltstack` and `sigaction`.
    package static func install(reportTo descriptor: Int32, overflow: [UInt8], outOfMemory: [UInt8]) throws(SystemError) {
        let stack = try currentThreadStack()
        try prepare(reportTo: descriptor, message: overflow, stackLow: stack.low)
        state.pointee.memoryMessage = permanentCopy(outOfMemory)
        state.pointee.memoryCount = outOfMemory.count
        try installAlternateStack()
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = handleFault
        action.sa_flags = SA_ONSTACK | SA_SIGINFO | Int32(bitPattern: UInt32(SA_RESETHAND))
        sigemptyset(&action.sa_mask)
        for signal in [SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP, SIGFPE] {
            guard sigaction(signal, &action, nil) == 0 else { throw SystemError.current() }
        }
    }

    // MARK: - Parts, tested on their own

    /// What the handler reads: plain integers and raw pointers, written before
    /// the handler is installed.
    struct ReporterState {
        /// The lowest faulting address that counts as an overflow.
        var low: UInt = 0
        /// The first address above the window.
        var high: UInt = 0
        /// Where the message goes; -1 before `prepare`.
        var descriptor: Int32 = -1
        /// The message's bytes, allocated by `prepare` and never freed.
        var message: UnsafeRawPointer?
        /// The message's length in bytes.
        var count: Int = 0
        /// The out-of-memory message's bytes, never freed.
        var memoryMessage: UnsafeRawPointer?
        /// Its length in bytes.
        var memoryCount: Int = 0
    }

    /// The one `ReporterState`, allocated on first use (in `prepare`, before
    /// any handler reads it); the handler reads it through this pointer.
    nonisolated(unsafe) static let state: UnsafeMutablePointer<ReporterState> = {
        let state = UnsafeMutablePointer<ReporterState>.allocate(capacity: 1)
        state.initialize(to: ReporterState())
        return state
    }()

    /// The addresses, from `low` up to but not including `high`, whose fault
    /// counts as an overflow of a stack whose lowest usable address is `stackLow`.
    static func guardWindow(stackLow: UInt) -> (low: UInt, high: UInt) {
        let low = stackLow >= window ? stackLow - window : 0
        let (high, overflow) = stackLow.addingReportingOverflow(window)
        return (low, overflow ? UInt.max : high)
    }

    /// The calling thread's stack: its lowest usable address and its size in bytes.
    /// The corresponding C functions are `pthread_getattr_np` and `pthread_attr_getstack`.
    static func currentThreadStack() throws(SystemError) -> (low: UInt, size: Int) {
        var low: UInt = 0
        var size = 0
        let status = tidings_thread_stack(&low, &size)
        guard status == 0 else { throw SystemError(code: -status) }
        return (low, size)
    }

    /// Fills `state` for a stack whose lowest usable address is `stackLow`,
    /// copying `message` into storage of its own.
    static func prepare(reportTo descriptor: Int32, message: [UInt8], stackLow: UInt) throws(SystemError) {
        guard descriptor >= 0 else { throw SystemError(code: EBADF) }
        let window = guardWindow(stackLow: stackLow)
        state.pointee = ReporterState(low: window.low, high: window.high, descriptor: descriptor,
                                      message: permanentCopy(message), count: message.count)
    }

    /// `bytes` in storage that is never freed; nil when empty.
    private static func permanentCopy(_ bytes: [UInt8]) -> UnsafeRawPointer? {
        guard !bytes.isEmpty else { return nil }
        let storage = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return UnsafeRawPointer(storage)
    }

    /// Sends `count` bytes at `message` to `descriptor`, as one datagram (or
    /// written, when it is no socket). Async-signal-safe.
    private static func report(_ message: UnsafeRawPointer, _ count: Int, to descriptor: Int32) {
        if send(descriptor, message, count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) < 0, errno == ENOTSOCK {
            _ = write(descriptor, message, count)
        }
    }

    /// True when a 1 MiB private mapping cannot be made: the data limit is
    /// reached. Async-signal-safe (`mmap` and `munmap` are plain system calls).
    private static var memoryIsExhausted: Bool {
        let size = 1 << 20
        guard let probe = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              probe != UnsafeMutableRawPointer(bitPattern: -1)
        else { return true }
        munmap(probe, size)
        return false
    }

    /// The handler: reports a fault in the window, then returns so that the
    /// fault repeats under the default action. Async-signal-safe.
    static let handleFault: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
        signal, info, _ in
        guard let info else { return }
        let state = FatalSignalReporter.state
        let faulted = info.pointee.si_code > 0  // a fault of the kernel's, not a signal someone sent
        var overflowed = false
        if faulted && (signal == SIGSEGV || signal == SIGBUS) {
            let address = UInt(bitPattern: info.pointee._sifields._sigfault.si_addr)
            overflowed = address >= state.pointee.low && address < state.pointee.high
        }
        if overflowed, let message = state.pointee.message {
            report(message, state.pointee.count, to: state.pointee.descriptor)
        } else if let message = state.pointee.memoryMessage, memoryIsExhausted {
            report(message, state.pointee.memoryCount, to: state.pointee.descriptor)
        }
        // A fault repeats once the handler returns; a sent signal (kill, raise, abort) is raised
        // again, now under the default action that `SA_RESETHAND` restored.
        if !faulted { raise(signal) }
    }

    /// Gives the calling thread an alternate signal stack of its own
    /// (64 KiB, or more when the system asks for more, above a guard page).
    /// The corresponding C functions are `mmap` and `sigaltstack`.
    private static func installAlternateStack() throws(SystemError) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let wanted = max(64 * 1024, Int(sysconf(Int32(_SC_SIGSTKSZ))), Int(MINSIGSTKSZ))
        let size = (wanted + page - 1) / page * page
        guard let mapping = mmap(nil, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              mapping != UnsafeMutableRawPointer(bitPattern: -1)
        else { throw SystemError.current() }
        guard mprotect(mapping, page, PROT_NONE) == 0 else {
            let failure = SystemError.current()
            munmap(mapping, size + page)
            throw failure
        }
        var stack = stack_t(ss_sp: mapping + page, ss_flags: 0, ss_size: size)
        guard sigaltstack(&stack, nil) == 0 else {
            let failure = SystemError.current()
            munmap(mapping, size + page)
            throw failure
        }
    }
}
