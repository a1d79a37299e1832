import Glibc

/// Threads of the process's own, for work that must not wait on a pool: a
/// server's readers, a watchdog.
package enum Threads {
    /// Starts a detached thread running `body`, with a stack of `stackSize`
    /// bytes (the system's default, `RLIMIT_STACK`'s 8 MiB most often, when nil).
    /// The corresponding C function is `pthread_create`.
    /// - Returns: false when the system has no thread to give.
    @discardableResult
    package static func start(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize, pthread_attr_setstacksize(&attributes, stackSize) != 0 {
            return false
        }
        let box = Unmanaged.passRetained(Body(run: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { argument in
            Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, box)
        if status != 0 {
            Unmanaged<Body>.fromOpaque(box).release()
            return false
        }
        return true
    }

    /// What a new thread runs.
    private final class Body: Sendable {
        let run: @Sendable () -> Void

        init(run: @escaping @Sendable () -> Void) {
            self.run = run
        }
    }
}
