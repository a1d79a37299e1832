import TidingsBase
import TidingsRegistry
import TidingsIsolation
import TidingsRuntime

/// `tidings deliver`: one notification through the runtime, and optionally one response.
enum DeliverCommand: Command {
    static let spec = CommandSpec(
        name: "deliver",
        summary: "Deliver a notification — its attachments into the store, through its app's service extension, to its content extension — and print the presentation; optionally respond.",
        usage: "PAYLOAD.json [--app ID] [--categories FILE]... [--app-name NAME] [--app-icon ICON] [--previews always|never] [--width N] [--respond ACTION [--text T]] [--deadline SECONDS] [--service-deadline SECONDS] [--move-attachments] [--isolation MODE] [--explain] [--no-cache] [--json]",
        options: deliveryOptions + [
            .init(name: "move-attachments", value: nil,
                  help: "Move attachment files into the store, as iOS does (default: copy them, leaving your files in place)."),
            .init(name: "explain", value: nil,
                  help: "Say what each stage did and why: the attachments, the service extension (or why none ran), then the content extension."),
            .init(name: "json", value: nil, help: "Print JSON instead of text."),
        ],
        arguments: .file,
        discussion: [
            "PAYLOAD is an APNs payload ({\"aps\": {...}, custom keys}) or a request ({\"identifier\", \"date\", \"content\": {\"title\", \"body\", \"categoryIdentifier\", \"threadIdentifier\", \"sound\", \"launchImageName\", \"summaryArgument\", \"summaryArgumentCount\", \"filterCriteria\", \"userInfo\", \"attachments\": [{\"identifier\", \"path\"}]}}). Its size is counted as sent: its compact JSON.",
            "Previews: with --previews never the body shows as the category's hiddenPreviewsBodyPlaceholder (\"Notification\" when it has none), the title and subtitle only with its hiddenPreviewsShowTitle / hiddenPreviewsShowSubtitle options, and no view or attachment.",
            "Attachments: each file (a \"path\" relative to the payload's directory, which it may not leave, an absolute \"path\", or a file:// \"url\") must be a regular file whose name has an extension (or whose entry has a \"typeHint\"), as iOS requires, of a type recognised by its content — JPEG, PNG, GIF (10 MB); WAVE, AIFF, MP3, M4A (5 MB); MPEG, MPEG-2, MPEG-4, AVI (50 MB) — or the notification is refused with Apple's error code (100–105). Accepted files are copied (moved with --move-attachments) into the store, $XDG_STATE_HOME/tidings/attachments (~/.local/state/…), private to you.",
            SearchPathOption.discussion,
            IsolationOption.discussion,
            DeadlineOption.discussion,
            "Exit status: " + ExitCode.allCases.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: "; ") + ".",
        ],
        examples: [
            "tidings deliver invite.json --categories categories.json",
            "tidings deliver invite.json --categories categories.json --respond accept",
            "tidings deliver invite.json --categories categories.json --respond comment --text \"Count me in\" --json",
            "tidings deliver invite-with-photo.json --categories categories.json --explain",
        ])

    /// The options of a delivery and its response, which `tidings preview` shares.
    static let deliveryOptions: [CommandSpec.Option] = [
        .init(name: "app", value: "ID",
              help: "The app the notification is addressed to (default: the app of the category file, or the only app serving the category)."),
        .init(name: "categories", value: "FILE", help: "Register an app's categories and actions from a JSON file.",
              repeatable: true),
        .init(name: "width", value: "N", help: "The content width in points (default 360)."),
        .init(name: "id", value: "ID", help: "The request identifier (APNs payloads carry none; default: generated)."),
        .init(name: "max-payload-size", value: "BYTES",
              help: "The largest APNs payload accepted, counted as sent: its compact JSON, without the file's whitespace (default 4096, as APNs; VoIP allows 5120)."),
        .init(name: "app-name", value: "NAME", help: "The app's display name, shown in the header instead of its bundle identifier."),
        .init(name: "app-icon", value: "ICON", help: "The app's icon (a path or an icon name) for the header."),
        .init(name: "previews", value: "always|never",
              help: "Whether the app's notifications show previews (default always); never shows the category's hidden-previews placeholder."),
        .init(name: "respond", value: "ACTION",
              help: "Then respond with this action: an action identifier, \"default\" (the user opened it) or \"dismiss\"."),
        .init(name: "text", value: "T", help: "The user's text, for a text-input action."),
        IsolationOption.option,
    ] + DeadlineOption.options + [
        SearchPathOption.option,
        SearchPathOption.noCacheOption,
    ]

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        let session = try deliver(arguments, command: "deliver", environment: environment)
        let made = session.made, delivery = made.delivery, index = session.index
        let (outcome, responseFailure) = session.respond(arguments)

        let terminal = Terminal(descriptor: 1, environment: environment)
        if arguments.flag("json") {
            var members = made.json.objectMembers ?? []
            if let outcome { members.append(("response", outcome.json)) }
            if let responseFailure { members.append(("responseError", responseFailure.json)) }
            print(JSON.object(members).serialized(pretty: true))
        } else {
            let text = PresentationText(terminal: terminal)
            if arguments.flag("explain") {
                print(text.explain(delivery, admitted: made.admitted), terminator: "")
                var bundles = index.bundles.filter { !$0.isUsable || $0.manifest?.appIdentifier == delivery.presentation.app }
                for position in bundles.indices { bundles[position].addLibraryProblems() }
                print(text.verdicts(bundles), terminator: "")
            }
            print(text.render(delivery), terminator: "")
            if let outcome { print(text.render(outcome, before: delivery.presentation), terminator: "") }
        }
        if let responseFailure { throw CommandFailure(.dataError, [responseFailure]) }
        let failed = delivery.extensionFailed || (outcome?.diagnostics.containsError ?? false)
        return failed ? .extensionFailed : .success
    }

    /// A notification delivered, with the host that holds it, so that a response can follow.
    struct Session {
        let host: NotificationHost
        /// The extensions the host was given.
        let index: ExtensionIndex
        /// The delivery and the payload's attachments as the store took them in.
        let made: PayloadDelivery
        let faults: FaultNotes

        /// The response `--respond` and `--text` ask for, if any, and its outcome or why it was refused.
        func respond(_ arguments: ParsedArguments) -> (ResponseOutcome?, Diagnostic?) {
            guard let action = arguments.value("respond") else { return (nil, nil) }
            let presentation = made.delivery.presentation
            let response = ResponseRequest(actionIdentifier: ActionIdentifier.named(action, offered: presentation.actions.map(\.identifier)),
                                           userText: arguments.value("text"))
            do {
                var outcome = try host.respond(to: presentation.notification.identifier, with: response)
                outcome.diagnostics += faults.take(besides: outcome.diagnostics)
                return (outcome, nil)
            } catch {
                return (nil, error)
            }
        }
    }

    /// Delivers the payload file `arguments` name with the options of
    /// `deliveryOptions`, as `tidings deliver` does; `command` names the
    /// command in messages.
    static func deliver(_ arguments: ParsedArguments, command: String,
                        environment: [String: String]) throws(CommandFailure) -> Session {
        guard arguments.positionals.count == 1, let payloadPath = arguments.positionals.first else {
            throw .usage("tidings \(command) takes one payload file (see tidings \(command) --help).")
        }
        if arguments.value("text") != nil && arguments.value("respond") == nil {
            throw .usage("--text goes with --respond.")
        }
        let width = try arguments.positiveNumber("width")
        var configuration = NotificationHost.Configuration()
        try DeadlineOption.apply(arguments, to: &configuration)
        configuration.attachmentDirectory = AttachmentStore.defaultDirectory(in: environment)
        let index = try SearchPathOption.index(arguments, environment: environment, cached: true)
        var notes: [Diagnostic] = []
        let payload = try readPayload(payloadPath)
        let categoryFiles = try arguments.values("categories").map { (path: String) throws(CommandFailure) in
            try readCategories(path, notes: &notes)
        }
        let faults = FaultNotes()
        let policy = try IsolationOption.policy(arguments, environment: environment)
        try IsolationOption.checkLedger(environment: environment)
        let launcher = IsolationOption.launcher(policy, environment: environment, onFault: faults.append)
        let host = NotificationHost(index: index, configuration: configuration, launcher: launcher)
        for file in categoryFiles { host.register(file.categories, for: file.app) }

        var submission = PayloadSubmission(payload: payload, appOption: "--app")
        submission.sizeLimit = try payloadSizeLimit(arguments)
        submission.file = payloadPath
        submission.baseDirectory = Path.directory(of: payloadPath)
        submission.identifier = arguments.value("id")
        submission.app = arguments.value("app")
        submission.width = width
        submission.attachments = arguments.flag("move-attachments") ? .move : .copy
        submission.registration = try registration(arguments)
        var made: PayloadDelivery
        do throws(PayloadRefusal) {
            made = try host.deliver(submission)
        } catch {
            switch error {
            case .payload(let diagnostics):
                throw CommandFailure(.dataError, diagnostics.map { problem in
                    guard problem.code == .payloadTooLarge else { return problem }
                    return .error(problem.code, problem.message + " (--max-payload-size changes the limit)", at: problem.location)
                })
            case .addressing(let problem): throw CommandFailure(.usage, [.error(.usage, problem.message)])
            case .attachmentStore(let problem): throw .ownFile(problem, otherwise: .cannotCreate)
            case .attachment(let failure):
                // The store failing is an output that cannot be written; anything else is a bad input.
                throw CommandFailure(failure.code == .moveIntoDataStoreFailed ? .cannotCreate : .dataError,
                                     [failure.diagnostic])
            case .notRecorded(let problem): throw CommandFailure(.cannotCreate, [problem])
            }
        }
        made.delivery.diagnostics.insert(contentsOf: notes, at: 0)
        made.delivery.diagnostics += faults.take(besides: made.delivery.diagnostics)
        return Session(host: host, index: index, made: made, faults: faults)
    }

    /// The app's registration `--app-name`, `--app-icon` and `--previews` give; nil when none is given.
    private static func registration(_ arguments: ParsedArguments) throws(CommandFailure) -> AppRegistration? {
        let previews = arguments.value("previews")
        guard arguments.value("app-name") != nil || arguments.value("app-icon") != nil || previews != nil else { return nil }
        var registration = AppRegistration(name: arguments.value("app-name"), icon: arguments.value("app-icon"))
        if let previews {
            guard let setting = ShowPreviews(rawValue: previews) else {
                throw CommandFailure(.usage, [.error(.usage, "--previews takes always or never, not \"\(previews)\".")])
            }
            registration.showPreviews = setting
        }
        return registration
    }

    /// The largest payload file read, whatever `--max-payload-size` says.
    private static let payloadFileLimit = 1 << 20

    /// `--max-payload-size`, a whole number of bytes (APNs's limit when not
    /// given); a larger one than the largest payload file read is that size.
    private static func payloadSizeLimit(_ arguments: ParsedArguments) throws(CommandFailure) -> Int {
        try arguments.wholeNumber("max-payload-size", atMost: payloadFileLimit) ?? Payload.defaultSizeLimit
    }

    /// The payload file's JSON.
    private static func readPayload(_ path: String) throws(CommandFailure) -> JSON {
        do {
            return try JSON.parse(try FileSystem.readFile(path, limit: payloadFileLimit), file: path)
        } catch {
            throw .input(error)
        }
    }

    private static func readCategories(_ path: String, notes: inout [Diagnostic]) throws(CommandFailure) -> CategoryFile {
        let reading = CategoryFile.read(try readJSON(path), file: path)
        guard let file = reading.file else { throw CommandFailure(.dataError, reading.diagnostics) }
        notes += reading.diagnostics
        return file
    }

    private static func readJSON(_ path: String) throws(CommandFailure) -> JSON {
        do {
            return try JSON.parse(try FileSystem.readFile(path, limit: 1 << 20), file: path)
        } catch {
            throw .input(error)
        }
    }
}
