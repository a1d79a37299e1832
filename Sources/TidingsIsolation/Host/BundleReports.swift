import Synchronization
import TidingsBase

/// What one bundle's workers say to the host's log — what they write to
/// standard output and error (`WorkerOutput`) and the reports they send on
/// their channel — each as one line that is the bundle's, quoted and
/// escaped (`QuotedText`), never the host's own, and at most four a second
/// for all of the bundle's workers together (a worker per opened interface
/// multiplies no rate). What comes faster is counted, and the next line
/// says how much was left out.
///
/// Kept by the bundle's `WorkerProvider`, shared by its connections.
final class BundleReports: Sendable {
    /// The least time between two lines of the bundle's, in seconds.
    static let interval = 0.25
    /// How many characters of what the worker sent a line shows.
    static let shownCharacters = 160

    /// The bundle's name, for the lines.
    let bundle: String
    private let state = Mutex(State())

    private struct State {
        var last: UInt64 = 0
        var spoken = false
        /// Lines left out since the last one passed.
        var leftOut = 0
    }

    /// The reports of `bundle`.
    init(bundle: String) {
        self.bundle = bundle
    }

    /// Milliseconds until a line may pass (0: now).
    func millisecondsUntilOpen(now: UInt64) -> Int32 {
        state.withLock { state in
            let open = state.last + UInt64(Self.interval * 1e9)
            return !state.spoken || open <= now ? 0 : Int32((open - now) / 1_000_000) + 1
        }
    }

    /// Lets one line pass at `now`, if the bundle's rate allows: the number of
    /// lines left out before it (to be said in it); nil when it is left out
    /// too (and counted), or, with `counting` false, only held back.
    func pass(now: UInt64, counting: Bool = true) -> Int? {
        state.withLock { state in
            guard !state.spoken || now >= state.last + UInt64(Self.interval * 1e9) else {
                if counting { state.leftOut += 1 }
                return nil
            }
            defer { (state.last, state.spoken, state.leftOut) = (now, true, 0) }
            return state.leftOut
        }
    }

    /// What the bundle's worker reported on its channel, as the host logs
    /// it: the bundle's own line, its message quoted (`"…"`), its code kept
    /// when it is a plain one outside the host's `worker.` codes (otherwise
    /// `worker.report`), no location but the bundle's; nil when the bundle's
    /// rate leaves it out.
    func relay(_ reported: Diagnostic, now: UInt64) -> Diagnostic? {
        guard let leftOut = pass(now: now) else { return nil }
        let code = Self.isPlain(reported.code.rawValue) && !reported.code.rawValue.hasPrefix("worker.")
            ? reported.code : .workerReport
        return Diagnostic(reported.severity, code,
                          "\(bundle) reported: \(QuotedText.quoted(reported.message, limit: Self.shownCharacters))"
                              + Self.leftOutNote(leftOut))
    }

    /// ", after N lines of the bundle's left out (at most four a second)", or nothing.
    static func leftOutNote(_ leftOut: Int) -> String {
        leftOut == 0 ? "" : " (after \(leftOut) line\(leftOut == 1 ? "" : "s") of the bundle's left out: at most four a second)"
    }

    /// True for a code of lowercase letters, digits, dots and hyphens, at most 64 of them.
    private static func isPlain(_ code: String) -> Bool {
        !code.isEmpty && code.utf8.count <= 64
            && code.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }
    }
}

extension Diagnostic.Code {
    /// A worker reported something on its channel whose code is the host's own or no plain code.
    package static let workerReport = Self("worker.report")
}
