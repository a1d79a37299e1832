import TidingsBase
import TidingsIsolation

/// The options of `tidings serve` that size its pool of warm workers
/// (`WorkerPoolSettings`); one-shot commands keep none.
enum WarmWorkersOption {
    /// The longest idle time taken, in seconds: a day.
    static let longestIdle = 86_400.0

    static let options = [
        CommandSpec.Option(
            name: "warm-workers", value: "COUNT",
            help: "Keep at most this many idle workers for content extensions, over all bundles (default \(WorkerPoolSettings().hostLimit)); 0 keeps none, so that every opened interface starts a worker of its own, which ends with it."),
        CommandSpec.Option(
            name: "warm-workers-per-bundle", value: "COUNT",
            help: "Keep at most this many idle workers per bundle (default \(WorkerPoolSettings().bundleLimit))."),
        CommandSpec.Option(
            name: "warm-idle", value: "SECONDS",
            help: "End an idle worker after this many seconds without an interface (default \(NumberText.short(WorkerPoolSettings().idleTime)), at most a day)."),
    ]

    static let discussion = """
        Warm workers: in isolated mode, a content extension's worker whose interface closed cleanly waits, idle, \
        to serve the same bundle's next opened interface (its globals live on, as on iOS; no view state, pending completion or \
        attachment copy of the last notification's does), and a spare starts ahead of need when a bundle has none idle, \
        so that opening costs no cold start. A worker that faulted or timed out, or whose bundle was quarantined or \
        replaced, is never kept. Idle workers cost memory: server.describe's "workers" says how many there are and \
        what they hold. TidingsSharedWorker bundles and service extensions keep their one worker as before.
        """

    /// The pool the options set, over the defaults.
    /// - Throws: a usage failure for a count or time out of range.
    static func settings(_ arguments: ParsedArguments) throws(CommandFailure) -> WorkerPoolSettings {
        var settings = WorkerPoolSettings()
        settings.hostLimit = try arguments.count("warm-workers", atMost: 1_024) ?? settings.hostLimit
        settings.bundleLimit = try arguments.count("warm-workers-per-bundle", atMost: 1_024) ?? settings.bundleLimit
        if let idle = try arguments.positiveNumber("warm-idle") {
            guard idle <= longestIdle else {
                throw .usage("--warm-idle must be at most \(NumberText.short(longestIdle)) seconds (a day); it is \(NumberText.short(idle)).")
            }
            settings.idleTime = idle
        }
        return settings
    }

    /// `status` as `server.describe`'s `workers`.
    static func json(_ status: WorkerPoolStatus) -> JSON {
        .object([("idle", .integer(Int64(status.idle))), ("residentBytes", .integer(Int64(status.residentBytes))),
                 ("anonymousBytes", .integer(Int64(status.anonymousBytes)))])
    }

}
