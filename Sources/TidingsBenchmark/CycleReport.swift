import TidingsBase

extension Report {
    /// The cycle measurement with `key`, if it ran.
    func cycle(_ key: String) -> CycleResult? {
        cycle.first { $0.key == key }
    }

    /// The cycle's targets: in process ≤ 40 µs of the server's CPU a cycle
    /// (one client, none kept); isolated ≥ 50 % of in process's rate; the
    /// cycle with the most kept within 1.2 × of the cycle with none.
    var cycleTargets: [TargetCheck] {
        var checks: [TargetCheck] = []
        if let none = cycle("cycle-in-process-0-1"), let cpu = none.serverMicrosecondsPerCycle {
            checks.append(TargetCheck(key: none.key + "-cpu", goal: "the server's CPU ≤ 40 µs per deliver-new-respond cycle, in process, one client",
                                      limit: 40, measured: cpu, unit: "µs"))
        }
        for clients in [1, 8] {
            if let inProcess = cycle("cycle-in-process-0-\(clients)"), let isolated = cycle("cycle-process-0-\(clients)") {
                checks.append(TargetCheck(key: isolated.key, goal: "isolated deliver-new-respond ≥ 50 % of in process's rate, \(clients) client\(clients == 1 ? "" : "s") (in process ÷ isolated ≤ 2)",
                                          limit: 2, measured: inProcess.cyclesPerSecond / isolated.cyclesPerSecond, unit: "×"))
            }
        }
        if let most = options.cycleKept.max(), most > 0 {
            for isolation in ["in-process", "process"] {
                guard let none = cycle("cycle-\(isolation)-0-1"), let full = cycle("cycle-\(isolation)-\(most)-1") else { continue }
                let mode = isolation == "process" ? "isolated" : "in process"
                checks.append(TargetCheck(key: full.key, goal: "deliver-new-respond with \(NumberText.grouped(Int64(most))) kept within 1.2 × of none kept, \(mode), one client",
                                          limit: 1.2, measured: none.cyclesPerSecond / full.cyclesPerSecond, unit: "×"))
            }
        }
        return checks
    }

    /// The section of the table.
    var cycleLines: [String] {
        guard !cycle.isEmpty else { return [] }
        let echo = cycle("cycle-echo-1")
        var lines = ["Deliver-new-respond: tidings serve with NoOp, each cycle a new notification (answered with its presentation) and its "
            + "action's response, \(NumberText.short(options.serverSeconds)) s each; the server's CPU is its own and its workers' "
            + "(/proc/PID/stat); one client shares CPU \(ServerBenchmark.oneClientCPU) with the server"]
        for result in cycle {
            let mode = result.isolation == "echo" ? "raw echo, two round trips" : result.isolation == "process" ? "isolated" : "in process"
            let title = result.isolation == "echo" ? mode
                : "\(mode), \(NumberText.grouped(Int64(result.kept))) kept, \(result.clients) client\(result.clients == 1 ? "" : "s")"
            var line = title.rightPadded(to: 44) + "\(NumberText.grouped(Int64(result.cyclesPerSecond)))/s, "
                + "median \(NumberText.fixed(result.medianMicroseconds, 1)) µs, p99 \(NumberText.fixed(result.p99Microseconds, 1)) µs"
            if let cpu = result.serverMicrosecondsPerCycle { line += ", server CPU \(NumberText.fixed(cpu, 1)) µs a cycle" }
            if let echo, result.isolation != "echo", result.clients == 1 {
                line += ", \(NumberText.fixed(echo.cyclesPerSecond / result.cyclesPerSecond, 1)) × the echo's time"
            }
            lines.append(line)
        }
        return lines
    }

    /// The section as JSON.
    var cycleJSON: JSON {
        .array(cycle.map { result in
            .object([("key", .string(result.key)), ("isolation", .string(result.isolation)), ("kept", .integer(Int64(result.kept))),
                     ("clients", .integer(Int64(result.clients))), ("cyclesPerSecond", .double(result.cyclesPerSecond)),
                     ("medianMicroseconds", .double(result.medianMicroseconds)), ("p99Microseconds", .double(result.p99Microseconds)),
                     ("serverMicrosecondsPerCycle", result.serverMicrosecondsPerCycle.map(JSON.double) ?? .null)])
        })
    }
}
