import Glibc
import TidingsBase
import TidingsRegistry
import TidingsIsolation
import TidingsRuntime

/// What process isolation costs: deliver → presentation with NoOp in a
/// worker process against the same in this process, and against a raw
/// round trip over the same kind of socket pair (a thread echoing each
/// message), measured in the same run; and the cold start of a worker
/// (a new host's first delivery: spawn, load, instance, call).
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
        Progress.say("Measuring the raw socket-pair round trip")
        let raw = try rawRoundTrip()
        Progress.say("Measuring deliver → presentation in this process")
        let inProcess = sample(key: "in-process", title: "deliver → presentation, in process",
                               host: NotificationHost(index: index), notification: notification)
        Progress.say("Measuring deliver → presentation in a worker process")
        let isolated = sample(key: "isolated", title: "deliver → presentation, in a worker process",
                              host: NotificationHost(index: index, launcher: launcher()), notification: notification)
        Progress.say("Timing \(coldStarts) worker cold starts")
        var starts: [Double] = []
        for round in 0..<coldStarts {
            let host = NotificationHost(index: index, launcher: launcher())
            var first = notification
            first.identifier = "cold-\(round)"
            let start = MonotonicClock.now()
            let delivery = host.deliver(first, to: BundleFarm.app)
            starts.append(Double(MonotonicClock.now() - start) / 1e3)
            guard delivery.presentation.extensionIdentifier != nil else {
                throw BenchmarkFailure("The worker did not serve NoOp: \(delivery.diagnostics.map(\.description))")
            }
        }
        let cold = IsolationResult(key: "cold-start", title: "worker cold start (a new host's first delivery)",
                                   samples: starts)
        return [raw, inProcess, isolated, cold]
    }

    /// Workers of the release-built `tidings`.
    private func launcher() -> WorkerLauncher {
        WorkerLauncher(settings: WorkerSettings(executable: products.tidings))
    }

    /// Round trips of `host.deliver` for `seconds`, the same thread each time.
    private func sample(key: String, title: String, host: NotificationHost,
                        notification: UserNotification) -> IsolationResult {
        host.register([], for: BundleFarm.app)
        let run = { () -> Double in
            let start = MonotonicClock.now()
            _ = host.deliver(notification, to: BundleFarm.app)
            return Double(MonotonicClock.now() - start) / 1e3
        }
        return IsolationResult(key: key, title: title, samples: timed(run))
    }

    /// A message of the size of a delivery's, to a thread that sends it back,
    /// over a `SOCK_SEQPACKET` socket pair.
    private func rawRoundTrip() throws(BenchmarkFailure) -> IsolationResult {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw BenchmarkFailure("No socket pair: \(SystemError.current())")
        }
        let (near, far) = (ends[0], ends[1])
        defer { close(near) }
        Threads.start {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(far, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                _ = buffer.withUnsafeBytes { send(far, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
            }
            close(far)
        }
        var message = [UInt8](repeating: 7, count: 600)
        let run = { () -> Double in
            let start = MonotonicClock.now()
            _ = message.withUnsafeBytes { send(near, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            _ = message.withUnsafeMutableBytes { recv(near, $0.baseAddress, $0.count, 0) }
            return Double(MonotonicClock.now() - start) / 1e3
        }
        return IsolationResult(key: "raw", title: "raw round trip (socket pair, 600 bytes each way)", samples: timed(run))
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
