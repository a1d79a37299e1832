/// Order statistics of a sample.
enum Statistics {
    /// The median: the middle value, or the mean of the two middle values.
    static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "the median of no values")
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The `fraction` percentile by the nearest-rank method (0.95 for p95):
    /// the smallest value with at least that fraction of the sample at or below it.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        precondition(!values.isEmpty, "the percentile of no values")
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
