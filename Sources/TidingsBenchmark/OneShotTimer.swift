import TidingsBase

/// What a one-shot measurement found, in milliseconds.
struct OneShotResult {
    /// A short stable name, used as the JSON key ("version", "deliver-100", …).
    var key: String
    /// What is measured, for the table.
    var title: String
    /// The command line run (program first); empty for a measurement in this process.
    var command: [String]
    /// Milliseconds, one value per timed run.
    var samples: [Double]

    /// The median milliseconds.
    var median: Double { Statistics.median(samples) }
    /// The 95th percentile, nearest rank.
    var p95: Double { Statistics.percentile(samples, 0.95) }
    /// The fastest run.
    var minimum: Double { samples.min()! }
}

/// Times whole processes: one checked run whose output is kept (it must exit
/// with 0), untimed warm-up runs, then the timed runs with output discarded.
struct OneShotTimer {
    /// Timed runs per command.
    var runs: Int
    /// Untimed runs before them.
    var warmUpRuns: Int
    /// Where the checked run's output goes, to show when it fails.
    var log: String
    /// The commands' environment, `NAME=value` strings.
    var environment: [String]

    /// Measures `program arguments…`, calling `prepare` before every run, untimed.
    func measure(key: String, title: String, program: String, arguments: [String],
                 prepare: () throws(BenchmarkFailure) -> Void = {}) throws(BenchmarkFailure) -> OneShotResult {
        let command = ([program] + arguments).joined(separator: " ")
        try prepare()
        let check = try ProcessTimer.run(program, arguments, output: log, environment: environment)
        guard check.exitStatus == 0 else {
            let output = (try? FileSystem.readFile(log, limit: 1 << 16)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            throw BenchmarkFailure("`\(command)` ended with status \(check.exitStatus.map(String.init) ?? "(a signal)"):\n\(output)")
        }
        var samples: [Double] = []
        for run in 0..<(warmUpRuns + runs) {
            try prepare()
            let result = try ProcessTimer.run(program, arguments, output: "/dev/null", environment: environment)
            guard result.exitStatus == 0 else {
                throw BenchmarkFailure("`\(command)` ended with status \(result.exitStatus.map(String.init) ?? "(a signal)") on run \(run + 1).")
            }
            if run >= warmUpRuns { samples.append(Double(result.nanoseconds) / 1e6) }
        }
        return OneShotResult(key: key, title: title, command: [program] + arguments, samples: samples)
    }

    /// Times `body` in this process `runs` times after the warm-up runs.
    func measureInProcess(key: String, title: String, _ body: () -> UInt64) -> OneShotResult {
        var samples: [Double] = []
        for run in 0..<(warmUpRuns + runs) {
            let start = MonotonicClock.now()
            Sink.keep(body())
            let end = MonotonicClock.now()
            if run >= warmUpRuns { samples.append(Double(end - start) / 1e6) }
        }
        return OneShotResult(key: key, title: title, command: [], samples: samples)
    }
}
