import Glibc
import TidingsBase
import TidingsRegistry

/// One run of the benchmark: sets the workspace up, measures each section
/// the options ask for, and returns the report.
struct BenchmarkRun {
    /// The settings.
    var options: BenchmarkOptions

    /// Runs everything and returns the report; the workspace is removed unless `--keep`.
    func run() throws(BenchmarkFailure) -> Report {
        let products = try Products.locate(manifest: options.manifest)
        let workspace = try Workspace()
        defer {
            if options.keep { Progress.say("Kept \(workspace.path)") } else { workspace.remove() }
        }
        Progress.say("Installing NoOp and \(options.bundles - 1) copies in \(workspace.path)")
        let single = workspace.file("one-bundle")
        let many = workspace.file("bundles")
        _ = try BundleFarm.populate(single, count: 1, products: products)
        let index = try BundleFarm.populate(many, count: options.bundles, products: products)

        var report = Report(cpu: options.cpu, options: options)
        // The server and its clients get the whole machine: it runs before the pin.
        if options.sections.contains(.server) {
            report.server = try ServerBenchmark(products: products, workspace: workspace, extensions: single,
                                                seconds: options.serverSeconds, clientCounts: [1, 8]).measure()
        }
        if options.sections.contains(.serverScale) {
            report.serverScale = try ServerScaleBenchmark(products: products, workspace: workspace,
                                                          connections: options.scaleConnections,
                                                          waiting: options.scaleWaiting).measure()
        }
        if options.sections.contains(.schedule) {
            report.schedule = try ScheduleBenchmark(products: products, workspace: workspace, extensions: single,
                                                    pending: options.schedulePending).measure()
        }
        if options.sections.contains(.memory) {
            report.memory = try MemoryBenchmark(products: products, workspace: workspace, extensions: single,
                                                count: options.memoryNotifications, rounds: options.memoryRounds).measure()
        }
        if options.sections.contains(.soak) {
            report.soak = try SoakBenchmark(products: products, workspace: workspace, extensions: single,
                                            opens: options.soakOpens).measure()
        }
        if options.sections.contains(.cycle) {
            report.cycle = try CycleBenchmark(products: products, workspace: workspace, extensions: single,
                                              seconds: options.serverSeconds, keptCounts: options.cycleKept).measure()
        }
        if options.sections.contains(.push) {
            report.push = try PushBenchmark(products: products, workspace: workspace, extensions: single,
                                            seconds: options.serverSeconds).measure()
        }
        // The worker process needs a core of its own, as the server does.
        if options.sections.contains(.isolation) {
            report.isolation = try IsolationBenchmark(products: products, extensions: single, seconds: options.serverSeconds,
                                                      coldStarts: 20).measure()
        }
        if options.sections.contains(.warm) {
            report.isolation += try WarmWorkerBenchmark(products: products, workspace: workspace, extensions: single,
                                                        seconds: options.serverSeconds, coldOpens: 20).measure()
        }
        // The folds run on a thread of their own, beside the calls: the whole machine too.
        if options.sections.contains(.fold) {
            report.fold = try FoldBenchmark(workspace: workspace, extensions: single, kept: options.foldKept,
                                            folds: options.folds).measure()
        }
        if options.sections.contains(.group) {
            report.group = try GroupBenchmark(workspace: workspace, extensions: single, rounds: options.groupRounds).measure()
        }
        if let cpu = options.cpu { try CoreAffinity.pin(to: cpu) }
        if options.sections.contains(.inProcess) {
            report.inProcess = try measureInProcess(index)
        }
        if options.sections.contains(.oneShot) {
            report.oneShot = try measureOneShot(products: products, workspace: workspace, single: single, many: many)
        }
        if options.sections.contains(.discovery) {
            report.discovery = try DiscoveryBenchmark(products: products, workspace: workspace, runs: options.discoveryRuns,
                                                      warmUpRuns: options.warmUpRuns, keep: options.keep)
                .measure(counts: options.discoveryCounts)
        }
        return report
    }

    /// The baseline, then deliver (reuse, fresh, new) and respond through the runtime.
    private func measureInProcess(_ index: ExtensionIndex) throws(BenchmarkFailure) -> [LoopResult] {
        let timer = LoopTimer(repetitions: options.repetitions, minimumNanoseconds: options.minimumMilliseconds * 1e6,
                              fixedIterations: options.iterations)
        guard let library = index.contentExtension(forApp: BundleFarm.app, category: BundleFarm.category)?.libraryPath else {
            throw BenchmarkFailure("The NoOp bundle does not serve category \(BundleFarm.category).")
        }
        var results: [LoopResult] = []
        if options.wants("baseline") {
            Progress.say("Measuring the baseline")
            results.append(try DirectBaseline.measure(
                library: library, notification: try SamplePayload.notification(identifier: "baseline", thread: "bench"),
                timer: timer))
        }
        let runtime = RuntimeBenchmarks(index: index, presented: options.presented)
        let benchmarks = [("deliver-reuse", runtime.deliverToPresentedThread), ("deliver-fresh", runtime.deliverFresh),
                          ("deliver-new", runtime.deliverReplacing), ("respond", runtime.respond)]
        for (key, make) in benchmarks where options.wants(key) {
            Progress.say("Measuring \(key)")
            results.append(timer.measure(try make()))
        }
        return results
    }

    /// `tidings --version`, `tidings deliver` with 1 and with many bundles, and discovery in this process.
    private func measureOneShot(products: Products, workspace: Workspace, single: String,
                                many: String) throws(BenchmarkFailure) -> [OneShotResult] {
        let payload = workspace.file("payload.json")
        do {
            try FileSystem.writeFileAtomically(payload, Array(SamplePayload.text.utf8))
        } catch {
            throw BenchmarkFailure(error.message)
        }
        // tidings deliver keeps an index cache: the workspace's, not the user's.
        let timer = OneShotTimer(runs: options.runs, warmUpRuns: options.warmUpRuns, log: workspace.file("output.log"),
                                 environment: ProcessTimer.environment(overriding: ["XDG_CACHE_HOME": workspace.file("cache")]))
        /// The arguments of `tidings deliver` with the extension directory `directory`.
        func deliver(_ directory: String) -> [String] {
            ["deliver", payload, "--extensions", directory, "--app", BundleFarm.app]
        }
        Progress.say("Timing tidings --version")
        let version = try timer.measure(key: "version", title: "tidings --version (start-up floor)",
                                        program: products.tidings, arguments: ["--version"])
        Progress.say("Timing tidings deliver with 1 bundle")
        let one = try timer.measure(key: "deliver-1", title: "tidings deliver, 1 bundle",
                                    program: products.tidings, arguments: deliver(single))
        Progress.say("Timing tidings deliver with \(options.bundles) bundles")
        let bundles = try timer.measure(key: "deliver-bundles", title: "tidings deliver, \(options.bundles) bundles",
                                        program: products.tidings, arguments: deliver(many))
        Progress.say("Timing discovery of \(options.bundles) bundles in process")
        let discovery = timer.measureInProcess(key: "discovery", title: "Discovery.scan of \(options.bundles) bundles, in process") {
            UInt64(Discovery.scan(SearchPath(directories: [many], origin: .option)).bundles.count)
        }
        return [version, one, bundles, discovery]
    }
}

/// Progress lines on standard error, so that standard output holds only the report.
enum Progress {
    /// Writes `line` to standard error.
    static func say(_ line: String) {
        error("… " + line)
    }

    /// Writes `line` and a newline to standard error (file descriptor 2).
    static func error(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    }
}
