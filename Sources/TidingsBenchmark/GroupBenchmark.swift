import TidingsBase
import TidingsRegistry
import TidingsServer

/// What the calls about one notification cost against the number kept in
/// its group: `HostService` over a journaled state (as `tidings serve`
/// keeps one), in this process, NoOp serving, every notification of one app
/// without a thread identifier (most apps send none), so all of them are one
/// group. For each size, a new service keeping at most that many is filled
/// to it; then each round delivers a new notification (the oldest expires
/// to make room, so the size stays), asks for its presentation, opens its
/// interface, responds to it ("ack", which NoOp answers with doNotDismiss),
/// closes it (untimed) and lists the next page of one notification of the
/// app (with no cursor at size 1, which has no next page), timing each call
/// (answered and its answer serialised; the request is read before).
struct GroupBenchmark {
    /// The calls timed, in the order each round makes them.
    static let operations = ["deliver", "presentation", "open", "respond", "list"]
    /// The group sizes measured: the first is the reference of the ratios.
    static let sizes = [1, 10, 100, 1_000, 10_000]
    /// Untimed rounds before the timed ones, at each size.
    static let warmUpRounds = 20

    let workspace: Workspace
    /// The extension directory (NoOp alone).
    let extensions: String
    /// Timed rounds at each size.
    let rounds: Int

    /// Measures every size, the smallest first.
    func measure() throws(BenchmarkFailure) -> [GroupResult] {
        var results: [GroupResult] = []
        for size in Self.sizes {
            results.append(try measure(size: size))
        }
        return results
    }

    /// Fills a new service to `size` notifications in one group, then times `rounds` rounds.
    private func measure(size: Int) throws(BenchmarkFailure) -> GroupResult {
        let state: JournaledState
        do throws(Diagnostic) {
            state = try JournaledState(directory: workspace.file("group-state-\(size)"))
        } catch {
            throw BenchmarkFailure(error.message)
        }
        var configuration = HostService.Configuration()
        configuration.host.attachmentDirectory = workspace.file("group-attachments-\(size)")
        configuration.host.deliveredLimit = size
        configuration.host.deliveredLimitPerApp = size
        let service = HostService(index: Discovery.scan(SearchPath(directories: [extensions], origin: .option)),
                                  configuration: configuration, state: state)
        let calls = GroupCalls(service: service)
        try calls.call(#""categories.register","params":{"app":"\#(BundleFarm.app)","categories":[{"identifier":"\#(BundleFarm.category)","actions":[{"identifier":"ack","title":"Acknowledge"}]}]}"#)
        Progress.say("Keeping \(size) notifications in one group")
        for number in 0..<size { _ = try calls.deliver("group-\(number)") }
        Progress.say("Timing \(Self.operations.joined(separator: ", ")) with \(size) kept")
        var samples = Array(repeating: [Double](), count: Self.operations.count)
        var cursor: String?
        for round in 0..<(Self.warmUpRounds + rounds) {
            let identifier = "group-\(size + round)"
            let quoted = #""app":"\#(BundleFarm.app)","identifier":"\#(identifier)""#
            var times = [try calls.deliver(identifier)]
            times.append(try calls.call(#""notifications.presentation","params":{\#(quoted)}"#))
            times.append(try calls.call(#""notifications.open","params":{\#(quoted)}"#))
            times.append(try calls.call(#""notifications.respond","params":{\#(quoted),"action":"ack"}"#))
            // Closed again, so that every size opens with no interface open and expires none open.
            try calls.call(#""notifications.close","params":{\#(quoted)}"#)
            let after = cursor.map { #","cursor":"\#($0)""# } ?? ""
            let page = try calls.answer(#""notifications.list","params":{"app":"\#(BundleFarm.app)","limit":1\#(after)}"#)
            times.append(page.nanoseconds)
            cursor = page.result["next"]?.stringValue
            guard round >= Self.warmUpRounds else { continue }
            for (index, time) in times.enumerated() { samples[index].append(time / 1000) }
        }
        let kept = service.host.delivered(ofApp: BundleFarm.app, after: 0, limit: size + 1).notifications.count
        guard kept == size else { throw BenchmarkFailure("\(kept) notifications were kept, not \(size).") }
        return GroupResult(size: size, latencies: zip(Self.operations, samples).map { key, values in
            GroupLatency(key: key, medianMicroseconds: Statistics.median(values),
                         p99Microseconds: Statistics.percentile(values, 0.99))
        })
    }
}

/// Calls to one `HostService`, timed.
private struct GroupCalls {
    let service: HostService
    let sink = NullReceiver()

    /// Delivers the sample payload without a thread as `identifier`; returns the nanoseconds it took.
    func deliver(_ identifier: String) throws(BenchmarkFailure) -> Double {
        let line = ServerBenchmark.request(identifier: identifier, thread: "")
        return try answer(request: Array(line.dropLast())).nanoseconds
    }

    /// Calls `method` (the request's text from the method's name on, without
    /// its closing brace); returns the nanoseconds it took.
    @discardableResult
    func call(_ method: String) throws(BenchmarkFailure) -> Double {
        try answer(method).nanoseconds
    }

    /// Calls `method` (as for `call`); returns its result and the nanoseconds it took.
    func answer(_ method: String) throws(BenchmarkFailure) -> (result: JSON, nanoseconds: Double) {
        try answer(request: Array(#"{"jsonrpc":"2.0","id":1,"method":\#(method)}"#.utf8))
    }

    /// Answers the request `line` and serialises the answer, timed.
    private func answer(request line: [UInt8]) throws(BenchmarkFailure) -> (result: JSON, nanoseconds: Double) {
        guard case .single(.success(let request)) = RPCMessage.read(line) else {
            throw BenchmarkFailure("The benchmark's request does not read as one: \(String(decoding: line, as: UTF8.self))")
        }
        let start = MonotonicClock.now()
        let answer = service.answer(request, from: sink)
        let bytes = (try? answer.get()).map { RPCReply.result($0, id: .number(1)) }
        let took = MonotonicClock.now() - start
        switch answer {
        case .success(let result):
            guard bytes?.isEmpty == false else { throw BenchmarkFailure("\(request.method) gave an empty answer.") }
            return (result, Double(took))
        case .failure(let error):
            throw BenchmarkFailure("\(request.method) failed: \(error.message)")
        }
    }
}

/// The latency of each call at one group size.
struct GroupResult {
    /// The notifications kept, all in one group.
    var size: Int
    /// One for each of `GroupBenchmark.operations`, in that order.
    var latencies: [GroupLatency]
}

/// The latency of one call at one group size.
struct GroupLatency {
    /// The call: deliver, presentation, open, respond, list.
    var key: String
    var medianMicroseconds: Double
    var p99Microseconds: Double
}
