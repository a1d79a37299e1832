import Synchronization
import TidingsBase
import TidingsRegistry
import TidingsIsolation
import TidingsRuntime

/// The `--isolation MODE` option of the commands that run extensions, over
/// the host's configuration file, and the launcher that follows them.
enum IsolationOption {
    static let option = CommandSpec.Option(
        name: "isolation", value: "MODE",
        help: "Where extensions run: \"process\" (each bundle in a worker process of its own; the default) or \"in-process\" (in this process: faster, but a crash takes the host down). Per-bundle entries of the configuration file win.",
        choices: IsolationPolicy.Mode.allCases.map(\.rawValue))

    static let discussion = """
        Isolation: $XDG_CONFIG_HOME/tidings/config.json (~/.config/…) may set {"isolation": MODE, \
        "limits": {"memory-mib": 64, "cpu-seconds-per-call": 2, "call-timeout": 10}, \
        "bundles": {"IDENTIFIER or NAME.appex": {"isolation": MODE}}}. A worker that crashes, aborts, exits, \
        overflows its stack, exceeds its limits, hangs or stops reading is restarted with backoff; after 3 faults \
        within 60 s its bundle is quarantined until its library or manifest changes. Faults are kept in \
        $XDG_STATE_HOME/tidings/faults.json and shown by tidings list.
        """

    /// The policy: the configuration file's, with `--isolation` as the default mode when given.
    static func policy(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> IsolationPolicy {
        var policy = IsolationPolicy()
        if let path = IsolationPolicy.standardPath(in: environment) {
            do throws(Diagnostic) {
                policy = try IsolationPolicy.load(from: path)
            } catch {
                throw .ownFile(error, otherwise: .dataError)
            }
        }
        if let given = arguments.value(option.name) {
            guard let mode = IsolationPolicy.Mode(rawValue: given) else {
                let names = IsolationPolicy.Mode.allCases.map(\.rawValue).joined(separator: " or ")
                throw .usage("--isolation takes \(names), not \"\(given)\".")
            }
            policy.defaultMode = mode
        }
        return policy
    }

    /// Checks the place of the user's fault ledger (`FaultLedger.check()`),
    /// which every command that runs or lists extensions reads.
    static func checkLedger(environment: [String: String]) throws(CommandFailure) {
        do throws(Diagnostic) {
            try FaultLedger.standard(in: environment)?.check()
        } catch {
            throw .ownFile(error, otherwise: .cannotCreate)
        }
    }

    /// The launcher that follows `policy`, with workers recording their
    /// faults in the user's ledger and kept warm as `pool` says (one-shot
    /// commands keep none); `onFault` hears what workers report outside calls.
    static func launcher(_ policy: IsolationPolicy, environment: [String: String], pool: WorkerPoolSettings = .off,
                         onFault: @escaping @Sendable (Diagnostic) -> Void) -> IsolatingLauncher {
        var workers = workers(policy, environment: environment, onFault: onFault)
        workers.settings.pool = pool
        return IsolatingLauncher(policy: policy, workers: workers)
    }

    /// The worker launcher `policy` asks for, recording faults in the user's
    /// ledger unless `recordingFaults` is false (a bundle on trial: `tidings validate`).
    static func workers(_ policy: IsolationPolicy, environment: [String: String], recordingFaults: Bool = true,
                        onFault: @escaping @Sendable (Diagnostic) -> Void) -> WorkerLauncher {
        var settings = WorkerSettings(executable: SandboxedProcess.currentExecutable ?? CommandLine.arguments[0])
        settings = policy.applied(to: settings)
        settings.pool = .off
        let ledger = recordingFaults ? FaultLedger.standard(in: environment) : nil
        var workers = WorkerLauncher(settings: settings, ledger: ledger, onFault: onFault)
        workers.networkGranted = policy.networkGranted
        return workers
    }
}

/// What workers reported outside calls during a one-shot command, for its output.
final class FaultNotes: Sendable {
    private let notes = Mutex<[Diagnostic]>([])

    /// Keeps `diagnostic`.
    @Sendable func append(_ diagnostic: Diagnostic) {
        notes.withLock { $0.append(diagnostic) }
    }

    /// The notes kept so far that `known` does not already hold, forgetting them.
    func take(besides known: [Diagnostic]) -> [Diagnostic] {
        notes.withLock { notes in
            defer { notes = [] }
            return notes.filter { !known.contains($0) }
        }
    }
}
