import TidingsBase
import TidingsRegistry
import TidingsIsolation
import TidingsProtocol
import TidingsRuntime

/// `tidings deliver`: one notification through the runtime, and optionally one response.
enum DeliverCommand: Command {
    static let startsWorkers = true

    static let spec = CommandSpec(
        name: "deliver",
        summary: "Deliver a notification — its attachments into the store, through its app's service extension — and print the presentation, a banner; optionally open its content extension's expanded interface, tap its media button or its elements, respond.",
        usage: "PAYLOAD.json [--app ID] [--categories FILE]... [--app-name NAME] [--app-icon ICON] [--previews always|never] [--width N] [--open] [--tap-media-button] [--tap-element ID]... [--submit-element ID=TEXT]... [--input TEXT]... [--respond ACTION [--text T]] [--deadline SECONDS] [--service-deadline SECONDS] [--move-attachments] [--isolation MODE] [--explain] [--no-cache] [--json]; or PAYLOAD.json --server|--socket PATH [--app ID] [--categories FILE]... [--id ID] [--width N] [--open] [--move-attachments] [--json]",
        options: deliveryOptions + serverOptions + [
            .init(name: "open", value: nil,
                  help: "Open the expanded interface (as a long press does): the content extension's view is made and drawn. Without it the notification shows as a banner and no content-extension code runs."),
            .init(name: "tap-media-button", value: nil,
                  help: "Then tap the media play/pause button of the open interface (implies --open)."),
            .init(name: "tap-element", value: "ID",
                  help: "Then tap the button ID of the extension's view (implies --open; needs UNNotificationExtensionUserInteractionEnabled).",
                  repeatable: true),
            .init(name: "submit-element", value: "ID=TEXT",
                  help: "Then submit TEXT in the text field ID of the extension's view (implies --open; needs UNNotificationExtensionUserInteractionEnabled).",
                  repeatable: true),
            .init(name: "input", value: "TEXT",
                  help: "Then answer the extension's request for text input (its own button title and placeholder) with TEXT (implies --open).",
                  repeatable: true),
            .init(name: "move-attachments", value: nil,
                  help: "Move attachment files into the store, as iOS does (default: copy them, leaving your files in place)."),
            .init(name: "explain", value: nil,
                  help: "Say what each stage did and why: the attachments, the service extension (or why none ran), then the content extension."),
            .init(name: "json", value: nil, help: "Print JSON instead of text."),
        ],
        arguments: .file,
        discussion: [
            "PAYLOAD is an APNs payload ({\"aps\": {...}, custom keys}) or a request ({\"identifier\", \"date\", \"content\": {\"title\", \"body\", \"categoryIdentifier\", \"threadIdentifier\", \"sound\", \"launchImageName\", \"summaryArgument\", \"summaryArgumentCount\", \"filterCriteria\", \"userInfo\", \"attachments\": [{\"identifier\", \"path\"}]}}). Its size is counted as sent: its compact JSON.",
            "Elements: --tap-element, --submit-element and --input reach the extension in the order given, after the delivery and before --respond, only when its manifest sets UNNotificationExtensionUserInteractionEnabled; the first one refused (no such element, a disabled one, no text input asked for, interaction not enabled) stops there with its error.",
            "Previews: with --previews never the body shows as the category's hiddenPreviewsBodyPlaceholder (\"Notification\" when it has none), the title and subtitle only with its hiddenPreviewsShowTitle / hiddenPreviewsShowSubtitle options, and no view or attachment.",
            "Attachments: each file (a \"path\" relative to the payload's directory, which it may not leave, an absolute \"path\", or a file:// \"url\") must be a regular file whose name has an extension (or whose entry has a \"typeHint\"), as iOS requires, of a type recognised by its content — JPEG, PNG, GIF (10 MB); WAVE, AIFF, MP3, M4A (5 MB); MPEG, MPEG-2, MPEG-4, AVI (50 MB) — or the notification is refused with Apple's error code (100–105). Accepted files are copied (moved with --move-attachments) into the store, $XDG_STATE_HOME/tidings/attachments (~/.local/state/…), private to you.",
            "To the running server: with --server (its default socket) or --socket PATH the notification is handed to a running tidings serve (notifications.deliver, after categories.register for each --categories file) instead of a host of the command's own: it is shown wherever the server's front ends show it (tidings desktop puts it on the desktop) and stays delivered there. Attachment paths relative to the payload's directory are made absolute for the server. The server's extensions serve it, not --extensions; the options of the command's own host (--respond, --tap-element, --isolation, …) are refused. It prints the server's answer as a delivery is printed (--json: the answer as the server gave it); exit 75 when no server listens there.",
            SearchPathOption.discussion,
            IsolationOption.discussion,
            DeadlineOption.discussion,
            WaitNotice.discussion,
            "Exit status: " + ExitCode.allCases.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: "; ") + ".",
        ],
        examples: [
            "tidings deliver invite.json --categories categories.json --open",
            "tidings deliver invite.json --categories categories.json --respond accept",
            "tidings deliver podcast.json --categories categories.json --tap-media-button",
            "tidings deliver invite.json --categories categories.json --respond comment --text \"Count me in\" --json",
            "tidings deliver invite.json --categories categories.json --tap-element addComment --input \"Count me in\"",
            "tidings deliver invite-with-photo.json --categories categories.json --explain",
            "tidings deliver invite.json --categories categories.json --server",
        ])

    /// The options of a delivery that `tidings preview` shares.
    static let deliveryOptions: [CommandSpec.Option] = [
        .init(name: "app", value: "ID",
              help: "The app the notification is addressed to (default, chosen by the command line: the app of the category file, else the one app that registered the category — with --server, with the server — else the one app whose content extension serves it; the server itself requires one)."),
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
        WaitNotice.option,
    ] + DeadlineOption.oneShotOptions + [
        SearchPathOption.option,
        SearchPathOption.noCacheOption,
    ]

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        if handsToServer(arguments) { return try deliverToServer(arguments, environment: environment) }
        let opening = arguments.flag("open") || arguments.flag("tap-media-button")
            || ["tap-element", "submit-element", "input"].contains { !arguments.values($0).isEmpty }
        let session = try deliver(arguments, command: "deliver", opening: opening, environment: environment)
        var made = session.made
        let (host, index, notes, faults) = (session.host, session.index, session.notes, session.faults)
        let terminal = Terminal(descriptor: 1, environment: environment)
        guard var delivery = made.delivery else {
            return try reportUnpresented(made, notes: notes, json: arguments.flag("json"), respond: arguments.value("respond"),
                                         terminal: terminal)
        }
        delivery.diagnostics.insert(contentsOf: notes, at: 0)
        delivery.diagnostics += faults.take(besides: delivery.diagnostics)
        made.delivery = delivery
        var tapped: Result<MediaTapOutcome, Diagnostic>?
        if arguments.flag("tap-media-button") {
            let identifier = delivery.presentation.notification.identifier
            tapped = Result { () throws(Diagnostic) in try host.tapMediaButton(of: identifier) }
        }

        var interactions: [InteractionOutcome] = []
        var interactionFailure: Diagnostic?
        for event in try elementEvents(arguments) {
            do throws(Diagnostic) {
                interactions.append(try host.interact(with: delivery.presentation.notification.identifier, event))
            } catch {
                interactionFailure = error
                break
            }
        }

        let (outcome, responseFailure) = interactionFailure == nil
            ? session.respond(arguments, to: delivery.presentation) : (nil, nil)

        if arguments.flag("json") {
            var members = made.json.objectMembers ?? []
            switch tapped {
            case .success(let outcome)?: members.append(("mediaTap", outcome.json))
            case .failure(let problem)?: members.append(("mediaTapError", problem.json))
            case nil: break
            }
            if !interactions.isEmpty { members.append(("interactions", .array(interactions.map(\.json)))) }
            if let interactionFailure { members.append(("interactionError", interactionFailure.json)) }
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
            if case .success(let outcome)? = tapped { print(text.renderMediaTap(outcome), terminator: "") }
            var before = delivery.presentation
            for interaction in interactions {
                print(text.render(interaction, before: before), terminator: "")
                before = interaction.presentation
            }
            if let outcome { print(text.render(outcome, before: before), terminator: "") }
        }
        if let failure = interactionFailure ?? responseFailure { throw CommandFailure(.dataError, [failure]) }
        if case .failure(let problem)? = tapped { throw CommandFailure(.dataError, [problem]) }
        let failed = delivery.extensionFailed || (outcome?.diagnostics.containsError ?? false)
            || interactions.contains { $0.diagnostics.containsError }
        return failed ? .extensionFailed : .success
    }

    /// A notification delivered, with the host that holds it, so that what the user does next can follow.
    struct Session {
        let host: NotificationHost
        /// The extensions the host was given.
        let index: ExtensionIndex
        /// The delivery (nil for one iOS does not show) and the payload's attachments as the store took them in.
        let made: PayloadDelivery
        /// What reading the category files noted.
        let notes: [Diagnostic]
        let faults: FaultNotes

        /// The response `--respond` and `--text` ask for on `presentation`, if any, and its outcome or why it was refused.
        func respond(_ arguments: ParsedArguments, to presentation: Presentation) -> (ResponseOutcome?, Diagnostic?) {
            guard let action = arguments.value("respond") else { return (nil, nil) }
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
    /// `deliveryOptions`, as `tidings deliver` does, opening its expanded
    /// interface when `opening`; `command` names the command in messages.
    static func deliver(_ arguments: ParsedArguments, command: String, opening: Bool,
                        environment: [String: String]) throws(CommandFailure) -> Session {
        guard arguments.positionals.count == 1, let payloadPath = arguments.positionals.first else {
            throw .usage("tidings \(command) takes one payload file (see tidings \(command) --help).")
        }
        if arguments.value("text") != nil && arguments.value("respond") == nil {
            throw .usage("--text goes with --respond.")
        }
        let width = try arguments.positiveNumber("width")
        var configuration = NotificationHost.Configuration()
        try DeadlineOption.apply(arguments, to: &configuration, oneShot: true)
        configuration.onWait = WaitNotice(arguments, environment: environment).observer
        configuration.attachmentDirectory = AttachmentStore.defaultDirectory(in: environment)
        let index = try SearchPathOption.index(arguments, environment: environment, cached: true)
        var notes: [Diagnostic] = []
        let payload = try readPayload(payloadPath)
        let categoryFiles = try arguments.values("categories").map { (path: String) throws(CommandFailure) in
            try readCategories(path, notes: &notes)
        }
        let faults = FaultNotes()
        let policy = try IsolationOption.policy(arguments, environment: environment)
        configuration.attachmentQuota = policy.attachmentQuota
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
        submission.opening = opening
        let made: PayloadDelivery
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
        return Session(host: host, index: index, made: made, notes: notes, faults: faults)
    }

    /// Prints what a notification iOS does not show did instead (`made`:
    /// handed to the app, or its badge set), with `notes` first among its
    /// diagnostics; a `--respond` is refused, as there is nothing shown to answer.
    private static func reportUnpresented(_ made: PayloadDelivery, notes: [Diagnostic], json: Bool, respond: String?,
                                          terminal: Terminal) throws(CommandFailure) -> ExitCode {
        var made = made
        made.notes.insert(contentsOf: notes, at: 0)
        if json {
            print(made.json.serialized(pretty: true))
        } else {
            print(PresentationText(terminal: terminal).render(unpresented: made), terminator: "")
        }
        if respond != nil {
            throw CommandFailure(.dataError, [.error(.responseUnknownNotification,
                                                     "The notification was not shown (\(made.display.rawValue)), so --respond has nothing to answer.")])
        }
        return .success
    }

    /// The element events `--tap-element`, `--submit-element` and `--input` give, in the order given.
    private static func elementEvents(_ arguments: ParsedArguments) throws(CommandFailure) -> [ElementEvent] {
        var events: [ElementEvent] = []
        for (name, value) in arguments.inOrder(["tap-element", "submit-element", "input"]) {
            switch name {
            case "tap-element":
                events.append(.tap(element: value))
            case "submit-element":
                guard let equals = value.firstIndex(of: "=") else {
                    throw .usage("--submit-element takes ID=TEXT (the text field's identifier, then its text); it is \"\(value)\".")
                }
                events.append(.submit(element: String(value[..<equals]), text: String(value[value.index(after: equals)...])))
            default:
                events.append(.textInput(text: value))
            }
        }
        return events
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
    static func readPayload(_ path: String) throws(CommandFailure) -> JSON {
        do {
            return try JSON.parse(try FileSystem.readFile(path, limit: payloadFileLimit), file: path)
        } catch {
            throw .input(error)
        }
    }

    /// The category file at `path`; its warnings go to `notes`, its errors fail the command.
    static func readCategories(_ path: String, notes: inout [Diagnostic]) throws(CommandFailure) -> CategoryFile {
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
