import Glibc
import TidingsBase

/// What the worker does with its extension's standard output: reads it on a
/// thread of its own, so that a writer never blocks on a full pipe, and
/// reports it to the host as `worker.output` warnings, at most four a second
/// (each says how many bytes came since the last and shows the first of
/// them, made printable). The bytes themselves go nowhere: the host's
/// channel is descriptor 3, so nothing written to 1 can be taken for a
/// message.
enum WorkerOutput {
    /// The least time between two reports, in seconds.
    static let reportInterval = 0.25

    /// How many bytes of the output a report shows.
    static let previewLength = 48

    /// Starts the thread that drains `pipe` (the read end of the captured
    /// standard output), which it owns from now on.
    static func drain(_ pipe: consuming FileDescriptor, bundle: String, to channel: WorkerChannel) {
        let descriptor = pipe.take()
        Threads.start {
            let owned = FileDescriptor(adopting: descriptor)
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            var pending = 0
            var preview: [UInt8] = []
            var lastReport: UInt64 = 0
            while true {
                var wait: Int32 = -1
                if pending > 0 {
                    let due = lastReport + UInt64(reportInterval * 1e9)
                    let now = MonotonicClock.now()
                    if now >= due {
                        report(pending, preview, bundle: bundle, to: channel)
                        (pending, preview, lastReport) = (0, [], now)
                        continue
                    }
                    wait = Int32((due - now) / 1_000_000) + 1
                }
                var entry = pollfd(fd: owned.rawValue, events: Int16(POLLIN), revents: 0)
                let ready = poll(&entry, 1, wait)
                if ready == 0 || (ready < 0 && errno == EINTR) { continue }
                let count = buffer.withUnsafeMutableBytes { read(owned.rawValue, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                if preview.count < previewLength { preview += buffer[..<min(count, previewLength - preview.count)] }
                pending += count
            }
            if pending > 0 { report(pending, preview, bundle: bundle, to: channel) }
        }
    }

    /// Sends one `worker.output` report.
    private static func report(_ count: Int, _ preview: [UInt8], bundle: String, to channel: WorkerChannel) {
        let shown = String(decoding: preview.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
        let diagnostic = Diagnostic.warning(
            .workerOutput,
            "\(bundle) wrote \(count) byte\(count == 1 ? "" : "s") to standard output, which goes nowhere (\"\(shown)\(count > preview.count ? "…" : "")\"); log with the host's log function instead.")
        try? channel.send(WorkerMessage.report(diagnostic).encoded, timeout: 1)
    }
}
