/// One in-process measurement: an operation repeated in the shared loop.
struct LoopBenchmark {
    /// A short stable name, used as the JSON key ("baseline", "deliver-reuse", …).
    var key: String
    /// What is measured, for the table.
    var title: String
    /// One operation. It returns a number derived from its result, which the
    /// loop sums and hands to `Sink`, so that the work cannot be optimized away.
    var operation: () -> UInt64
}

/// What a `LoopBenchmark` measured.
struct LoopResult {
    /// The benchmark's key.
    var key: String
    /// The benchmark's title.
    var title: String
    /// Operations per timed repetition.
    var iterations: Int
    /// Nanoseconds per operation, one value per repetition.
    var samples: [Double]

    /// The median nanoseconds per operation.
    var median: Double { Statistics.median(samples) }
    /// The fastest repetition's nanoseconds per operation.
    var minimum: Double { samples.min()! }
    /// The slowest repetition's nanoseconds per operation.
    var maximum: Double { samples.max()! }
    /// Operations per second at the median.
    var operationsPerSecond: Double { 1e9 / median }
}
