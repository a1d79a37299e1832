import TidingsBase

/// Times `LoopBenchmark`s: finds an iteration count that makes a repetition
/// last at least the minimum time (which also warms caches, the allocator and
/// the runtime's tables up), then times the repetitions.
struct LoopTimer {
    /// Timed repetitions per benchmark.
    var repetitions: Int
    /// The shortest a repetition may last, in nanoseconds.
    var minimumNanoseconds: Double
    /// A fixed count of operations per repetition, instead of calibrating (for profilers).
    var fixedIterations: Int?

    /// Measures `benchmark`.
    func measure(_ benchmark: LoopBenchmark) -> LoopResult {
        let iterations = fixedIterations ?? calibrate(benchmark)
        let samples = (0..<repetitions).map { _ in
            Double(Self.time(iterations, benchmark.operation)) / Double(iterations)
        }
        return LoopResult(key: benchmark.key, title: benchmark.title, iterations: iterations, samples: samples)
    }

    /// The iteration count that makes a repetition last at least the minimum time.
    private func calibrate(_ benchmark: LoopBenchmark) -> Int {
        // Calibrate: grow the count tenfold until a run lasts a tenth of the minimum.
        var iterations = 1
        var elapsed = Double(Self.time(iterations, benchmark.operation))
        while elapsed < minimumNanoseconds / 10 && iterations < 1 << 40 {
            iterations *= 10
            elapsed = Double(Self.time(iterations, benchmark.operation))
        }
        return max(iterations, Int((minimumNanoseconds / (elapsed / Double(iterations))).rounded(.up)))
    }

    /// The loop every benchmark shares, baseline included: `iterations` calls
    /// of `operation`, its results summed into the sink. Returns nanoseconds
    /// on the monotonic clock. Never inlined, so no benchmark gets a loop the
    /// optimizer shaped differently.
    @inline(never)
    static func time(_ iterations: Int, _ operation: () -> UInt64) -> UInt64 {
        var total: UInt64 = 0
        let start = MonotonicClock.now()
        for _ in 0..<iterations {
            total &+= operation()
        }
        let end = MonotonicClock.now()
        Sink.keep(total)
        return end - start
    }
}
