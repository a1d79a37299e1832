import TidingsBase

/// The report as JSON for programs (`--json`).
enum ReportJSON {
    /// The report as a JSON document.
    static func render(_ report: Report) -> JSON {
        let options = report.options
        let members: [(String, JSON)] = [
            ("cpu", report.cpu.map { .integer(Int64($0)) } ?? .null),
            ("inProcess", .object([
                ("bundles", .integer(Int64(options.bundles))),
                ("presented", .integer(Int64(options.presented))),
                ("repetitions", .integer(Int64(options.repetitions))),
                ("minimumMilliseconds", .double(options.minimumMilliseconds)),
                ("results", .array(report.inProcess.map { loop($0, ratio: report.ratio($0)) })),
            ])),
            ("oneShot", .object([
                ("bundles", .integer(Int64(options.bundles))),
                ("runs", .integer(Int64(options.runs))),
                ("warmUpRuns", .integer(Int64(options.warmUpRuns))),
                ("results", .array(report.oneShot.map(oneShot))),
            ])),
            ("server", .object([
                ("seconds", .double(options.serverSeconds)),
                ("results", .array(report.server.map(server))),
            ])),
            ("discovery", .object([
                ("runs", .integer(Int64(options.discoveryRuns))),
                ("warmUpRuns", .integer(Int64(options.warmUpRuns))),
                ("results", .array(report.discovery.map(discovery))),
            ])),
            ("isolation", .array(report.isolation.map { result in
                .object([("key", .string(result.key)), ("title", .string(result.title)),
                         ("samples", .integer(Int64(result.count))),
                         ("medianMicroseconds", .double(result.medianMicroseconds)),
                         ("p99Microseconds", .double(result.p99Microseconds))])
            })),
            ("memory", report.memory.map(memory) ?? .null),
            ("serverScale", report.serverScale?.json ?? .null),
            ("schedule", report.schedule?.json ?? .null),
            ("cycle", report.cycleJSON),
            ("soak", report.soak?.json ?? .null),
            ("push", report.push?.json ?? .null),
            ("fold", report.fold.map(fold) ?? .null),
            ("group", group(report.group)),
            ("targets", .array(report.targets.map(target))),
        ]
        return .object(members)
    }

    /// The fold measurement.
    private static func fold(_ fold: FoldResult) -> JSON {
        .object([
            ("kept", .integer(Int64(fold.kept))), ("calls", .integer(Int64(fold.calls))),
            ("folds", .integer(Int64(fold.foldsMeasured))), ("journalBytes", .integer(Int64(fold.journalBytes))),
            ("medianMilliseconds", .double(fold.medianMilliseconds)), ("p99Milliseconds", .double(fold.p99Milliseconds)),
            ("maximumMilliseconds", .double(fold.maximumMilliseconds)),
            ("callsDuringFolds", .integer(Int64(fold.callsDuringFolds))),
            ("p99DuringFoldsMilliseconds", .double(fold.p99DuringFoldsMilliseconds)),
            ("maximumDuringFoldsMilliseconds", .double(fold.maximumDuringFoldsMilliseconds)),
            ("maximumUnpreemptedDuringFoldsMilliseconds", .double(fold.maximumUnpreemptedDuringFoldsMilliseconds)),
            ("preemptedOverTenMilliseconds", .integer(Int64(fold.preemptedOverTenMilliseconds))),
            ("medianFoldMilliseconds", .double(fold.medianFoldMilliseconds)),
            ("longestFoldMilliseconds", .double(fold.longestFoldMilliseconds)),
        ])
    }

    /// The memory measurements, in kilobytes.
    private static func memory(_ result: MemoryResult) -> JSON {
        .object([
            ("notifications", .integer(Int64(result.count))),
            ("startKilobytes", .integer(Int64(result.start))),
            ("idleKilobytes", .integer(Int64(result.idle))),
            ("rounds", .array(result.rounds.map { round in
                .object([("keptKilobytes", .integer(Int64(round.kept))), ("peakKilobytes", .integer(Int64(round.peak))),
                         ("afterRemovalKilobytes", .integer(Int64(round.afterRemoval))), ("seconds", .double(round.seconds))])
            })),
        ])
    }

    /// One server measurement.
    private static func server(_ result: ServerResult) -> JSON {
        .object([
            ("key", .string(result.key)), ("title", .string(result.title)), ("clients", .integer(Int64(result.clients))),
            ("roundTrips", .integer(Int64(result.roundTrips))), ("roundTripsPerSecond", .double(result.roundTripsPerSecond)),
            ("medianMicroseconds", .double(result.medianMicroseconds)), ("p99Microseconds", .double(result.p99Microseconds)),
        ])
    }

    /// One in-process result, with its ratio to the baseline.
    private static func loop(_ result: LoopResult, ratio: Double?) -> JSON {
        .object([
            ("key", .string(result.key)),
            ("title", .string(result.title)),
            ("iterations", .integer(Int64(result.iterations))),
            ("medianNanoseconds", .double(result.median)),
            ("minimumNanoseconds", .double(result.minimum)),
            ("maximumNanoseconds", .double(result.maximum)),
            ("operationsPerSecond", .double(result.operationsPerSecond)),
            ("ratioToBaseline", ratio.map(JSON.double) ?? .null),
            ("samplesNanoseconds", .array(result.samples.map(JSON.double))),
        ])
    }

    /// One number of bundles: without the cache, cold, warm and lv2ls (null when it is not installed), and the ratios.
    private static func discovery(_ result: DiscoveryResult) -> JSON {
        .object([
            ("bundles", .integer(Int64(result.bundles))),
            ("uncached", oneShot(result.uncached)),
            ("cold", oneShot(result.cold)),
            ("warm", oneShot(result.warm)),
            ("lv2ls", result.lv2ls.map(oneShot) ?? .null),
            ("uncachedToLv2ls", result.uncachedRatio.map(JSON.double) ?? .null),
            ("coldToLv2ls", result.coldRatio.map(JSON.double) ?? .null),
            ("warmToLv2ls", result.warmRatio.map(JSON.double) ?? .null),
        ])
    }

    /// One one-shot result.
    private static func oneShot(_ result: OneShotResult) -> JSON {
        .object([
            ("key", .string(result.key)),
            ("title", .string(result.title)),
            ("command", .array(result.command.map(JSON.string))),
            ("medianMilliseconds", .double(result.median)),
            ("p95Milliseconds", .double(result.p95)),
            ("minimumMilliseconds", .double(result.minimum)),
            ("samplesMilliseconds", .array(result.samples.map(JSON.double))),
        ])
    }

    /// One target and whether it is met.
    private static func target(_ check: TargetCheck) -> JSON {
        .object([
            ("key", .string(check.key)),
            ("goal", .string(check.goal)),
            ("limit", .double(check.limit)),
            ("measured", .double(check.measured)),
            ("unit", .string(check.unit)),
            ("met", .bool(check.met)),
        ])
    }
}
