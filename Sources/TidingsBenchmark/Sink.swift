import Synchronization

/// Where measured loops put what they computed, so the optimizer cannot
/// prove the work unused and delete it (the "black box" of other
/// benchmark libraries).
enum Sink {
    /// The last value kept. An atomic store is a side effect the optimizer must keep.
    private static let storage = Atomic<UInt64>(0)

    /// Keeps `value` observable.
    @inline(never)
    static func keep(_ value: UInt64) {
        storage.store(value, ordering: .relaxed)
    }

    /// Returns `benchmark` through a call the optimizer cannot see into, so
    /// that a closure written in place is timed like one made elsewhere: not
    /// specialized and inlined into the loop, but called once per operation.
    @inline(never)
    static func opaque(_ benchmark: LoopBenchmark) -> LoopBenchmark {
        benchmark
    }

    /// The last value kept (printed nowhere; it exists so the store has a reader).
    static var last: UInt64 { storage.load(ordering: .relaxed) }
}
