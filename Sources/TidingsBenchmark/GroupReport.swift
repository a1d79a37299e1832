import TidingsBase

extension Report {
    /// The most a call's median latency at the largest group size may be, as a multiple of its median at the smallest.
    static let groupRatioLimit = 1.5

    /// For each call, its median at the largest group size within 1.5 × its median at the smallest.
    var groupTargets: [TargetCheck] {
        guard let first = group.first, let last = group.last, last.size > first.size else { return [] }
        return GroupBenchmark.operations.compactMap { key in
            last.ratio(key, to: first).map { ratio in
                TargetCheck(key: "group-\(key)",
                            goal: "\(key) with \(last.size) kept in one group ≤ \(NumberText.short(Self.groupRatioLimit)) × with \(first.size) (median)",
                            limit: Self.groupRatioLimit, measured: ratio, unit: "× size \(first.size)")
            }
        }
    }
}

extension GroupResult {
    /// The latency of the call `key`, if it was timed.
    func latency(_ key: String) -> GroupLatency? {
        latencies.first { $0.key == key }
    }

    /// How many times its median in `reference` the median latency of `key` is here.
    func ratio(_ key: String, to reference: GroupResult) -> Double? {
        guard let latency = latency(key), let base = reference.latency(key) else { return nil }
        return latency.medianMicroseconds / base.medianMicroseconds
    }
}

extension ReportTable {
    /// The group section's lines, with a blank line first; none when it did not run.
    static func groupLines(_ results: [GroupResult]) -> [String] {
        guard let first = results.first else { return [] }
        var lines = ["", "One group: HostService over a journaled state in this process (NoOp), one app, no thread identifier, "
            + "at most N kept (each delivery expires the oldest); median and p99 µs of each call, and the median's ratio to N = \(first.size)"]
        var header = "N".leftPadded(to: 8)
        for key in GroupBenchmark.operations {
            header += key.leftPadded(to: 14) + "p99".leftPadded(to: 10) + "×".leftPadded(to: 7)
        }
        lines.append(header)
        for result in results {
            var line = "\(result.size)".leftPadded(to: 8)
            for key in GroupBenchmark.operations {
                guard let latency = result.latency(key) else { continue }
                line += NumberText.fixed(latency.medianMicroseconds, 1).leftPadded(to: 14)
                    + NumberText.fixed(latency.p99Microseconds, 1).leftPadded(to: 10)
                    + (result.ratio(key, to: first).map { NumberText.fixed($0, 2) } ?? "-").leftPadded(to: 7)
            }
            lines.append(line)
        }
        return lines
    }
}

extension ReportJSON {
    /// The group measurements, in microseconds, one object per size.
    static func group(_ results: [GroupResult]) -> JSON {
        .array(results.map { result in
            .object([
                ("size", .integer(Int64(result.size))),
                ("calls", .object(result.latencies.map { latency in
                    (latency.key, .object([("medianMicroseconds", .double(latency.medianMicroseconds)),
                                           ("p99Microseconds", .double(latency.p99Microseconds))]))
                })),
            ])
        })
    }
}
