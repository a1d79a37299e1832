import TidingsBase
import TidingsRegistry
import TidingsIsolation
import TidingsRuntime

/// `tidings deliver`: one notification through the runtime, and optionally one response.
enum DeliverCommand: Command {
    static let spec = CommandSpec(
        name: "deliver",
        summary: "Deliver a notification — its attachments into the store, through its app's service extension, to its content extension — and print the presentation; optionally respond.",
        usage: "PAYLOAD.json [--app ID] [--categories FILE]... [--width N] [--respond ACTION [--text T]] [--move-attachments] [--isolation MODE] [--explain] [--no-cache] [--json]",
        options: [
            .init(name: "app", value: "ID",
                  help: "The app the notification is addressed to (default: the app of the category file, or the only app serving the category)."),
            .init(name: "categories", value: "FILE", help: "Register an app's categories and actions from a JSON file.",
                  repeatable: true),
            .init(name: "width", value: "N", help: "The content width in points (default 360)."),
            .init(name: "id", value: "ID", help: "The request identifier (APNs payloads carry none; default: generated)."),
            .init(name: "max-payload-size", value: "BYTES",
                  help: "The largest APNs payload accepted (default 4096, as APNs; VoIP allows 5120)."),
            .init(name: "respond", value: "ACTION",
                  help: "Then respond with this action: an action identifier, \"default\" (the user opened it) or \"dismiss\"."),
            .init(name: "text", value: "T", help: "The user's text, for a text-input action."),
            .init(name: "deadline", value: "SECONDS", help: "How long the extension has to complete a response (default 5)."),
            .init(name: "service-deadline", value: "SECONDS",
                  help: "How long a service extension has to hand back content (default 30)."),
            .init(name: "move-attachments", value: nil,
                  help: "Move attachment files into the store, as iOS does (default: copy them, leaving your files in place)."),
            .init(name: "explain", value: nil,
                  help: "Say what each stage did and why: the attachments, the service extension (or why none ran), then the content extension."),
            IsolationOption.option,
            SearchPathOption.option,
            SearchPathOption.noCacheOption,
            .init(name: "json", value: nil, help: "Print JSON instead of text."),
        ],
        discussion: [
            "PAYLOAD is an APNs payload ({\"aps\": {...}, custom keys}) or a request ({\"identifier\", \"date\", \"content\": {\"title\", \"body\", \"categoryIdentifier\", \"threadIdentifier\", \"userInfo\", \"attachments\": [{\"identifier\", \"path\"}]}}).",
            "Attachments: each file (a \"path\" relative to the payload's directory, which it may not leave, an absolute \"path\", or a file:// \"url\") must be a regular file of a type recognised by its content — JPEG, PNG, GIF (10 MB); WAVE, AIFF, MP3, M4A (5 MB); MPEG, MPEG-2, MPEG-4, AVI (50 MB) — or the notification is refused with Apple's error code (100–105). Accepted files are copied (moved with --move-attachments) into the store, $XDG_STATE_HOME/tidings/attachments (~/.local/state/…), private to you.",
            SearchPathOption.discussion,
            IsolationOption.discussion,
            "Exit status: " + ExitCode.allCases.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: "; ") + ".",
        ],
        examples: [
            "tidings deliver invite.json --categories categories.json",
            "tidings deliver invite.json --categories categories.json --respond accept",
            "tidings deliver invite.json --categories categories.json --respond comment --text \"Count me in\" --json",
            "tidings deliver invite-with-photo.json --categories categories.json --explain",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard arguments.positionals.count == 1, let payloadPath = arguments.positionals.first else {
            throw .usage("tidings deliver takes one payload file (see tidings deliver --help).")
        }
        if arguments.value("text") != nil && arguments.value("respond") == nil {
            throw .usage("--text goes with --respond.")
        }
        let width = try arguments.positiveNumber("width")
        var configuration = NotificationHost.Configuration()
        configuration.responseDeadline = try arguments.positiveNumber("deadline") ?? configuration.responseDeadline
        configuration.serviceDeadline = try arguments.positiveNumber("service-deadline") ?? configuration.serviceDeadline
        configuration.attachmentDirectory = AttachmentStore.defaultDirectory(in: environment)
        let index = try SearchPathOption.index(arguments, environment: environment, cached: true)
        var notes: [Diagnostic] = []
        let payload = try readPayload(payloadPath, limit: try payloadSizeLimit(arguments))
        var (notification, attachmentRequests) = try decode(payload, from: payloadPath, identifier: arguments.value("id"),
                                                            notes: &notes)
        let categoryFiles = try arguments.values("categories").map { (path: String) throws(CommandFailure) in
            try readCategories(path, notes: &notes)
        }
        let category = notification.content.categoryIdentifier
        let app: String
        do throws(Diagnostic) {
            app = try Addressing.app(for: notification, given: arguments.value("app"),
                                     registering: categoryFiles.filter { $0.categories.contains { $0.identifier == category } }
                                         .map(\.app),
                                     index: index, naming: "--app")
        } catch {
            throw CommandFailure(.usage, [.error(.usage, error.message)])
        }
        if Payload.usesLocalization(payload) {
            let (strings, warnings) = Addressing.strings(ofApp: app, index: index)
            notes += warnings
            var ignored: [Diagnostic] = []
            notification = try decode(payload, from: payloadPath, identifier: notification.identifier, strings: strings,
                                      notes: &ignored).notification
        }

        let faults = FaultNotes()
        let policy = try IsolationOption.policy(arguments, environment: environment)
        try IsolationOption.checkLedger(environment: environment)
        let launcher = IsolationOption.launcher(policy, environment: environment, onFault: faults.append)
        let host = NotificationHost(index: index, configuration: configuration, launcher: launcher)
        let admitted = try admit(attachmentRequests, into: host.attachments,
                                 as: arguments.flag("move-attachments") ? .move : .copy)
        notification.content.attachments = admitted.map(\.attachment)
        for file in categoryFiles { host.register(file.categories, for: file.app) }
        var delivery = host.deliver(notification, to: app, width: width)
        delivery.diagnostics.insert(contentsOf: notes, at: 0)
        delivery.diagnostics += faults.take(besides: delivery.diagnostics)

        var outcome: ResponseOutcome?
        var responseFailure: Diagnostic?
        if let action = arguments.value("respond") {
            let response = ResponseRequest(actionIdentifier: resolve(action, among: delivery.presentation),
                                           userText: arguments.value("text"))
            do {
                outcome = try host.respond(to: notification.identifier, with: response)
                if let known = outcome?.diagnostics { outcome?.diagnostics += faults.take(besides: known) }
            } catch {
                responseFailure = error
            }
        }

        let terminal = Terminal(descriptor: 1, environment: environment)
        if arguments.flag("json") {
            var members = delivery.json.objectMembers ?? []
            members.insert(("attachments", .array(admitted.map(\.json))), at: 1)
            if let outcome { members.append(("response", outcome.json)) }
            if let responseFailure { members.append(("responseError", responseFailure.json)) }
            print(JSON.object(members).serialized(pretty: true))
        } else {
            let text = PresentationText(terminal: terminal)
            if arguments.flag("explain") { print(text.explain(delivery, admitted: admitted), terminator: "") }
            print(text.render(delivery), terminator: "")
            if let outcome { print(text.render(outcome, before: delivery.presentation), terminator: "") }
        }
        if let responseFailure { throw CommandFailure(.dataError, [responseFailure]) }
        let failed = delivery.extensionFailed || (outcome?.diagnostics.containsError ?? false)
        return failed ? .extensionFailed : .success
    }

    /// "default" and "dismiss" stand for Apple's identifiers unless the notification has actions so named.
    private static func resolve(_ action: String, among presentation: Presentation) -> String {
        if presentation.actions.contains(where: { $0.identifier == action }) { return action }
        switch action {
        case "default", "open": return ActionIdentifier.default
        case "dismiss": return ActionIdentifier.dismiss
        default: return action
        }
    }

    /// The largest payload file read, whatever `--max-payload-size` says.
    private static let payloadFileLimit = 1 << 20

    /// `--max-payload-size`, a whole number of bytes (APNs's limit when not
    /// given); a larger one than the largest payload file read is that size.
    private static func payloadSizeLimit(_ arguments: ParsedArguments) throws(CommandFailure) -> Int {
        try arguments.wholeNumber("max-payload-size", atMost: payloadFileLimit) ?? Payload.defaultSizeLimit
    }

    /// The payload file's JSON, refusing an APNs payload larger than `limit` bytes.
    private static func readPayload(_ path: String, limit: Int) throws(CommandFailure) -> JSON {
        let bytes: [UInt8]
        let json: JSON
        do {
            bytes = try FileSystem.readFile(path, limit: payloadFileLimit)
            json = try JSON.parse(bytes, file: path)
        } catch {
            throw .input(error)
        }
        if json["aps"] != nil && bytes.count > limit {
            throw CommandFailure(.dataError, [.error(
                .payloadTooLarge,
                "The payload is \(bytes.count) bytes; APNs accepts at most \(limit) (--max-payload-size changes the limit).",
                at: .init(file: path))])
        }
        return json
    }

    private static func decode(_ payload: JSON, from path: String, identifier: String?, strings: [String: String] = [:],
                               notes: inout [Diagnostic]) throws(CommandFailure)
        -> (notification: UserNotification, attachments: [AttachmentRequest])
    {
        let reading = Payload.decode(payload, file: path, baseDirectory: Path.directory(of: path), identifier: identifier,
                                     strings: strings)
        guard let notification = reading.notification else {
            throw CommandFailure(.dataError, reading.diagnostics)
        }
        notes += reading.diagnostics
        return (notification, reading.attachments)
    }

    /// Takes the payload's attachment files into the store, all or none: an
    /// invalid attachment refuses the notification, as on iOS.
    private static func admit(_ requests: [AttachmentRequest], into store: AttachmentStore?,
                              as disposition: AttachmentStore.Disposition) throws(CommandFailure)
        -> [AttachmentStore.Admission]
    {
        guard !requests.isEmpty else { return [] }
        guard let store else {
            throw CommandFailure(.cannotCreate, [.error(.attachmentMoveIntoDataStoreFailed,
                                                 "The payload has attachments, but there is no attachment store: set HOME or XDG_STATE_HOME.")])
        }
        do throws(Diagnostic) {
            try store.check()
        } catch {
            throw .ownFile(error, otherwise: .cannotCreate)
        }
        switch store.admit(all: requests, as: disposition) {
        case .success(let admitted): return admitted
        case .failure(let failure):
            // The store failing is an output that cannot be written; anything else is a bad input.
            throw CommandFailure(failure.code == .moveIntoDataStoreFailed ? .cannotCreate : .dataError,
                                 [failure.diagnostic])
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
