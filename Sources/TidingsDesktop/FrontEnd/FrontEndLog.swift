import Glibc
import TidingsBase

/// The front end's log: on standard error a line for each notification shown
/// and each answer the user gave (the rest with `verbose`), and,
/// with `json`, one JSON object per line on standard output, each with a
/// stable `event` field (for programs and tests). Written at once, unbuffered.
package final class FrontEndLog {
    private let json: Bool
    private let verbose: Bool
    private let output: Int32
    private let errors: Int32
    /// What each human line starts with: the command's name.
    private let name: String
    /// The degradation sentences already logged: each is logged once.
    private var degradationsSaid: Set<String> = []

    /// A log writing JSON to `output` when `json`, and lines to `errors`, each after `name`.
    package init(json: Bool, verbose: Bool, output: Int32 = 1, errors: Int32 = 2, name: String = "tidings desktop") {
        self.name = name
        self.json = json
        self.verbose = verbose
        self.output = output
        self.errors = errors
    }

    /// Logs the thing done: `sentence` for people, `event` with `fields` for
    /// programs, and `monotonic`: when, in seconds of CLOCK_MONOTONIC (to
    /// time what the front end did, as Scripts/desktop-latency.py does).
    /// A `detailed` thing (more than a notification's one line: its
    /// replacement, its close, the action chosen before its answer) is said
    /// to people only with `--verbose`; programs always hear it.
    package func record(_ event: String, _ fields: [(String, JSON)] = [], _ sentence: String, detailed: Bool = false) {
        if verbose || !detailed { write(name + ": " + sentence + "\n", to: errors) }
        guard json else { return }
        let when = JSON.double(Double(MonotonicClock.now()) / 1e9)
        write(JSON.object([("event", .string(event))] + fields + [("monotonic", when)]).serialized() + "\n", to: output)
    }

    /// Logs `sentence` for people only, with `--verbose`.
    package func detail(_ sentence: String) {
        if verbose { write(name + ": " + sentence + "\n", to: errors) }
    }

    /// Logs each of `sentences` the first time it is said (event `degraded`).
    package func degraded(_ sentences: [String], identifier: String) {
        for sentence in sentences where degradationsSaid.insert(sentence).inserted {
            record("degraded", [("identifier", .string(identifier)), ("message", .string(sentence))],
                   "this notification server cannot show everything: \(sentence)")
        }
    }

    /// Writes `text` whole to `descriptor`; a log that cannot be written is dropped.
    private func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { buffer in
                SystemCall.retrying { Glibc.write(descriptor, buffer.baseAddress, buffer.count) }
            }
            guard count > 0 else { return }
            bytes = bytes.dropFirst(count)
        }
    }
}
