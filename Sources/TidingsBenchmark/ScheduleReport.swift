import TidingsBase

/// How late the requests scheduled 1–5 s ahead fired: the arrival of each
/// one's `request.fired` event minus its intended time, in milliseconds.
struct FireAccuracy {
    /// Requests scheduled to fire during the measurement.
    var scheduled: Int
    /// Those whose `request.fired` arrived.
    var fired: Int
    /// The lateness of the set exactly 2 s ahead.
    var twoSecond: [Double]
    /// The lateness of all.
    var all: [Double]
    /// Deliveries the busy client made meanwhile.
    var deliveries: Int
}

/// What the schedule benchmark found; memory in kilobytes.
struct ScheduleResult {
    var pending: Int
    var apps: Int
    /// The server's resident set before any request was added (settled).
    var idleKilobytes: Int
    /// Its resident set with every request pending (settled).
    var armedKilobytes: Int
    /// How long adding them took (64 in flight).
    var armSeconds: Double
    var fires: FireAccuracy
    /// How long the server took to stop (SIGTERM to exit).
    var stopSeconds: Double
    /// From starting the server again over the same state to its answer to server.describe.
    var restartSeconds: Double
    /// The restarted server's resident set (settled).
    var restartedKilobytes: Int
    /// The first app's requests pending after the restart, and how many it had.
    var keptByFirstApp: Int
    var expectedPerApp: Int

    /// The most the pending requests may cost, in MB.
    static let memoryLimit = 50.0
    /// The latest a request 2 s ahead may fire at p99, in ms.
    static let lateLimit = 50.0

    /// The memory the pending requests cost, in MB.
    var pendingMegabytes: Double { Double(armedKilobytes - idleKilobytes) / 1024 }

    /// The targets: the pending requests' memory, and the p99 lateness 2 s ahead.
    var targets: [TargetCheck] {
        var checks = [TargetCheck(key: "schedule-memory", goal: "\(pending) pending requests cost < \(NumberText.short(Self.memoryLimit)) MB of resident memory",
                                  limit: Self.memoryLimit, measured: pendingMegabytes, unit: "MB")]
        if !fires.twoSecond.isEmpty {
            checks.append(TargetCheck(key: "schedule-fire-2s",
                                      goal: "requests 2 s ahead fire ≤ \(NumberText.short(Self.lateLimit)) ms late at p99 with \(pending) pending, while a client delivers",
                                      limit: Self.lateLimit, measured: Statistics.percentile(fires.twoSecond, 0.99), unit: "ms"))
        }
        return checks
    }

    /// The section of the table.
    var lines: [String] {
        func megabytes(_ kilobytes: Int) -> String { NumberText.fixed(Double(kilobytes) / 1024, 1) + " MB" }
        func spread(_ values: [Double]) -> String {
            values.isEmpty ? "none fired"
                : "p50 \(NumberText.fixed(Statistics.percentile(values, 0.5), 1)) ms, p99 \(NumberText.fixed(Statistics.percentile(values, 0.99), 1)) ms, "
                + "max \(NumberText.fixed(values.max() ?? 0, 1)) ms (\(values.count))"
        }
        return [
            "Schedule: tidings serve (NoOp in process, state journaled), \(pending) pending requests across \(apps) apps "
                + "(intervals and dates, one-shot and repeating, hours to a year ahead)",
            "arm (requests.add, 64 in flight)".rightPadded(to: 44) + "\(NumberText.fixed(armSeconds, 2)) s, "
                + "\(NumberText.grouped(Int64(Double(pending) / max(armSeconds, 1e-9)))) requests/s",
            "resident memory".rightPadded(to: 44) + "idle \(megabytes(idleKilobytes)), with them \(megabytes(armedKilobytes)): "
                + "\(NumberText.fixed(pendingMegabytes, 1)) MB for \(pending) (\(NumberText.fixed(pendingMegabytes * 1024 * 1024 / Double(max(pending, 1)), 0)) bytes each)",
            "fire lateness, 2 s ahead".rightPadded(to: 44) + spread(fires.twoSecond),
            "fire lateness, 1–5 s ahead (all)".rightPadded(to: 44) + spread(fires.all)
                + "; \(fires.fired) of \(fires.scheduled) fired; \(fires.deliveries) deliveries meanwhile",
            "stop (SIGTERM to exit)".rightPadded(to: 44) + "\(NumberText.fixed(stopSeconds * 1000, 0)) ms",
            "restart to server.describe answered".rightPadded(to: 44) + "\(NumberText.fixed(restartSeconds * 1000, 0)) ms, "
                + "then \(megabytes(restartedKilobytes)); the first app's pending after it: \(keptByFirstApp) of \(expectedPerApp)",
        ]
    }

    /// The result as JSON.
    var json: JSON {
        func lateness(_ values: [Double]) -> JSON {
            guard !values.isEmpty else { return .null }
            return .object([("count", .integer(Int64(values.count))), ("p50Milliseconds", .double(Statistics.percentile(values, 0.5))),
                            ("p99Milliseconds", .double(Statistics.percentile(values, 0.99))), ("maximumMilliseconds", .double(values.max() ?? 0))])
        }
        return .object([
            ("pending", .integer(Int64(pending))), ("apps", .integer(Int64(apps))),
            ("armSeconds", .double(armSeconds)), ("idleKilobytes", .integer(Int64(idleKilobytes))),
            ("armedKilobytes", .integer(Int64(armedKilobytes))), ("pendingMegabytes", .double(pendingMegabytes)),
            ("scheduledToFire", .integer(Int64(fires.scheduled))), ("fired", .integer(Int64(fires.fired))),
            ("lateTwoSeconds", lateness(fires.twoSecond)), ("lateAll", lateness(fires.all)),
            ("deliveriesMeanwhile", .integer(Int64(fires.deliveries))),
            ("stopSeconds", .double(stopSeconds)), ("restartSeconds", .double(restartSeconds)),
            ("restartedKilobytes", .integer(Int64(restartedKilobytes))), ("keptByFirstApp", .integer(Int64(keptByFirstApp))),
        ])
    }
}
