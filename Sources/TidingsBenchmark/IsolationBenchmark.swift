import Glibc
import TidingsBase
import TidingsRegistry
import TidingsIsolation
import TidingsRuntime

/// What process isolation costs: deliver → presentation with NoOp in a
/// sandboxed worker process, and in a worker without its sandbox, against
/// the same in this process and against raw round trips over the same kind
/// of socket pair (a thread echoing each message: both spinning, both on one
/// core, blocking across cores), measured in the same run; and the cold
/// start of a worker with and without its sandbox (a new host's first
/// delivery: spawn, load, instance, call).
struct IsolationBenchmark {
    let products: Products
    /// The extension directory (NoOp alone).
    let extensions: String
    /// Seconds each round-trip measurement lasts, after a tenth of it as warm-up.
    let seconds: Double
    /// How many cold starts are timed.
    let coldStarts: Int

    func measure() throws(BenchmarkFailure) -> [IsolationResult] {
        let index = Discovery.scan(SearchPath(directories: [extensions], origin: .option))
        let notification = try SamplePayload.notification(identifier: "isolated", thread: "bench")
        var results: [IsolationResult] = []
        for kind in RawKind.allCases {
            Progress.say("Measuring the raw socket-pair round trip, \(kind.title)")
            results.append(try rawRoundTrip(kind))
        }
        Progress.say("Measuring deliver → presentation in this process")
        results.append(try sample(key: "in-process", title: "deliver → presentation, in process",
                                  host: NotificationHost(index: index), notification: notification))
        Progress.say("Measuring deliver → presentation in a worker process without its sandbox")
        results.append(try sample(key: "isolated-bare", title: "deliver → presentation, worker without sandbox",
                              host: NotificationHost(index: index, launcher: launcher(sandbox: .none)),
                              notification: notification))
        Progress.say("Measuring deliver → presentation in a sandboxed worker process")
        results.append(try sample(key: "isolated", title: "deliver → presentation, sandboxed worker",
                              host: NotificationHost(index: index, launcher: launcher()), notification: notification))
        Progress.say("Measuring deliver → presentation in a sandboxed worker process sharing this thread's core")
        results.append(try sample(key: "isolated-one-core", title: "deliver → presentation, sandboxed worker, one core",
                                  host: NotificationHost(index: index, launcher: launcher()), notification: notification,
                                  oneCore: true))
        for (key, workers, sandbox) in [("cold-start-bare", "worker without sandbox", SandboxRequirements.none),
                                        ("cold-start", "sandboxed worker", SandboxRequirements())] {
            let title = "cold start, \(workers)"
            Progress.say("Timing \(coldStarts) cold starts, \(workers)")
            results.append(try coldStart(key: key, title: title, index: index, notification: notification,
                                         sandbox: sandbox))
        }
        return results
    }

    /// `coldStarts` new hosts' first delivery each, opened at once (a
    /// delivery alone runs no extension code), with workers in `sandbox`.
    private func coldStart(key: String, title: String, index: ExtensionIndex, notification: UserNotification,
                           sandbox: SandboxRequirements) throws(BenchmarkFailure) -> IsolationResult {
        var starts: [Double] = []
        for round in 0..<coldStarts {
            let host = NotificationHost(index: index, launcher: launcher(sandbox: sandbox))
            var first = notification
            first.identifier = "cold-\(round)"
            let start = MonotonicClock.now()
            let delivery = host.deliver(first, to: BundleFarm.app, opening: true)
            starts.append(Double(MonotonicClock.now() - start) / 1e3)
            guard delivery.presentation.extensionIdentifier != nil else {
                throw BenchmarkFailure("The worker did not serve NoOp: \(delivery.diagnostics.map(\.description))")
            }
        }
        return IsolationResult(key: key, title: title + " (a new host's first delivery)", samples: starts)
    }

    /// Workers of the release-built `tidings`, in `sandbox` (all of it by
    /// default), kept warm by no pool: a spare starting in the background
    /// would weigh on the next cold start measured (`WarmWorkerBenchmark` measures the pool).
    private func launcher(sandbox: SandboxRequirements = SandboxRequirements()) -> WorkerLauncher {
        var settings = WorkerSettings(executable: products.tidings)
        settings.sandbox = sandbox
        settings.pool = .off
        return WorkerLauncher(settings: settings)
    }

    /// Round trips of `host.deliver` for `seconds`, the same thread each
    /// time: an "anchor" of the thread is open, so each delivery, a
    /// thread-mate, reaches its instance. With `oneCore`, this process and
    /// the worker the anchor started share CPU 0 while they are timed, as
    /// with the raw round trip "both blocking, one core": they take turns,
    /// and no wake-up crosses cores.
    private func sample(key: String, title: String, host: NotificationHost,
                        notification: UserNotification, oneCore: Bool = false) throws(BenchmarkFailure) -> IsolationResult {
        host.register([], for: BundleFarm.app)
        var anchor = notification
        anchor.identifier = "anchor"
        let first = host.deliver(anchor, to: BundleFarm.app, opening: true)
        guard first.presentation.extensionIdentifier != nil else {
            throw BenchmarkFailure("NoOp did not serve \(title): \(first.diagnostics.map(\.description))")
        }
        let pin = oneCore ? CoreAffinity.pin(processTreeOf: getpid(), to: 0) : nil
        defer { pin?.undo() }
        // Every delivery measured must be NoOp's, not a fallback to the default content.
        var fallbacks: [String] = []
        let run = { () -> Double in
            let start = MonotonicClock.now()
            let delivery = host.deliver(notification, to: BundleFarm.app)
            let elapsed = Double(MonotonicClock.now() - start) / 1e3
            if delivery.presentation.extensionIdentifier == nil { fallbacks.append(delivery.diagnostics.first?.description ?? "?") }
            return elapsed
        }
        let samples = timed(run)
        guard fallbacks.isEmpty else {
            throw BenchmarkFailure("NoOp did not serve \(fallbacks.count) of the deliveries of \(title), the first: \(fallbacks[0])")
        }
        return IsolationResult(key: key, title: title, samples: samples)
    }

    /// How the two ends of a raw round trip wait.
    enum RawKind: CaseIterable {
        /// Both ends poll without sleeping, each on a core of its own.
        case spinning
        /// Both ends on one core (CPU 0), each sleeping in `recv`.
        case sameCore
        /// Each end sleeping in `recv`, the scheduler choosing their cores.
        case blocking

        var key: String {
            switch self {
            case .spinning: "raw-spinning"
            case .sameCore: "raw-same-core"
            case .blocking: "raw"
            }
        }

        var title: String {
            switch self {
            case .spinning: "both spinning, two cores"
            case .sameCore: "both blocking, one core"
            case .blocking: "both blocking, two cores"
            }
        }
    }

    /// A message of the size of a delivery's, to a thread that sends it back,
    /// over a `SOCK_SEQPACKET` socket pair, both ends waiting as `kind` says.
    private func rawRoundTrip(_ kind: RawKind) throws(BenchmarkFailure) -> IsolationResult {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw BenchmarkFailure("No socket pair: \(SystemError.current())")
        }
        let (near, far) = (ends[0], ends[1])
        defer { close(near) }
        let flags = kind == .spinning ? Int32(MSG_DONTWAIT) : 0
        let previous = CoreAffinity.current()
        if kind == .sameCore { try CoreAffinity.pin(to: 0) }
        defer { if kind == .sameCore, let previous { CoreAffinity.restore(previous) } }
        let echoing = Latch()
        Threads.start {
            if kind == .sameCore { try? CoreAffinity.pin(to: 0) }
            echoing.open()
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(far, $0.baseAddress, $0.count, flags) }
                if count < 0 && errno == EAGAIN { continue }
                if count <= 0 { break }
                _ = buffer.withUnsafeBytes { send(far, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
            }
            close(far)
        }
        _ = echoing.wait(until: UInt64.max)
        var message = [UInt8](repeating: 7, count: 600)
        let run = { () -> Double in
            let start = MonotonicClock.now()
            _ = message.withUnsafeBytes { send(near, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            while message.withUnsafeMutableBytes({ recv(near, $0.baseAddress, $0.count, flags) }) < 0 && errno == EAGAIN {}
            return Double(MonotonicClock.now() - start) / 1e3
        }
        return IsolationResult(key: kind.key, title: "raw round trip, \(kind.title) (600 bytes)", samples: timed(run))
    }

    /// Runs `body` for a tenth of `seconds` untimed, then for `seconds`, keeping what it returns.
    private func timed(_ body: () -> Double) -> [Double] {
        let warm = MonotonicClock.deadline(after: seconds / 10)
        while MonotonicClock.now() < warm { _ = body() }
        var samples: [Double] = []
        let end = MonotonicClock.deadline(after: seconds)
        while MonotonicClock.now() < end { samples.append(body()) }
        return samples
    }
}

/// One isolation measurement, in microseconds.
struct IsolationResult {
    var key: String
    var title: String
    var count: Int
    var medianMicroseconds: Double
    var p99Microseconds: Double

    init(key: String, title: String, samples: [Double]) {
        self.key = key
        self.title = title
        count = samples.count
        medianMicroseconds = samples.isEmpty ? 0 : Statistics.median(samples)
        p99Microseconds = samples.isEmpty ? 0 : Statistics.percentile(samples, 0.99)
    }
}
