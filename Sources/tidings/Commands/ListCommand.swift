import Glibc
import TidingsBase
import TidingsLoader
import TidingsManifest
import TidingsRegistry
import TidingsIsolation
import TidingsRuntime

/// `tidings list`: every bundle on the search path, what it declares, and what is wrong with it.
enum ListCommand: Command {
    static let startsWorkers = true

    static let spec = CommandSpec(
        name: "list",
        summary: "List the extension bundles on the search path, what they declare, and their problems.",
        usage: "[--isolation MODE] [--extensions DIR]... [--no-cache] [--json]",
        options: [
            IsolationOption.option,
            SearchPathOption.option,
            SearchPathOption.noCacheOption,
            .init(name: "json", value: nil, help: "Print JSON instead of a table."),
        ],
        discussion: [
            SearchPathOption.discussion,
            "No extension code runs: manifests are read and libraries are checked (present, ELF, this machine's architecture) without being loaded.",
            "Isolation: where each bundle would run (the configuration file's entry, else --isolation, else process). Status says when a bundle is quarantined after repeated faults, or how many faults it had in the last hour, from $XDG_STATE_HOME/tidings/faults.json; the last fault is listed under Problems.",
            "Flags: hidden = UNNotificationExtensionDefaultContentHidden, title = UNNotificationExtensionOverridesDefaultTitle, touch = UNNotificationExtensionUserInteractionEnabled, view = has an interface file.",
        ],
        examples: ["tidings list", "tidings list --extensions ./build/extensions --json"])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard arguments.positionals.isEmpty else { throw .usage("tidings list takes no arguments.") }
        var index = try SearchPathOption.index(arguments, environment: environment, cached: true)
        index.checkLibraries()
        let policy = try IsolationOption.policy(arguments, environment: environment)
        try IsolationOption.checkLedger(environment: environment)
        var faults: [String: FaultLedger.Entry] = [:]
        var ledgerDamage: String?
        switch FaultLedger.standard(in: environment)?.read() {
        case .entries(let entries)?: faults = entries
        case .damaged(let reason)?: ledgerDamage = reason
        case nil: break
        }
        let isolation = Dictionary(uniqueKeysWithValues: index.bundles.map { bundle in
            (bundle.path, BundleIsolation(mode: policy.mode(for: bundle), faults: faults[bundle.path],
                                          ledgerDamaged: ledgerDamage != nil))
        })
        // What a worker's sandbox holds here, when any bundle runs in one.
        let sandbox = index.bundles.contains { policy.mode(for: $0) == .process }
            ? IsolationOption.workers(policy, environment: environment, onFault: { _ in }).sandboxLayers : []
        let report = ListReport(index: index, isolation: isolation, sandbox: sandbox, ledgerDamage: ledgerDamage)
        if arguments.flag("json") {
            print(report.json.serialized(pretty: true))
        } else {
            print(ListText(report: report, terminal: Terminal(descriptor: 1, environment: environment)).render(),
                  terminator: "")
        }
        return .success
    }
}

/// Where a bundle runs, and what the fault ledger says of it.
struct BundleIsolation {
    var mode: IsolationPolicy.Mode
    var faults: FaultLedger.Entry?
    /// The ledger cannot be read: every isolated bundle stays quarantined.
    var ledgerDamaged = false

    /// True when the bundle is quarantined and its files have not changed
    /// since, or it runs in a worker and the ledger cannot be read.
    var isQuarantined: Bool { (ledgerDamaged && mode == .process) || (faults?.isQuarantined ?? false) }

    /// The faults within the last hour.
    var recentFaults: [FaultLedger.Record] {
        let hourAgo = Double(time(nil)) - 3600
        return (faults?.faults ?? []).filter { $0.time >= hourAgo }
    }

    /// The members `tidings list --json` adds to the bundle.
    var json: [(String, JSON)] {
        [("isolation", .string(mode.rawValue)),
         ("quarantined", .bool(isQuarantined)),
         ("faults", .array((faults?.faults ?? []).map { record in
             .object([("date", .string(ISO8601.format(record.time))), ("class", .string(record.kind)),
                      ("message", .string(record.message))])
         }))]
    }
}

/// What `tidings list` says: the index, where each bundle runs, what a
/// worker's sandbox holds here, and whether the fault ledger can be read.
struct ListReport {
    var index: ExtensionIndex
    var isolation: [String: BundleIsolation]
    var sandbox: [SandboxLayer]
    var ledgerDamage: String?

    /// The index as JSON, each bundle with its isolation and faults, then the sandbox's layers.
    var json: JSON {
        guard case .object(var members) = index.json,
              let position = members.firstIndex(where: { $0.0 == "bundles" }) else { return index.json }
        members[position].1 = .array(index.bundles.map { bundle in
            guard case .object(let fields) = bundle.json, let extra = isolation[bundle.path] else { return bundle.json }
            return .object(fields + extra.json)
        })
        members.append(("sandbox", .array(sandbox.map(\.json))))
        members.append(("faultLedger", .object([("damaged", ledgerDamage.map(JSON.string) ?? .null)])))
        return .object(members)
    }
}
