import Glibc
import TidingsBase

/// What the host does with a worker's standard output and standard error:
/// both go to one pipe the host reads, never to anyone's output. What comes
/// is reported as `worker.output` warnings, at most four a second, each
/// saying how many bytes came since the last and showing the first of them,
/// made printable: an extension can neither forge the host's log lines nor
/// flood them.
struct WorkerOutput {
    /// The least time between two reports, in seconds.
    static let reportInterval = 0.25
    /// How many bytes of the output a report shows.
    static let previewLength = 48

    /// The bundle's name, for the report.
    let bundle: String
    /// Bytes read since the last report.
    private(set) var pending = 0
    private var preview: [UInt8] = []
    private var lastReport: UInt64 = 0

    init(bundle: String) {
        self.bundle = bundle
    }

    /// Takes in what was read.
    mutating func take(_ bytes: ArraySlice<UInt8>) {
        if preview.count < Self.previewLength { preview += bytes.prefix(Self.previewLength - preview.count) }
        pending += bytes.count
    }

    /// Milliseconds until the next report is due; nil when nothing waits.
    func millisecondsUntilDue(now: UInt64) -> Int32? {
        guard pending > 0 else { return nil }
        let due = lastReport + UInt64(Self.reportInterval * 1e9)
        return due <= now ? 0 : Int32((due - now) / 1_000_000) + 1
    }

    /// The report due now (or, with `force`, whatever waits), clearing it.
    mutating func report(now: UInt64, force: Bool = false) -> Diagnostic? {
        guard pending > 0, force || millisecondsUntilDue(now: now) == 0 else { return nil }
        let shown = String(decoding: preview.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
        let diagnostic = Diagnostic.warning(
            .workerOutput,
            "\(bundle) wrote \(pending) byte\(pending == 1 ? "" : "s") to standard output or standard error, which goes nowhere (\"\(shown)\(pending > preview.count ? "…" : "")\"); log with the host's log function instead.")
        (pending, preview, lastReport) = (0, [], now)
        return diagnostic
    }
}
