import Glibc
import TidingsBase
import TidingsIsolation
import TidingsManifest
import TidingsProtocol
import TidingsRegistry
import TidingsRuntime

/// Runs `tidings validate`'s checks on one bundle: reads its files, then
/// loads it in a worker of its own (with limits, recording no fault in the
/// user's ledger) and exercises it as hosts and front ends will.
struct Validator {
    /// How the checks run.
    struct Settings {
        /// The seed of the random notifications.
        var seed: UInt64 = 1
        /// The seconds a response's completion may take.
        var responseDeadline = 5.0
        /// The seconds a service extension may take.
        var serviceDeadline = 5.0
        /// The seconds one call may take before its worker is stopped.
        var callTimeout = 5.0
        /// Categories registered for the extension's app (else made up from its manifest), with their files.
        var categoryFiles: [(path: String, file: CategoryFile)] = []
        /// Payloads to deliver besides the samples (`--payload`), whose categories are checked too.
        var payloads: [CategoryAgreement.PayloadFile] = []
        /// The isolation policy of the user's configuration (its sandbox requirements and limits).
        var policy = IsolationPolicy()
        var environment: [String: String] = [:]
        /// What tells of each wait on the extension (`--verbose`, a terminal).
        var notice: WaitNotice?
    }

    let bundle: ExtensionBundle
    let settings: Settings
    /// A directory of the run's own: the sample attachments and the attachment store.
    let scratch: String
    /// The checks `--check` selected; nil for all.
    var only: Set<ValidationCheck.Name>? = nil

    /// Every check, in order.
    func run() -> [ValidationCheck] {
        var checks = fileChecks()
        guard let manifest = bundle.manifest else {
            return checks + skipped(after: .categories, because: "the manifest check failed: no host would load a bundle whose manifest has errors")
        }
        if checks.contains(where: { $0.name == .library && $0.verdict == .fail }) {
            return checks + skipped(after: .categories, because: "the library check failed: the library would not link")
        }
        // None of the checks that load the extension was selected: none of its code runs.
        if let only, only.isSubset(of: [.manifest, .interface, .library, .registry, .categories]) {
            return checks + skipped(after: .categories, because: "not selected (--check)")
        }
        var run = Run(validator: self, manifest: manifest)
        checks += run.exercise()
        return checks
    }

    /// The checks of the bundle's files: manifest, interface file, library.
    private func fileChecks() -> [ValidationCheck] {
        func isInterface(_ problem: Diagnostic) -> Bool {
            let code = problem.code.rawValue
            // An interface file that is not JSON at all is the interface's problem too.
            return code.hasPrefix("interface.") || code.hasPrefix("bundle.interface")
                || (code.hasPrefix("json.") && problem.location.file.map { Path.lastComponent(of: $0) != BundleReader.manifestName } ?? false)
        }
        func isLibrary(_ problem: Diagnostic) -> Bool { problem.code.rawValue.hasPrefix("load.") }
        let manifest = bundle.diagnostics.filter { !isInterface($0) && !isLibrary($0) && !$0.isRegistryVerdict }
        var checks = [ValidationCheck.judging(.manifest, manifest, passing: "valid")]
        if bundle.manifest?.point == .service {
            checks.append(ValidationCheck(name: .interface, verdict: .skip, detail: "a service extension has no interface file"))
        } else {
            checks.append(.judging(.interface, bundle.diagnostics.filter(isInterface),
                                   passing: bundle.interface == nil ? "no interface file named" : "valid"))
        }
        checks.append(.judging(.library, bundle.diagnostics.filter(isLibrary), passing: "links: entry symbol, libraries and symbols found"))
        // What the registry says of it among the bundles beside it, as list says it: which serves, which is shadowed.
        let registry = bundle.diagnostics.filter(\.isRegistryVerdict)
        checks.append(.judging(.registry, registry, passing: registry.first?.message
            ?? "no other bundle beside it shares its identifier or claims its categories"))
        if bundle.manifest == nil {
            checks.append(ValidationCheck(name: .categories, verdict: .skip, detail: "the manifest check failed: it has errors"))
        } else if let manifest = bundle.manifest {
            let given = settings.categoryFiles.count + settings.payloads.count
            let problems = CategoryAgreement.problems(of: manifest, manifestFile: Path.join(bundle.path, BundleReader.manifestName),
                                                      files: settings.categoryFiles, payloads: settings.payloads)
            checks.append(given == 0
                ? ValidationCheck(name: .categories, verdict: .skip, detail: "no --categories or --payload file to compare")
                : .judging(.categories, problems, passing: "the categories of \(given) file\(given == 1 ? "" : "s") are the manifest's"))
        }
        return checks
    }

    /// The checks after `name`, each skipped for `reason`.
    private func skipped(after name: ValidationCheck.Name, because reason: String) -> [ValidationCheck] {
        ValidationCheck.Name.allCases.drop { $0 != name }.dropFirst().map {
            ValidationCheck(name: $0, verdict: .skip, detail: reason)
        }
    }
}

/// One run of the checks that load the extension: a host per check, so that one check's fault never spoils the next.
struct Run {
    let validator: Validator
    let manifest: Manifest
    /// Every call's duration, in milliseconds.
    var durations: [Double] = []
    /// Everything the worker wrote to standard output or error.
    var output: [Diagnostic] = []
    /// The most memory a worker had resident, in bytes.
    var peakMemory: UInt64 = 0

    init(validator: Validator, manifest: Manifest) {
        self.validator = validator
        self.manifest = manifest
    }

    var settings: Validator.Settings { validator.settings }
    var app: String { manifest.appIdentifier }
    var isService: Bool { manifest.point == .service }

    mutating func exercise() -> [ValidationCheck] {
        let attachments = isService ? [] : SampleNotifications.writeAttachments(into: validator.scratch)
        let category = isService ? "" : manifest.categories.first ?? ""
        let samples = SampleNotifications.make(category: category, attachments: attachments, seed: settings.seed)
            + settings.payloads.map { SampleNotifications.Sample(shape: "payload \($0.path)", payload: $0.json,
                                                                 directory: Path.directory(of: $0.path)) }
        var checks: [ValidationCheck] = []

        // load: the first delivery makes the instance.
        let host = makeHost()
        let first = deliver(samples[0], through: host)
        let loadProblems = first.problems.filter(Self.isLoadProblem)
        checks.append(.judging(.load, loadProblems, passing: "descriptor negotiated, instance made"))
        guard loadProblems.isEmpty else {
            return checks + [ValidationCheck.Name.notifications, .thread, .elements, .responses, .service].map {
                ValidationCheck(name: $0, verdict: .skip, detail: "the load check failed: the extension did not load")
            } + [outputCheck(), costCheck()]
        }

        if isService {
            checks.append(ValidationCheck(name: .notifications, verdict: .skip, detail: "a service extension draws nothing"))
            checks.append(ValidationCheck(name: .thread, verdict: .skip, detail: "a service extension draws nothing"))
            checks.append(ValidationCheck(name: .elements, verdict: .skip, detail: "a service extension draws nothing"))
            checks.append(ValidationCheck(name: .responses, verdict: .skip, detail: "a service extension answers no action"))
            checks.append(serviceCheck(samples, first: first))
        } else {
            checks.append(notificationsCheck(samples, first: first, host: host))
            checks.append(threadCheck(category: category))
            checks.append(elementsCheck(category: category))
            checks.append(responsesCheck())
            checks.append(ValidationCheck(name: .service, verdict: .skip, detail: "a content extension"))
        }
        checks.append(outputCheck())
        checks.append(costCheck())
        return checks
    }

    // MARK: The checks

    private mutating func notificationsCheck(_ samples: [SampleNotifications.Sample], first: Delivered,
                                             host: NotificationHost) -> ValidationCheck {
        var problems = first.failures(shape: samples[0].shape)
        for sample in samples.dropFirst() where problems.isEmpty {
            problems += deliver(sample, through: host).failures(shape: sample.shape)
        }
        return .judging(.notifications, problems,
                        passing: "\(samples.count) notifications (seed \(settings.seed)): every shape, Unicode, empty and long fields, attachments")
    }

    private mutating func threadCheck(category: String) -> ValidationCheck {
        let host = makeHost()
        var problems: [Diagnostic] = []
        for number in 1...3 where problems.isEmpty {
            let sample = SampleNotifications.Sample(shape: "thread-mate \(number)", payload: .object([("content", .object([
                ("title", .string("Thread-mate \(number)")), ("body", .string("Of one thread")),
                ("categoryIdentifier", .string(category)), ("threadIdentifier", .string("validate-thread")),
            ]))]))
            // The first opens its interface; the others, delivered while it is open, go to its instance.
            let delivered = deliver(sample, through: host, opening: number == 1)
            problems += delivered.failures(shape: sample.shape)
            if problems.isEmpty, delivered.delivery?.presentation.extensionIdentifier == nil {
                problems.append(.error(.validationFailed, "[\(sample.shape)] the extension did not draw a thread-mate."))
            }
        }
        return .judging(.thread, problems, passing: "3 notifications of one thread")
    }

    private mutating func responsesCheck() -> ValidationCheck {
        let host = makeHost()
        let given = settings.categoryFiles.map(\.file).filter { $0.app == app }.flatMap(\.categories)
        let categories = manifest.categories.map { name in
            given.first { $0.identifier == name } ?? Self.madeUpCategory(name)
        }
        host.register(categories, for: app)
        var problems: [Diagnostic] = []
        var count = 0
        for category in categories {
            let sample = SampleNotifications.Sample(shape: "response", payload: .object([
                ("content", .object([("title", .string("Respond")), ("body", .string("to each action")),
                                     ("categoryIdentifier", .string(category.identifier))])),
            ]))
            // The actions the notification offers once the extension drew it: it may have replaced its category's.
            let probe = deliver(sample, through: host)
            problems += probe.failures(shape: "actions of \(category.identifier)")
            let actions = probe.delivery?.presentation.actions ?? category.actions
            let responses = actions.map { ResponseRequest(actionIdentifier: $0.identifier,
                                                          userText: $0.textInput == nil ? nil : "Validated ✓ — テキスト") }
                + [ResponseRequest(actionIdentifier: ActionIdentifier.default, userText: nil),
                   ResponseRequest(actionIdentifier: ActionIdentifier.dismiss, userText: nil)]
            // On while nothing failed: a warning (a view element not found) leaves the other actions to try.
            for response in responses where !problems.containsError {
                let delivered = deliver(sample, through: host)
                problems += delivered.failures(shape: "response \(response.actionIdentifier)")
                guard !problems.containsError, let identifier = delivered.delivery?.presentation.notification.identifier else { break }
                let (outcome, notes) = timed(host) { () throws(Diagnostic) -> ResponseOutcome in
                    try host.respond(to: identifier, with: response)
                }
                count += 1
                switch outcome {
                case .success(let outcome):
                    // Warnings too: what the extension did to the view after the response (an element it cannot find, say).
                    problems += (outcome.diagnostics + notes).filter { $0.severity == .error || $0.severity == .warning }
                        .filter { $0.code != .workerOutput }
                        .map { Self.misuseFails($0).prefixed("[\(response.actionIdentifier)]") }
                case .failure(let error):
                    problems.append(error.prefixed("[\(response.actionIdentifier)]"))
                }
            }
        }
        return .judging(.responses, problems,
                        passing: "\(count) responses (each action, text input, default, dismiss), each completed once within \(NumberText.short(settings.responseDeadline)) s")
    }

    private mutating func serviceCheck(_ samples: [SampleNotifications.Sample], first: Delivered) -> ValidationCheck {
        let host = makeHost()
        var problems: [Diagnostic] = []
        var rewrote = 0
        for (position, sample) in samples.enumerated() where problems.isEmpty {
            let delivered = position == 0 ? first : deliver(sample, through: host)
            problems += delivered.failures(shape: sample.shape)
            switch delivered.delivery?.service {
            case .rewrote?: rewrote += 1
            case .kept(_, .timedOut, _)?:
                problems.append(.error(.validationFailed,
                    "[\(sample.shape)] no content within \(NumberText.short(settings.serviceDeadline)) s, even after time-will-expire."))
            case .kept(_, .handedBackNothing, _)?:
                problems.append(.warning(.validationFailed, "[\(sample.shape)] the content handler was given no content."))
            case .kept(_, .removedAlert, _)?:
                problems.append(.warning(.validationFailed, "[\(sample.shape)] the content it gave has no alert text, so it was ignored."))
            case .failed?:
                problems.append(.error(.validationFailed, "[\(sample.shape)] the service extension failed."))
            case .skipped?, nil:
                break
            }
        }
        return .judging(.service, problems,
                        passing: "\(rewrote) of \(samples.count) notifications rewritten within \(NumberText.short(settings.serviceDeadline)) s (seed \(settings.seed))")
    }

    private func outputCheck() -> ValidationCheck {
        ValidationCheck.judging(.output, output.map { .error($0.code, $0.message, at: $0.location) },
                                passing: "nothing on standard output or error")
    }

    private func costCheck() -> ValidationCheck {
        guard !durations.isEmpty else { return ValidationCheck(name: .cost, verdict: .skip, detail: "no call was made") }
        let sorted = durations.sorted()
        let median = sorted[sorted.count / 2]
        var detail = "median \(NumberText.fixed(median, 2)) ms, slowest \(NumberText.fixed(sorted.last!, 2)) ms over \(sorted.count) calls"
        if peakMemory > 0 { detail += "; worker resident at most \(NumberText.bytes(peakMemory))" }
        if sorted.last! > 1000 {
            return ValidationCheck(name: .cost, verdict: .warn, detail: detail + " (a call over 1 s keeps its notification waiting)")
        }
        return ValidationCheck(name: .cost, verdict: .pass, detail: detail)
    }

    // MARK: Calls

    /// What one delivery gave.
    struct Delivered {
        var delivery: Delivery?
        /// Everything reported: refusals, the delivery's diagnostics, the worker's faults.
        var problems: [Diagnostic]

        /// The errors, and warnings from the extension, named by the sample's shape.
        func failures(shape: String) -> [Diagnostic] {
            problems.filter { $0.severity == .error || ($0.severity == .warning && !$0.code.rawValue.hasPrefix("route.")) }
                .filter { $0.code != .workerOutput }
                .map { $0.prefixed("[\(shape)]") }
        }
    }

    /// Delivers `sample`, opening its expanded interface at once unless not
    /// `opening`: the extension draws every notification it is given.
    mutating func deliver(_ sample: SampleNotifications.Sample, through host: NotificationHost,
                                  opening: Bool = true) -> Delivered {
        var submission = PayloadSubmission(payload: sample.payload, appOption: "--app")
        submission.opening = opening
        submission.app = app
        submission.baseDirectory = sample.directory ?? validator.scratch
        submission.sizeLimit = Int.max
        let (result, notes) = timed(host) { () throws(PayloadRefusal) -> PayloadDelivery in try host.deliver(submission) }
        switch result {
        case .success(let made):
            return Delivered(delivery: made.delivery, problems: made.diagnostics + notes)
        case .failure(let refusal):
            let problems: [Diagnostic] = switch refusal {
            case .payload(let problems): problems
            case .addressing(let problem), .attachmentStore(let problem), .notRecorded(let problem): [problem]
            case .attachment(let failure): [failure.diagnostic]
            }
            return Delivered(delivery: nil, problems: problems + notes)
        }
    }

    /// Runs `call`, timing it and noting what the worker reported meanwhile.
    mutating func timed<Value, Failure: Error>(_ host: NotificationHost, _ call: () throws(Failure) -> Value)
        -> (Result<Value, Failure>, [Diagnostic])
    {
        let start = MonotonicClock.now()
        let result = Result(catching: call)
        durations.append(Double(MonotonicClock.now() - start) / 1e6)
        peakMemory = max(peakMemory, ProcessStatus.peakResidentOfDescendants())
        // What the worker reported that the call's own answer does not already say (with or without the bundle's path).
        var known: [Diagnostic] = []
        if case .success(let value) = result {
            known = (value as? PayloadDelivery)?.diagnostics ?? (value as? ResponseOutcome)?.diagnostics ?? []
        }
        let notes = faults.take(besides: []).filter { note in
            !known.contains { $0.code == note.code && $0.message == note.message }
        }
        for problem in known + notes where problem.code == .workerOutput {
            if !output.contains(where: { $0.message == problem.message }) { output.append(problem) }
        }
        return (result, notes)
    }

    /// What workers reported outside calls.
    private let faults = FaultNotes()

    /// A host serving only the bundle, running it in a worker with the validation's limits.
    func makeHost() -> NotificationHost {
        var configuration = NotificationHost.Configuration()
        configuration.responseDeadline = settings.responseDeadline
        configuration.serviceDeadline = settings.serviceDeadline
        configuration.attachmentDirectory = Path.join(validator.scratch, "store")
        configuration.onWait = settings.notice?.observer
        var policy = settings.policy
        policy.defaultMode = .process
        policy.bundles = [:]
        policy.callTimeout = min(policy.callTimeout ?? settings.callTimeout, settings.callTimeout)
        let workers = IsolationOption.workers(policy, environment: settings.environment, recordingFaults: false,
                                              onFault: faults.append)
        let bundle = validator.bundle
        let searchPath = SearchPath(directories: [Path.directory(of: bundle.path)], origin: .option)
        let index = ExtensionIndex(searchPath: searchPath, bundles: [bundle])
        return NotificationHost(index: index, configuration: configuration,
                                launcher: IsolatingLauncher(policy: policy, workers: workers))
    }

    /// Load problems: the library, the entry, the descriptor, create, the worker's start.
    private static func isLoadProblem(_ problem: Diagnostic) -> Bool {
        problem.severity == .error && (problem.code.rawValue.hasPrefix("load.") || problem.code == .instanceCreateFailed
            || problem.code == .workerLaunchFailed)
    }

    /// `problem`, an error when it is a misuse of a completion (called twice, an undefined option, the wrong
    /// function or instance): each is a fault toward the quarantine, so validate fails it however the host reported it.
    private static func misuseFails(_ problem: Diagnostic) -> Diagnostic {
        let misuses: Set<Diagnostic.Code> = [.completionRepeated, .completionInvalidOption, .completionWrongKind, .completionWrongInstance]
        guard misuses.contains(problem.code), problem.severity != .error else { return problem }
        return .error(problem.code, problem.message, at: problem.location)
    }

    /// A category with an action of each kind, for an app whose categories were not given.
    private static func madeUpCategory(_ name: String) -> NotificationCategory {
        var category = NotificationCategory(identifier: name)
        category.actions = [
            NotificationAction(identifier: "validate-plain", title: "Plain"),
            NotificationAction(identifier: "validate-destructive", title: "Destructive", options: [.destructive]),
            NotificationAction(identifier: "validate-text", title: "Text",
                               textInput: .init(buttonTitle: "Send", placeholder: "Say something")),
        ]
        category.options = [.customDismissAction]
        return category
    }
}

extension Diagnostic {
    /// The diagnostic with `prefix` before its message.
    func prefixed(_ prefix: String) -> Diagnostic {
        var prefixed = self
        prefixed.message = "\(prefix) \(message)"
        return prefixed
    }
}

extension Diagnostic.Code {
    /// A check of `tidings validate` found the extension wanting.
    static let validationFailed = Self("validate.failed")
}
