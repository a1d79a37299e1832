import Glibc
import TidingsBase
import TidingsRegistry
import TidingsServer

/// How long state-changing calls wait while the journal is folded into a
/// snapshot with many notifications kept: `HostService` over a journaled
/// state (its folds on their thread, as in `tidings serve`), in this
/// process, NoOp serving. It delivers `kept` notifications, then goes on
/// delivering new versions of them (so that as many stay kept) until
/// `folds` more folds have finished, timing every delivery and counting the
/// thread's context switches around it: a call the scheduler preempted
/// (an involuntary switch, and no voluntary one) waited for the machine,
/// not for a lock or the disk.
struct FoldBenchmark {
    let workspace: Workspace
    /// The extension directory (NoOp alone).
    let extensions: String
    /// How many notifications are kept while folds are measured.
    let kept: Int
    /// How many folds the measurement spans.
    let folds: Int

    /// Fills the state, then measures across `folds` folds.
    func measure() throws(BenchmarkFailure) -> FoldResult {
        let state: JournaledState
        do throws(Diagnostic) {
            state = try JournaledState(directory: workspace.file("fold-state"))
        } catch {
            throw BenchmarkFailure(error.message)
        }
        var configuration = HostService.Configuration()
        configuration.host.attachmentDirectory = workspace.file("fold-attachments")
        // All of them kept: none expires, each new version replaces one.
        configuration.host.deliveredLimit = kept
        configuration.host.deliveredLimitPerApp = kept
        let service = HostService(index: Discovery.scan(SearchPath(directories: [extensions], origin: .option)),
                                  configuration: configuration, state: state)
        let sink = NullReceiver()
        /// Delivers notification `number` (of `kept`, round and round); returns
        /// how long the call took, in ns, and whether it was preempted.
        func deliver(_ number: Int) throws(BenchmarkFailure) -> (UInt64, preempted: Bool) {
            let line = ServerBenchmark.request(identifier: "kept-\(number % kept)", thread: "bench")
            guard case .single(.success(let request)) = RPCMessage.read(Array(line.dropLast())) else {
                throw BenchmarkFailure("The benchmark's request does not read as one.")
            }
            let before = Self.contextSwitches()
            let start = MonotonicClock.now()
            if case .failure(let error) = service.answer(request, from: sink) {
                throw BenchmarkFailure("The delivery failed: \(error.message)")
            }
            let took = MonotonicClock.now() - start
            let after = Self.contextSwitches()
            return (took, after.involuntary > before.involuntary && after.voluntary == before.voluntary)
        }

        Progress.say("Keeping \(kept) notifications (journaled, folding as it grows)")
        for number in 0..<kept { _ = try deliver(number) }
        Progress.say("Delivering new versions of them across \(folds) folds")
        let first = state.folds.count
        var seen = first
        var all: [Double] = []
        var duringFolds: [Double] = []
        var unpreemptedDuringFolds: [Double] = []
        var preemptedOverLimit = 0
        var durations: [Double] = []
        let ends = MonotonicClock.deadline(after: 600)
        var number = 0
        while seen < first + folds {
            guard MonotonicClock.now() < ends else { throw BenchmarkFailure("\(folds) folds did not finish in 10 minutes.") }
            let folding = state.folds.running
            let (took, preempted) = try deliver(number)
            let waited = Double(took) / 1e6
            number += 1
            all.append(waited)
            let report = state.folds
            if folding || report.running {
                duringFolds.append(waited)
                if preempted {
                    if waited > 10 { preemptedOverLimit += 1 }
                } else {
                    unpreemptedDuringFolds.append(waited)
                }
            }
            if report.count != seen {
                seen = report.count
                durations.append(report.lastDuration * 1000)
            }
            if let failure = report.failure { throw BenchmarkFailure("A fold failed: \(failure.message)") }
        }
        return FoldResult(kept: kept, calls: all.count, foldsMeasured: durations.count,
                          medianMilliseconds: Statistics.median(all), p99Milliseconds: Statistics.percentile(all, 0.99),
                          maximumMilliseconds: all.max() ?? 0, callsDuringFolds: duringFolds.count,
                          p99DuringFoldsMilliseconds: duringFolds.isEmpty ? 0 : Statistics.percentile(duringFolds, 0.99),
                          maximumDuringFoldsMilliseconds: duringFolds.max() ?? 0,
                          maximumUnpreemptedDuringFoldsMilliseconds: unpreemptedDuringFolds.max() ?? 0,
                          preemptedOverTenMilliseconds: preemptedOverLimit,
                          medianFoldMilliseconds: durations.isEmpty ? 0 : Statistics.median(durations),
                          longestFoldMilliseconds: durations.max() ?? 0,
                          journalBytes: JournaledState.defaultFoldThreshold)
    }
}

extension FoldBenchmark {
    /// The calling thread's context switches so far: voluntary (it waited
    /// for something) and involuntary (the scheduler preempted it).
    /// The corresponding C function is `getrusage(RUSAGE_THREAD)`.
    static func contextSwitches() -> (voluntary: Int, involuntary: Int) {
        var usage = rusage()
        // RUSAGE_THREAD, which Glibc's Swift module does not name.
        getrusage(__rusage_who_t(1), &usage)
        return (usage.ru_nvcsw, usage.ru_nivcsw)
    }
}

/// What the fold benchmark found: the wait of state-changing calls, all and
/// those made while a fold ran, beside the folds' own durations.
struct FoldResult {
    /// Notifications kept.
    var kept: Int
    /// Deliveries timed.
    var calls: Int
    /// Folds that finished while they were timed.
    var foldsMeasured: Int
    var medianMilliseconds: Double
    var p99Milliseconds: Double
    /// The longest wait of any call (p100).
    var maximumMilliseconds: Double
    /// Deliveries made while a fold ran.
    var callsDuringFolds: Int
    var p99DuringFoldsMilliseconds: Double
    /// The longest wait of a call made while a fold ran.
    var maximumDuringFoldsMilliseconds: Double
    /// The longest wait of a call made while a fold ran that the scheduler
    /// did not preempt: what a lock or the disk made it wait.
    var maximumUnpreemptedDuringFoldsMilliseconds: Double
    /// Calls made while a fold ran that waited over 10 ms and were preempted.
    var preemptedOverTenMilliseconds: Int
    /// How long a fold took (applying its records, writing and flushing the snapshot), median.
    var medianFoldMilliseconds: Double
    var longestFoldMilliseconds: Double
    /// The least journal size past which a fold starts (it also waits for the journal to outgrow the state).
    var journalBytes: Int
}
