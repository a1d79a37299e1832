import TidingsBase

/// What the folds of the journal into snapshots have done: the last one,
/// and how long they take.
package struct FoldReport: Sendable, Equatable {
    /// How many folds finished.
    package var count = 0
    /// The generation of the last snapshot written.
    package var generation: UInt64 = 0
    /// How many records the last snapshot holds.
    package var records = 0
    /// How long the last fold took, in seconds: applying the records, writing and flushing the snapshot.
    package var lastDuration = 0.0
    /// How long the longest fold took, in seconds.
    package var longestDuration = 0.0
    /// Why the last fold failed, when it did; it is tried again.
    package var failure: Diagnostic?
    /// True while a fold runs (in `server.describe`, also while a sealed batch waits for one).
    package var running = false

    /// No fold yet.
    package init() {}

    /// The report as JSON: `{"count", "generation", "records", "lastMilliseconds", "longestMilliseconds", "running", "failure"?}`.
    package var json: JSON {
        var members: [(String, JSON)] = [
            ("count", .integer(Int64(count))), ("generation", .integer(Int64(generation))),
            ("records", .integer(Int64(records))),
            ("lastMilliseconds", .double((lastDuration * 1e4).rounded() / 10)),
            ("longestMilliseconds", .double((longestDuration * 1e4).rounded() / 10)),
            ("running", .bool(running)),
        ]
        if let failure { members.append(("failure", failure.json)) }
        return .object(members)
    }
}
