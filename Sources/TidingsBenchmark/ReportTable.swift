import TidingsBase

/// The report as a table for people.
enum ReportTable {
    /// The whole table, ending with a newline.
    static func render(_ report: Report) -> String {
        var lines: [String] = []
        let options = report.options
        let pin = report.cpu.map { "pinned to CPU \($0)" } ?? "not pinned"
        lines.append("tidings-benchmark (\(pin))")
        if !report.inProcess.isEmpty {
            lines.append("")
            let others = options.presented > 0 ? ", \(options.presented) other notifications presented" : ""
            lines.append("In process: NotificationHost with the NoOp extension, \(options.bundles) bundles indexed\(others); "
                + "median of \(options.repetitions) repetitions of at least \(NumberText.fixed(options.minimumMilliseconds, 0)) ms")
            lines.append("".rightPadded(to: 52) + "ns/op".leftPadded(to: 10) + "min".leftPadded(to: 10)
                + "max".leftPadded(to: 10) + "ops/s".leftPadded(to: 15) + "× baseline".leftPadded(to: 12))
            for result in report.inProcess {
                let ratio = report.ratio(result).map { NumberText.fixed($0, 1) } ?? "-"
                let times = [result.median, result.minimum, result.maximum].map { NumberText.fixed($0, 1).leftPadded(to: 10) }
                lines.append(result.title.rightPadded(to: 52) + times.joined()
                    + NumberText.fixed(result.operationsPerSecond, 0).leftPadded(to: 15) + ratio.leftPadded(to: 12))
            }
        }
        if !report.oneShot.isEmpty {
            lines.append("")
            lines.append("One shot: wall time from posix_spawn to waitpid, \(options.runs) runs after \(options.warmUpRuns) warm-up runs")
            lines.append("".rightPadded(to: 52) + "median ms".leftPadded(to: 10) + "p95 ms".leftPadded(to: 10)
                + "min ms".leftPadded(to: 10))
            for result in report.oneShot {
                lines.append(result.title.rightPadded(to: 52) + NumberText.fixed(result.median, 2).leftPadded(to: 10)
                    + NumberText.fixed(result.p95, 2).leftPadded(to: 10) + NumberText.fixed(result.minimum, 2).leftPadded(to: 10))
            }
            if let many = report.oneShot("deliver-bundles"), let one = report.oneShot("deliver-1"),
               let scan = report.oneShot("discovery") {
                lines.append("Discovery of \(options.bundles) bundles: \(NumberText.fixed(scan.median, 2)) ms in process, "
                    + "\(NumberText.fixed(100 * scan.median / many.median, 0))% of the one-shot delivery; "
                    + "\(options.bundles) bundles instead of 1 add \(NumberText.fixed(many.median - one.median, 2)) ms.")
            }
        }
        if !report.server.isEmpty {
            lines.append("")
            lines.append("Server: tidings serve on a Unix socket (NoOp, state journaled), each client sending its next request "
                + "when answered; \(NumberText.short(options.serverSeconds)) s each")
            lines.append("".rightPadded(to: 52) + "clients".leftPadded(to: 8) + "round trips/s".leftPadded(to: 15)
                + "median µs".leftPadded(to: 11) + "p99 µs".leftPadded(to: 10) + "× raw".leftPadded(to: 8))
            for result in report.server {
                let raw = report.server.first { $0.key == "echo-\(result.clients)" }
                let ratio = result.key.hasPrefix("echo") ? "1.0"
                    : raw.map { NumberText.fixed($0.roundTripsPerSecond / result.roundTripsPerSecond, 1) } ?? "-"
                lines.append(result.title.rightPadded(to: 52) + "\(result.clients)".leftPadded(to: 8)
                    + NumberText.fixed(result.roundTripsPerSecond, 0).leftPadded(to: 15)
                    + NumberText.fixed(result.medianMicroseconds, 1).leftPadded(to: 11)
                    + NumberText.fixed(result.p99Microseconds, 1).leftPadded(to: 10) + ratio.leftPadded(to: 8))
            }
        }
        if !report.isolation.isEmpty {
            lines.append("")
            lines.append("Isolation: NoOp in a worker process (tidings worker), sandboxed and not, against in process and raw "
                + "socket pairs, \(NumberText.short(options.serverSeconds)) s each; cold start: 20 new hosts' first delivery; "
                + "× raw: against both ends spinning")
            lines.append("".rightPadded(to: 52) + "samples".leftPadded(to: 9) + "median µs".leftPadded(to: 11)
                + "p99 µs".leftPadded(to: 10) + "× raw".leftPadded(to: 8))
            let raw = report.isolation("raw-spinning")?.medianMicroseconds
            for result in report.isolation {
                let ratio = result.key.hasPrefix("cold-start") ? "-" : raw.map { NumberText.fixed(result.medianMicroseconds / $0, 2) } ?? "-"
                lines.append(result.title.rightPadded(to: 52) + "\(result.count)".leftPadded(to: 9)
                    + NumberText.fixed(result.medianMicroseconds, 1).leftPadded(to: 11)
                    + NumberText.fixed(result.p99Microseconds, 1).leftPadded(to: 10) + ratio.leftPadded(to: 8))
            }
        }
        if let memory = report.memory {
            lines.append("")
            lines.append("Memory: tidings serve's resident set (VmRSS; peak: VmHWM) as \(memory.count) notifications "
                + "(each with an instance of its own, NoOp in process, state journaled) are delivered and all removed, "
                + "64 requests in flight; after removal: settled (not fallen for a second)")
            lines.append("at start: \(NumberText.fixed(Double(memory.start) / 1024, 1)) MB; idle (after 1,000 delivered and removed): "
                + "\(NumberText.fixed(Double(memory.idle) / 1024, 1)) MB")
            lines.append("round".rightPadded(to: 8) + "kept MB".leftPadded(to: 10) + "peak MB".leftPadded(to: 10)
                + "after removal MB".leftPadded(to: 18) + "× idle".leftPadded(to: 9) + "seconds".leftPadded(to: 10))
            for (number, round) in memory.rounds.enumerated() {
                lines.append("\(number + 1)".rightPadded(to: 8)
                    + [round.kept, round.peak, round.afterRemoval].map { NumberText.fixed(Double($0) / 1024, 1) }
                    .enumerated().map { $0.element.leftPadded(to: $0.offset == 2 ? 18 : 10) }.joined()
                    + NumberText.fixed(Double(round.afterRemoval) / Double(memory.idle), 2).leftPadded(to: 9)
                    + NumberText.fixed(round.seconds, 1).leftPadded(to: 10))
            }
        }
        if let scale = report.serverScale {
            lines.append("")
            lines += scale.lines
        }
        if let schedule = report.schedule {
            lines.append("")
            lines += schedule.lines
        }
        if let soak = report.soak {
            lines.append("")
            lines += soak.lines
        }
        if !report.cycle.isEmpty {
            lines.append("")
            lines += report.cycleLines
        }
        if let push = report.push {
            lines.append("")
            lines += push.lines
        }
        if !report.discovery.isEmpty {
            lines.append("")
            lines.append("Discovery: `tidings list --json --extensions DIR` and `LV2_PATH=DIR lv2ls`, bundles made by "
                + "Scripts/make-bundles.sh; median ms of \(options.discoveryRuns) runs after \(options.warmUpRuns) warm-up runs, "
                + "spawn to exit; no cache = --no-cache, cold = an empty index cache (filled and written by the run), "
                + "warm = the cache filled")
            lines.append("bundles".rightPadded(to: 10) + "no cache".leftPadded(to: 10) + "cold".leftPadded(to: 10)
                + "warm".leftPadded(to: 10) + "lv2ls".leftPadded(to: 10) + "no cache/lv2ls".leftPadded(to: 16)
                + "cold/lv2ls".leftPadded(to: 12) + "warm/lv2ls".leftPadded(to: 12))
            for result in report.discovery {
                let times = [result.uncached.median, result.cold.median, result.warm.median].map { NumberText.fixed($0, 2).leftPadded(to: 10) }
                let ratios = [(result.uncachedRatio, 16), (result.coldRatio, 12), (result.warmRatio, 12)].map { ratio, width in
                    (ratio.map { NumberText.fixed($0, 3) } ?? "-").leftPadded(to: width)
                }
                lines.append("\(result.bundles)".rightPadded(to: 10) + times.joined()
                    + (result.lv2ls.map { NumberText.fixed($0.median, 2) } ?? "-").leftPadded(to: 10) + ratios.joined())
            }
            if report.discovery.contains(where: { $0.lv2ls == nil }) {
                lines.append("lv2ls is not installed (Debian: apt-get install lilv-utils), so nothing is compared and its targets are not checked.")
            }
        }
        if let fold = report.fold {
            lines.append("")
            lines.append("Folds: HostService over a journaled state in this process (NoOp), \(fold.kept) notifications kept, "
                + "new versions of them delivered across \(fold.foldsMeasured) folds (each once the journal outgrows \(fold.journalBytes >> 20) MiB and the state)")
            lines.append("".rightPadded(to: 52) + "calls".leftPadded(to: 9) + "median ms".leftPadded(to: 11)
                + "p99 ms".leftPadded(to: 10) + "max ms".leftPadded(to: 10))
            lines.append("deliveries, all".rightPadded(to: 52) + "\(fold.calls)".leftPadded(to: 9)
                + NumberText.fixed(fold.medianMilliseconds, 3).leftPadded(to: 11)
                + NumberText.fixed(fold.p99Milliseconds, 3).leftPadded(to: 10)
                + NumberText.fixed(fold.maximumMilliseconds, 3).leftPadded(to: 10))
            lines.append("deliveries while a fold ran".rightPadded(to: 52) + "\(fold.callsDuringFolds)".leftPadded(to: 9)
                + "".leftPadded(to: 11) + NumberText.fixed(fold.p99DuringFoldsMilliseconds, 3).leftPadded(to: 10)
                + NumberText.fixed(fold.maximumDuringFoldsMilliseconds, 3).leftPadded(to: 10))
            lines.append("  of them not preempted (waiting for a lock or disk)".rightPadded(to: 52) + "".leftPadded(to: 9)
                + "".leftPadded(to: 11) + "".leftPadded(to: 10)
                + NumberText.fixed(fold.maximumUnpreemptedDuringFoldsMilliseconds, 3).leftPadded(to: 10))
            lines.append("a fold itself (off the request path)".rightPadded(to: 52) + "\(fold.foldsMeasured)".leftPadded(to: 9)
                + NumberText.fixed(fold.medianFoldMilliseconds, 1).leftPadded(to: 11) + "".leftPadded(to: 10)
                + NumberText.fixed(fold.longestFoldMilliseconds, 1).leftPadded(to: 10))
            lines.append("Calls over 10 ms while a fold ran that the scheduler preempted (another process had the core): "
                + "\(fold.preemptedOverTenMilliseconds).")
        }
        lines += groupLines(report.group)
        let targets = report.targets
        if !targets.isEmpty {
            lines.append("")
            lines.append("Targets")
            for target in targets {
                let digits = target.unit == "ms" || target.unit.hasPrefix("×") ? 2 : target.unit == "µs" ? 1 : 0
                lines.append("  \(target.met ? "met   " : "MISSED") \(target.goal): \(target.key) "
                    + "\(NumberText.fixed(target.measured, digits)) \(target.unit)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
