import TidingsBase
import TidingsServer

extension PushResult {
    /// The socket measurement with `key`, if it ran.
    func socket(_ key: String) -> PushSocketResult? {
        socket.first { $0.key == key }
    }

    /// The section of the table; the issue sets no target for it.
    var lines: [String] {
        var lines = ["Push: Web Push (RFC 8291, aes128gcm) in this process, not pinned, \(NumberText.short(seconds)) s each; "
            + "encrypt = WebPushSender.encrypt (a new sender key pair each: what a sender pays), "
            + "decrypt = WebPushSubscriber.decrypt (what the server does for each push)"]
        for result in crypto {
            let title = "\(result.operation), \(NumberText.grouped(Int64(result.plaintextBytes)))-byte payload "
                + "(\(NumberText.grouped(Int64(result.bodyBytes)))-byte body)"
            lines.append(title.rightPadded(to: 52) + "median \(NumberText.fixed(result.medianMicroseconds, 1)) µs, "
                + "p99 \(NumberText.fixed(result.p99Microseconds, 1)) µs (\(NumberText.grouped(Int64(result.count))) calls)")
        }
        lines.append("Over the socket: tidings serve with NoOp, --push-burst 1000000 --push-rate 1000000, one front-end connection "
            + "(push.register, push.distributor, push.endpoint first), each round trip a new notification of the typical payload; "
            + "push.receive: a body of \(PushBenchmark.poolSize) encrypted before timing, a new id each "
            + "(the registration's \(NumberText.grouped(Int64(PushMessageIDs.defaultLimit))) remembered ids filled first), or none; one client shares CPU "
            + "\(ServerBenchmark.oneClientCPU) with the server; the server's CPU is its own and its workers' (/proc/PID/stat)")
        let baseline = socket("deliver-presentation-in-process")
        for result in socket {
            let mode = result.isolation == "process" ? "isolated (default mode)" : "in process"
            let title = result.method == "push.receive" ? "push.receive\(result.key.contains("no-id") ? " without ids" : ""), \(mode)"
                : "notifications.deliver (\(result.answer)), \(mode)"
            var line = title.rightPadded(to: 52) + "\(NumberText.grouped(Int64(result.perSecond)))/s, "
                + "median \(NumberText.fixed(result.medianMicroseconds, 1)) µs, p99 \(NumberText.fixed(result.p99Microseconds, 1)) µs, "
                + "server CPU \(NumberText.fixed(result.serverMicrosecondsPerCall, 1)) µs a call, "
                + "answer \(NumberText.grouped(Int64(result.answerBytes))) bytes"
            if let baseline, result.key != baseline.key {
                line += ", \(NumberText.fixed(baseline.perSecond / result.perSecond, 2)) × deliver (presentation)'s time, "
                    + "\(NumberText.fixed(result.serverMicrosecondsPerCall / max(baseline.serverMicrosecondsPerCall, 0.001), 2)) × its CPU"
            }
            lines.append(line)
        }
        if let pushes = socket("push-in-process") {
            lines.append("The rate limit by default: \(defaultBurst) pushes an app at once (--push-burst), then "
                + "\(NumberText.short(defaultRate)) a second (--push-rate); the server sustains "
                + "\(NumberText.grouped(Int64(pushes.perSecond))) a second for one app, in process "
                + "(\(NumberText.grouped(Int64(pushes.perSecond / defaultRate))) × the default rate).")
        }
        return lines
    }

    /// The section as JSON.
    var json: JSON {
        .object([
            ("seconds", .double(seconds)),
            ("crypto", .array(crypto.map { result in
                .object([("key", .string(result.key)), ("operation", .string(result.operation)),
                         ("plaintextBytes", .integer(Int64(result.plaintextBytes))), ("bodyBytes", .integer(Int64(result.bodyBytes))),
                         ("calls", .integer(Int64(result.count))), ("medianMicroseconds", .double(result.medianMicroseconds)),
                         ("p99Microseconds", .double(result.p99Microseconds))])
            })),
            ("socket", .array(socket.map { result in
                .object([("key", .string(result.key)), ("method", .string(result.method)), ("answer", .string(result.answer)),
                         ("isolation", .string(result.isolation)), ("perSecond", .double(result.perSecond)),
                         ("medianMicroseconds", .double(result.medianMicroseconds)), ("p99Microseconds", .double(result.p99Microseconds)),
                         ("answerBytes", .integer(Int64(result.answerBytes))),
                         ("serverMicrosecondsPerCall", .double(result.serverMicrosecondsPerCall))])
            })),
            ("defaultBurst", .integer(Int64(defaultBurst))),
            ("defaultRate", .double(defaultRate)),
        ])
    }
}
