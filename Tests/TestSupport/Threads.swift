import Glibc

/// Runs `body(0)` … `body(count - 1)` each on its own POSIX thread, all at
/// once, and waits for them: real threads, so that calls that block (an
/// extension taking its time) still overlap, however few cores there are.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    /// A thread's closure, boxed to cross `pthread_create`'s raw pointer.
    final class Work {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    let threads = (0..<count).map { index in
        var thread = pthread_t()
        let work = Unmanaged.passRetained(Work { body(index) }).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            Unmanaged<Work>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, work)
        precondition(created == 0, "pthread_create failed")
        return thread
    }
    for thread in threads { pthread_join(thread, nil) }
}
