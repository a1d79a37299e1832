/// What the command line asked for.
struct BenchmarkOptions {
    /// Which measurements to run.
    enum Section: String {
        /// Baseline, deliver and respond, in this process.
        case inProcess = "in-process"
        /// Whole `tidings` processes, timed from spawn to exit.
        case oneShot = "one-shot"
        /// Round trips over `tidings serve`'s socket, against a raw echo.
        case server
        /// `tidings list` of many bundles, with and without the index cache, against `lv2ls`.
        case discovery
        /// Deliver → presentation in a worker process, against in process and a raw socket pair.
        case isolation
        /// Isolated opens with warm workers and without, and deliver-open-respond cycles isolated against in process.
        case warm
        /// `tidings serve`'s resident memory idle, with many notifications kept, and after removing them all.
        case memory
        /// `tidings serve`'s threads, memory and wake-ups idle, with many idle connections and with many requests waiting.
        case serverScale = "server-scale"
        /// The wait of state-changing calls while the journal is folded, with many notifications kept (not run by default).
        case fold
        /// Deliver, presentation, open, respond and list against the size of one group, 1 to 10,000.
        case group
        /// `tidings serve` with 100,000 pending requests: arm time, memory, fire accuracy while serving, restart.
        case schedule
        /// The resident memory of `tidings serve` and its warm workers after 20,000 opens.
        case soak
        /// Deliver-new-respond cycles over `tidings serve`, both modes, with none, 10,000 and 100,000 kept, and the server's CPU a cycle.
        case cycle
        /// Web Push decryption in process, and push.receive over `tidings serve` against notifications.deliver.
        case push
    }

    /// Print JSON for programs instead of the table.
    var json = false
    /// Print the help and stop.
    var help = false
    /// Timed repetitions of each in-process loop; the median is reported.
    var repetitions = 7
    /// The shortest a repetition may last, in milliseconds; the iteration count grows to reach it.
    var minimumMilliseconds = 100.0
    /// Operations per in-process repetition; nil finds a count that lasts `minimumMilliseconds`.
    var iterations: Int?
    /// Notifications each in-process host keeps presented besides the measured ones.
    var presented = 0
    /// Timed runs of each one-shot command.
    var runs = 30
    /// Untimed runs of each one-shot command before the timed ones.
    var warmUpRuns = 3
    /// Installed bundles for the one-shot deliver: NoOp and copies of it.
    var bundles = 100
    /// The CPU to pin to; nil leaves the affinity alone (`--no-pin`).
    var cpu: Int? = 0
    /// The sections to run; all but `fold` by default.
    var sections: Set<Section> = [.inProcess, .oneShot, .server, .serverScale, .discovery, .isolation, .warm, .memory, .group, .schedule, .soak, .cycle, .push]
    /// Seconds each server measurement lasts.
    var serverSeconds = 2.0
    /// Notifications the memory benchmark delivers and removes each round.
    var memoryNotifications = 100_000
    /// Rounds of the memory benchmark.
    var memoryRounds = 2
    /// Deliver-open-respond cycles the soak measures after its warm-up.
    var soakOpens = 20_000
    /// Idle connections the server-scale benchmark opens.
    var scaleConnections = 10_000
    /// Requests the server-scale benchmark leaves waiting on completions.
    var scaleWaiting = 1_000
    /// The one in-process benchmark to run (a key such as deliver-reuse), for profiling; nil runs all.
    var benchmark: String?
    /// Manifests/NoOp.plist, when it is not found above the executable.
    var manifest: String?
    /// Keep the temporary extension directories instead of removing them.
    var keep = false
    /// The numbers of bundles discovery is measured with.
    var discoveryCounts = [100, 1_000, 10_000]
    /// Timed runs of each discovery command.
    var discoveryRuns = 10
    /// Notifications kept while folds are measured.
    var foldKept = 100_000
    /// Folds the fold measurement spans.
    var folds = 5
    /// Timed rounds of the group benchmark at each size.
    var groupRounds = 500
    /// The numbers of notifications kept while the cycles are measured.
    var cycleKept = [0, 10_000, 100_000]
    /// Pending requests the schedule benchmark adds.
    var schedulePending = 100_000

    /// The keys of the in-process benchmarks, which `--only` also takes.
    static let benchmarkKeys = ["baseline", "deliver-reuse", "deliver-fresh", "deliver-new", "respond"]

    /// Reads `arguments` (without the program name).
    /// - Throws: an unknown option, a missing value, or a value out of range.
    static func parse(_ arguments: [String]) throws(BenchmarkFailure) -> BenchmarkOptions {
        var options = BenchmarkOptions()
        var rest = arguments[...]
        /// The value after `option`.
        func value(_ option: String) throws(BenchmarkFailure) -> String {
            guard let value = rest.popFirst() else { throw BenchmarkFailure("\(option) needs a value (see --help).") }
            return value
        }
        /// The whole number after `option`, at least `minimum`.
        func count(_ option: String, atLeast minimum: Int) throws(BenchmarkFailure) -> Int {
            let text = try value(option)
            guard let number = Int(text), number >= minimum else {
                throw BenchmarkFailure("\(option) needs a whole number of at least \(minimum); it got \"\(text)\".")
            }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--help", "-h": options.help = true
            case "--json": options.json = true
            case "--repetitions": options.repetitions = try count(argument, atLeast: 1)
            case "--min-time": options.minimumMilliseconds = Double(try count(argument, atLeast: 1))
            case "--iterations": options.iterations = try count(argument, atLeast: 1)
            case "--presented": options.presented = try count(argument, atLeast: 0)
            case "--runs": options.runs = try count(argument, atLeast: 1)
            case "--warm-up": options.warmUpRuns = try count(argument, atLeast: 0)
            case "--bundles": options.bundles = try count(argument, atLeast: 1)
            case "--cpu": options.cpu = try count(argument, atLeast: 0)
            case "--no-pin": options.cpu = nil
            case "--manifest": options.manifest = try value(argument)
            case "--keep": options.keep = true
            case "--server-seconds": options.serverSeconds = Double(try count(argument, atLeast: 1))
            case "--discovery-runs": options.discoveryRuns = try count(argument, atLeast: 1)
            case "--memory-notifications": options.memoryNotifications = try count(argument, atLeast: 1)
            case "--memory-rounds": options.memoryRounds = try count(argument, atLeast: 1)
            case "--soak-opens": options.soakOpens = try count(argument, atLeast: 1)
            case "--scale-connections": options.scaleConnections = try count(argument, atLeast: 1)
            case "--scale-waiting": options.scaleWaiting = try count(argument, atLeast: 1)
            case "--fold-kept": options.foldKept = try count(argument, atLeast: 1)
            case "--folds": options.folds = try count(argument, atLeast: 1)
            case "--group-rounds": options.groupRounds = try count(argument, atLeast: 1)
            case "--schedule-pending": options.schedulePending = try count(argument, atLeast: 1)
            case "--discovery-bundles":
                let text = try value(argument)
                let parts = text.split(separator: ",", omittingEmptySubsequences: false)
                let counts = parts.compactMap { Int($0) }.filter { $0 >= 1 }
                guard counts.count == parts.count else {
                    throw BenchmarkFailure("\(argument) needs whole numbers of at least 1, separated by commas; it got \"\(text)\".")
                }
                options.discoveryCounts = counts
            case "--cycle-kept":
                let text = try value(argument)
                let parts = text.split(separator: ",", omittingEmptySubsequences: false)
                let counts = parts.compactMap { Int($0) }.filter { $0 >= 0 }
                guard counts.count == parts.count, counts.contains(0) else {
                    throw BenchmarkFailure("\(argument) needs whole numbers of at least 0, separated by commas, 0 among them; it got \"\(text)\".")
                }
                options.cycleKept = counts.sorted()
            case "--only":
                let text = try value(argument)
                if let section = Section(rawValue: text) {
                    options.sections = [section]
                } else if benchmarkKeys.contains(text) {
                    options.sections = [.inProcess]
                    options.benchmark = text
                } else {
                    throw BenchmarkFailure("--only takes in-process, one-shot, server, server-scale, discovery, isolation, warm, memory, fold, group, schedule, soak, cycle, push or one of \(benchmarkKeys.joined(separator: ", ")); it got \"\(text)\".")
                }
            default:
                throw BenchmarkFailure("There is no option \"\(argument)\" (see --help).")
            }
        }
        return options
    }

    /// True when the in-process benchmark `key` is to run.
    func wants(_ key: String) -> Bool {
        benchmark.map { $0 == key } ?? true
    }
}
