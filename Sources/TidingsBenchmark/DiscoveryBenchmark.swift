import Glibc
import TidingsBase
import TidingsRegistry
import TidingsRuntime

/// What discovery of one number of bundles measured.
struct DiscoveryResult {
    /// How many bundles of each kind there were.
    var bundles: Int
    /// `tidings list --json --no-cache`: every bundle read, no cache touched.
    var uncached: OneShotResult
    /// `tidings list --json` with an empty index cache: every bundle read, the cache written.
    var cold: OneShotResult
    /// `tidings list --json` with the cache an earlier run filled: every bundle taken from it.
    var warm: OneShotResult
    /// `lv2ls` listing as many LV2 bundles; nil when lv2ls is not installed.
    var lv2ls: OneShotResult?

    /// How many times lv2ls's median the uncached median is.
    var uncachedRatio: Double? { lv2ls.map { uncached.median / $0.median } }
    /// How many times lv2ls's median the cold median is.
    var coldRatio: Double? { lv2ls.map { cold.median / $0.median } }
    /// How many times lv2ls's median the warm median is.
    var warmRatio: Double? { lv2ls.map { warm.median / $0.median } }
}

/// Discovery as a user meets it, against lilv's: for each number of bundles,
/// `Scripts/make-bundles.sh` makes that many Tidings bundles and as many LV2
/// bundles, and `tidings list --json --extensions DIR` (without the index
/// cache, with an empty one, then with the one filled) and `LV2_PATH=DIR
/// lv2ls` are timed as processes, spawn to exit.
struct DiscoveryBenchmark {
    /// The build products: `tidings`, libNoOp.so and the script.
    let products: Products
    /// Where the bundles and the caches go.
    let workspace: Workspace
    /// Timed runs of each command.
    let runs: Int
    /// Untimed runs before them.
    let warmUpRuns: Int
    /// Keep each number's bundles instead of removing them once measured.
    let keep: Bool

    /// Measures each number of bundles in `counts`, in order.
    func measure(counts: [Int]) throws(BenchmarkFailure) -> [DiscoveryResult] {
        guard let script = products.makeBundles else {
            throw BenchmarkFailure("Scripts/make-bundles.sh is not beside the Manifests/ directory of \(products.noOpManifest); the discovery benchmark needs the package's scripts.")
        }
        guard let bash = Products.onPath("bash") else { throw BenchmarkFailure("bash is not on PATH; Scripts/make-bundles.sh needs it.") }
        let lv2ls = Products.onPath("lv2ls")
        if lv2ls == nil {
            Progress.say("lv2ls is not on PATH (Debian: apt-get install lilv-utils): tidings is measured alone, the targets are not checked")
        }
        var results: [DiscoveryResult] = []
        for count in counts {
            results.append(try measure(count: count, script: script, bash: bash, lv2ls: lv2ls))
        }
        return results
    }

    /// Makes `count` bundles of each kind and times the three commands on them.
    private func measure(count: Int, script: String, bash: String, lv2ls: String?) throws(BenchmarkFailure) -> DiscoveryResult {
        let directory = workspace.file("discovery-\(count)")
        let log = workspace.file("discovery-\(count).log")
        Progress.say("Making \(count) Tidings and \(count) LV2 bundles with \(script)")
        let made = try ProcessTimer.run(bash, [script, String(count), directory, products.noOpLibrary], output: log,
                                        environment: ProcessTimer.environment(overriding: [:]))
        guard made.exitStatus == 0 else { throw BenchmarkFailure("\(script) failed; see \(log).") }

        let extensions = Path.join(directory, "tidings")
        let cache = workspace.file("discovery-\(count)-cache")
        let timer = OneShotTimer(runs: runs, warmUpRuns: warmUpRuns, log: log,
                                 environment: ProcessTimer.environment(overriding: ["XDG_CACHE_HOME": cache]))
        let list = ["list", "--json", "--extensions", extensions]
        Progress.say("Timing tidings list --no-cache of \(count) bundles")
        let uncached = try timer.measure(key: "discovery-uncached-\(count)", title: "tidings list --json --no-cache, \(count) bundles",
                                         program: products.tidings, arguments: list + ["--no-cache"])
        try checkListing(log, count: count)
        Progress.say("Timing tidings list of \(count) bundles, each run with an empty index cache")
        let cold = try timer.measure(key: "discovery-cold-\(count)", title: "tidings list --json, \(count) bundles, cold",
                                     program: products.tidings, arguments: list) { () throws(BenchmarkFailure) in
            do throws(Diagnostic) {
                try FileSystem.removeTree(cache)
            } catch {
                throw BenchmarkFailure(error.message)
            }
        }
        try checkListing(log, count: count)
        Progress.say("Timing tidings list of \(count) bundles from the index cache")
        let warm = try timer.measure(key: "discovery-warm-\(count)", title: "tidings list --json, \(count) bundles, from the cache",
                                     program: products.tidings, arguments: list)
        try checkListing(log, count: count)
        try checkCache(cache, serves: extensions, count: count)

        var lister: OneShotResult?
        if let lv2ls {
            Progress.say("Timing lv2ls of \(count) LV2 bundles")
            let lv2Timer = OneShotTimer(runs: runs, warmUpRuns: warmUpRuns, log: log, environment: ProcessTimer.environment(
                overriding: ["LV2_PATH": Path.join(directory, "lv2")]))
            lister = try lv2Timer.measure(key: "lv2ls-\(count)", title: "lv2ls, \(count) LV2 bundles", program: lv2ls, arguments: [])
            let lines = try read(log).split(separator: UInt8(ascii: "\n")).count
            guard lines == count else { throw BenchmarkFailure("lv2ls listed \(lines) plugins of the \(count) in \(directory)/lv2.") }
        }
        if !keep { try? FileSystem.removeTree(directory) }
        return DiscoveryResult(bundles: count, uncached: uncached, cold: cold, warm: warm, lv2ls: lister)
    }

    /// Checks that the `tidings list --json` output in `log` lists `count` usable bundles.
    private func checkListing(_ log: String, count: Int) throws(BenchmarkFailure) {
        let listing: JSON
        do {
            listing = try JSON.parse(try FileSystem.readFile(log), file: log)
        } catch {
            throw BenchmarkFailure(error.message)
        }
        guard case .array(let bundles) = listing["bundles"], bundles.count == count,
              bundles.allSatisfy({ $0["usable"]?.boolValue == true }) else {
            throw BenchmarkFailure("tidings list did not list \(count) usable bundles; see \(log).")
        }
    }

    /// Checks that the index cache under `cache` serves every bundle of `extensions` without reading one.
    private func checkCache(_ cache: String, serves extensions: String, count: Int) throws(BenchmarkFailure) {
        let index = Discovery.scan(SearchPath(directories: [extensions], origin: .option),
                                   cache: IndexCache.standard(in: ["XDG_CACHE_HOME": cache], version: HostFunctions.version))
        guard index.counts == DiscoveryCounts(fromCache: count, read: 0) else {
            throw BenchmarkFailure("The index cache in \(cache) served \(index.counts.fromCache) of \(count) bundles; \(index.counts.read) were read.")
        }
    }

    /// The bytes of `file`.
    private func read(_ file: String) throws(BenchmarkFailure) -> [UInt8] {
        do {
            return try FileSystem.readFile(file)
        } catch {
            throw BenchmarkFailure(error.message)
        }
    }
}
