import Glibc
import TidingsBase

/// What the host does with a worker's standard output and standard error:
/// both go to one pipe the host reads, never to anyone's output. What comes
/// is reported as `worker.output` warnings, each saying how many bytes came
/// since the last and showing the first of them quoted and escaped
/// (`QuotedText`), at the rate of the bundle's `BundleReports` — four lines
/// a second for all of the bundle's workers and what they report together:
/// an extension can neither forge the host's log lines nor flood them.
struct WorkerOutput {
    /// How many characters of the output a report shows.
    static let previewLength = 48

    /// The bundle's reports, whose rate the output's lines share.
    let reports: BundleReports
    /// Bytes read since the last report.
    private(set) var pending = 0
    private var preview: [UInt8] = []

    init(reports: BundleReports) {
        self.reports = reports
    }

    /// Takes in what was read.
    mutating func take(_ bytes: ArraySlice<UInt8>) {
        // Room for the characters shown, each up to 4 bytes of UTF-8.
        let room = 4 * Self.previewLength
        if preview.count < room { preview += bytes.prefix(room - preview.count) }
        pending += bytes.count
    }

    /// Milliseconds until the next report is due; nil when nothing waits.
    func millisecondsUntilDue(now: UInt64) -> Int32? {
        guard pending > 0 else { return nil }
        return reports.millisecondsUntilOpen(now: now)
    }

    /// The report due now, clearing it; nil when nothing waits or the
    /// bundle's rate holds it back. With `force` (the worker ended), what
    /// waits is reported now, or, when the rate leaves it out, dropped and
    /// counted as left out.
    mutating func report(now: UInt64, force: Bool = false) -> Diagnostic? {
        guard pending > 0 else { return nil }
        guard let leftOut = reports.pass(now: now, counting: force) else {
            if force { (pending, preview) = (0, []) }
            return nil
        }
        let shown = QuotedText.quoted(bytes: preview, limit: Self.previewLength)
        let diagnostic = Diagnostic.warning(
            .workerOutput,
            "\(reports.bundle) wrote \(pending) byte\(pending == 1 ? "" : "s") to standard output or standard error, which goes nowhere (\(shown)\(pending > preview.count ? "…" : "")); log with the host's log function instead."
                + BundleReports.leftOutNote(leftOut))
        (pending, preview) = (0, [])
        return diagnostic
    }
}
