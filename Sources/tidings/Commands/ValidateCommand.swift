import Glibc
import TidingsBase
import TidingsRegistry
import TidingsRuntime

/// `tidings validate`: loads each extension in a worker and exercises it,
/// as clap-validator and pluginval do for audio plug-ins.
enum ValidateCommand: Command {
    static let startsWorkers = true

    static let spec = CommandSpec(
        name: "validate",
        summary: "Load each extension bundle in a worker, with limits, and run named checks on it: a pass/warn/fail table.",
        usage: "BUNDLE... [--categories FILE]... [--payload FILE]... [--check NAME]... [--strict] [--seed N] [--deadline SECONDS] [--service-deadline SECONDS] [--call-timeout SECONDS] [--verbose] [--json]",
        options: [
            .init(name: "categories", value: "FILE",
                  help: "Register an app's categories and actions from a JSON file, to respond with those actions (default: made up from each category the manifest declares: a plain, a destructive and a text-input action).",
                  repeatable: true),
            .init(name: "payload", value: "FILE",
                  help: "Also deliver this payload (as tidings deliver reads it), and check that its category is one the manifest declares, case included.",
                  repeatable: true),
            .init(name: "check", value: "NAME",
                  help: "Run and report only these checks (repeatable, or comma-separated): " + ValidationCheck.Name.allCases.map(\.rawValue).joined(separator: ", ") + "; a check they need that failed (manifest, library, load) is reported too, and fails the run.",
                  repeatable: true),
            .init(name: "strict", value: nil, help: "Fail on warnings too: a check that warns fails, and the exit status is 65."),
            .init(name: "seed", value: "N", help: "The seed of the random notifications (default 1): the same seed delivers the same notifications."),
            .init(name: "deadline", value: "SECONDS", help: "How long a response's completion may take (default 5)."),
            .init(name: "service-deadline", value: "SECONDS", help: "How long a service extension may take (default 5)."),
            .init(name: "call-timeout", value: "SECONDS", help: "How long one call may take before its worker is stopped (default 5)."),
            SearchPathOption.option,
            WaitNotice.option,
            .init(name: "json", value: nil, help: "Print JSON instead of text."),
        ],
        arguments: .directory,
        discussion: [
            "BUNDLE is a NAME.appex directory, or the name or identifier of a bundle on the search path.",
            "Checks, in order: manifest, interface (the interface file), library (ELF, the entry symbol — a missing one lists the tidings_ symbols the library exports, with a did-you-mean —, the libraries and symbols it needs, read without loading), registry (no other bundle beside it on the search path — or in its directory, when that is not on the search path — shares its identifier or claims one of its categories: the verdict tidings list, install, manifest lint and deliver --explain give), categories (the categories of --categories and --payload files are the manifest's, case included, with a did-you-mean), load (the entry negotiates a descriptor of a known size, create makes an instance), notifications (didReceive of every payload shape, Unicode, empty and long fields, ten attachments, then random ones from --seed), thread (thread-mates reach it again), elements (with UNNotificationExtensionUserInteractionEnabled: each enabled button tapped, each text field submitted, each request for text input answered), responses (each action of its categories, text input, the default and dismiss actions: the completion called exactly once, in time, and what it did to the view), service (a service extension's content handler within the deadline, after time-will-expire at the latest), output (nothing written to standard output or error), cost (time per call and the worker's peak memory). A check that cannot run is skipped and says why.",
            "The extension runs in a worker of its own, sandboxed as tidings serve would run it, with the configuration file's limits; its faults are reported here and never recorded in the fault ledger, so validating quarantines nothing. Exit status 0 when no check failed, 65 when one did (or, with --strict, warned).",
            "Messages name the file and the key path or element at fault, and the fix: a view element the extension changes but cannot find names the interface file and each element without an id (view.no-such-element, a warning: an error with --strict).",
            WaitNotice.discussion,
        ],
        examples: [
            "tidings validate ./Greeter.appex",
            "tidings validate EventInvite --categories Plugins/EventInvite/Payloads/categories.json --seed 7 --json",
        ],
        bundleArguments: true)

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw .usage("tidings validate needs a bundle (see tidings validate --help).") }
        var settings = Validator.Settings()
        settings.environment = environment
        if let seed = arguments.value("seed") {
            guard let value = UInt64(seed) else { throw .usage("--seed takes a whole number from 0, not \"\(seed)\".") }
            settings.seed = value
        }
        settings.responseDeadline = try DeadlineOption.seconds("deadline", arguments) ?? settings.responseDeadline
        settings.serviceDeadline = try DeadlineOption.seconds("service-deadline", arguments) ?? settings.serviceDeadline
        settings.callTimeout = try DeadlineOption.seconds("call-timeout", arguments) ?? settings.callTimeout
        var notes: [Diagnostic] = []
        settings.categoryFiles = try arguments.values("categories").map { (path: String) throws(CommandFailure) in
            (path, try DeliverCommand.readCategories(path, notes: &notes))
        }
        settings.payloads = try arguments.values("payload").map { (path: String) throws(CommandFailure) in
            CategoryAgreement.PayloadFile(path: path, json: try DeliverCommand.readPayload(path))
        }
        let selected = try checks(arguments)
        settings.notice = WaitNotice(arguments, environment: environment)
        settings.policy = try IsolationOption.policy(arguments, environment: environment)

        let paths = try arguments.positionals.map { (target: String) throws(CommandFailure) -> String in
            if FileSystem.status(of: target)?.kind == .directory { return target }
            guard let bundle = try SearchPathOption.index(arguments, environment: environment).bundle(named: target) else {
                throw CommandFailure(.noInput, [.error(.fileNotFound,
                    "\(target) is neither a bundle directory nor the name of a bundle on the search path.")])
            }
            return bundle.path
        }
        // Each bundle is judged among the bundles beside it, as tidings list judges it.
        let searchPath = SearchPath.resolve(environment: environment, override: arguments.values("extensions"))
        var report = ValidationReport(bundles: [], seed: settings.seed)
        for path in paths {
            let scratch: String
            do {
                scratch = try FileSystem.makeTemporaryDirectory(prefix: "tidings-validate")
            } catch {
                throw CommandFailure(.cannotCreate, [error])
            }
            defer { try? FileSystem.removeTree(scratch) }
            var staged = FileSystem.absolutePath(path)
            do throws(Diagnostic) {
                // A Swift package made by tidings new: its library is in .build (BuiltLibrary.swift).
                if let built = try BuiltLibrary.stage(project: path, in: scratch) {
                    staged = built.bundle
                    printError("tidings validate: " + Terminal(descriptor: 2, environment: environment).line(for: built.note))
                }
            } catch {
                throw CommandFailure(.noInput, [error])
            }
            let bundle = ExtensionBundle.judged(staged, on: searchPath)
            let validator = Validator(bundle: bundle, settings: settings, scratch: scratch, only: selected)
            let checks = LostIdentifiers.explain(validator.run(), bundle: bundle)
            // The checks named, and any failed check they needed: a skip never hides why, and the run fails as a full one would.
            report.bundles.append((path, ValidationCheck.selecting(selected, from: checks)))
        }
        report.strict = arguments.flag("strict")
        if arguments.flag("json") {
            print(report.json.serialized(pretty: true))
        } else {
            print(report.text(terminal: Terminal(descriptor: 1, environment: environment)), terminator: "")
        }
        return report.failed ? .dataError : .success
    }

    /// The checks `--check` names (nil when none is named: all of them).
    private static func checks(_ arguments: ParsedArguments) throws(CommandFailure) -> Set<ValidationCheck.Name>? {
        let names = arguments.values("check").flatMap { $0.split(separator: ",").map(String.init) }
        guard !names.isEmpty else { return nil }
        var selected: Set<ValidationCheck.Name> = []
        for name in names {
            guard let check = ValidationCheck.Name(rawValue: name) else {
                let known = ValidationCheck.Name.allCases.map(\.rawValue)
                let hint = Suggestion.closest(to: name, among: known).map { " Did you mean \($0)?" } ?? ""
                throw .usage("--check takes \(known.joined(separator: ", ")); not \"\(name)\".\(hint)")
            }
            selected.insert(check)
        }
        return selected
    }
}
