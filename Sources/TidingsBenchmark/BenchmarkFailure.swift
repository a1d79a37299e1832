/// Why the benchmark cannot go on: a product that is not built, a setup step
/// that failed, or a result that shows the runtime did not do the work.
struct BenchmarkFailure: Error {
    /// One plain sentence, printed after "tidings-benchmark: ".
    var message: String

    /// A failure saying `message`.
    init(_ message: String) {
        self.message = message
    }
}
