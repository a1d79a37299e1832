import TidingsBase
import TidingsProtocol

/// `tidings deliver --server` (or `--socket PATH`): the payload handed to a
/// running `tidings serve` (`notifications.deliver`) instead of a host of
/// the command's own, so that what the server shows — on the desktop, with
/// `tidings desktop` — is the author's notification.
extension DeliverCommand {
    /// The options of a delivery to a running server.
    static let serverOptions: [CommandSpec.Option] = [
        .init(name: "server", value: nil,
              help: "Hand the notification to the running server (tidings serve, at --socket's default) instead of delivering it here: it is shown wherever the server's front ends show it (tidings desktop), and stays delivered."),
        SocketOption.option,
    ]

    /// The options that go with `--server`; the others are the command's own host's.
    private static let optionsForServer: Set<String> = ["server", "socket", "app", "id", "categories", "width", "open",
                                                         "move-attachments", "json", "max-payload-size"]

    /// True when the command line hands the payload to a running server.
    static func handsToServer(_ arguments: ParsedArguments) -> Bool {
        arguments.flag("server") || arguments.value("socket") != nil
    }

    /// Delivers the payload through the running server: registers the
    /// categories given first, then prints the server's answer as `deliver`
    /// prints its own (text, or `--json` the server's answer).
    static func deliverToServer(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        if let other = arguments.inOrder(Set(spec.options.map(\.name)).subtracting(optionsForServer)).first?.name {
            throw .usage("--\(other) works with the host tidings deliver runs itself, not with --server: the server delivers the notification and its front ends show it.")
        }
        guard arguments.positionals.count == 1, let payloadPath = arguments.positionals.first else {
            throw .usage("tidings deliver takes one payload file (see tidings deliver --help).")
        }
        var notes: [Diagnostic] = []
        // Each checked as `deliver` checks it, then sent as it is (categories.register takes the file's form).
        let categoryFiles = try arguments.values("categories").map { (path: String) throws(CommandFailure) in
            (try categoriesParams(path), try readCategories(path, notes: &notes))
        }
        let payload = Self.withAbsoluteAttachments(try readPayload(payloadPath),
                                                   directory: FileSystem.absolutePath(Path.directory(of: payloadPath)))
        var params: [(String, JSON)] = [("payload", payload)]
        if let identifier = arguments.value("id") { params.append(("identifier", .string(identifier))) }
        if let width = try arguments.positiveNumber("width") { params.append(("width", .double(width))) }
        if arguments.flag("open") { params.append(("open", .bool(true))) }
        if arguments.flag("move-attachments") { params.append(("attachments", .string("move"))) }

        let client = try SocketOption.connect(arguments, environment: environment)
        do throws(ServerClient.Failure) {
            for (categories, _) in categoryFiles { _ = try client.call(.categoriesRegister, categories) }
        } catch {
            throw SocketOption.failure(error, calling: MethodName.categoriesRegister.rawValue)
        }
        // The server routes nothing by category: the command line names the app, its default chosen here.
        let app: String
        if let named = arguments.value("app") ?? categoryFiles.first?.1.app {
            app = named
        } else {
            app = try DefaultApp.find(for: payload, client: client)
        }
        params.insert(("app", .string(app)), at: 1)
        let answer: JSON
        do throws(ServerClient.Failure) {
            answer = try client.call(.notificationsDeliver, .object(params))
        } catch {
            throw SocketOption.failure(error, calling: MethodName.notificationsDeliver.rawValue)
        }
        let terminal = Terminal(descriptor: 1, environment: environment)
        if arguments.flag("json") {
            print(answer.serialized(pretty: true))
        } else {
            print(ServerDeliveryText(terminal: terminal).render(answer, server: client.path, notes: notes), terminator: "")
        }
        let failed = (answer["diagnostics"]?.arrayValue ?? []).contains { $0["severity"]?.stringValue == "error" }
        return failed ? .extensionFailed : .success
    }

    /// A category file's JSON as `categories.register` takes it (the same form).
    private static func categoriesParams(_ path: String) throws(CommandFailure) -> JSON {
        do {
            return try JSON.parse(try FileSystem.readFile(path, limit: 1 << 20), file: path)
        } catch {
            throw .input(error)
        }
    }

    /// `payload` with each attachment's relative `path` made absolute against
    /// `directory` (the payload file's): the server has no working directory of the command's.
    static func withAbsoluteAttachments(_ payload: JSON, directory: String) -> JSON {
        guard case .object(var members) = payload, case .object(var content)? = payload["content"],
              let attachments = payload["content"]?["attachments"]?.arrayValue else { return payload }
        let absolute = attachments.map { attachment -> JSON in
            guard case .object(let fields) = attachment, let path = attachment["path"]?.stringValue, !path.hasPrefix("/") else {
                return attachment
            }
            return .object(fields.map { $0.0 == "path" ? ($0.0, .string(Path.join(directory, path))) : $0 })
        }
        content = content.map { $0.0 == "attachments" ? ($0.0, .array(absolute)) : $0 }
        members = members.map { $0.0 == "content" ? ($0.0, .object(content)) : $0 }
        return .object(members)
    }
}

/// The answer of `notifications.deliver` as text for people, in the order
/// `tidings deliver` prints its own delivery.
struct ServerDeliveryText {
    let terminal: Terminal
    private let labelWidth = 14

    /// `answer` of the server at `server`, with the command's own `notes` first among its diagnostics.
    func render(_ answer: JSON, server: String, notes: [Diagnostic]) -> String {
        let presentation = answer["presentation"]
        let identifier = answer["notification"]?["identifier"]?.stringValue ?? presentation?["notification"]?.stringValue
        var text = terminal.bold("Notification") + "  \(identifier ?? "(none)")\n"
        text += field("App", answer["app"]?.stringValue ?? "(none)")
        text += field("Server", "\(server): \(answer["display"]?.stringValue ?? "answered")")
        if let presentation {
            text += "\n" + terminal.bold("Presentation") + "\n"
            text += field("Extension", presentation["extensionIdentifier"]?.stringValue ?? "none: the default content shows")
            text += field("Interface", presentation["expanded"]?.boolValue == true ? "expanded" : "banner")
            if let header = presentation["header"]?.stringValue { text += field("Header", header) }
            if let content = presentation["defaultContent"], content != .null {
                let title = content["title"]?.stringValue ?? ""
                text += field("Title", title.isEmpty ? "(none)" : title)
                if let subtitle = content["subtitle"]?.stringValue, !subtitle.isEmpty { text += field("Subtitle", subtitle) }
                let body = content["body"]?.stringValue ?? ""
                text += field("Body", body.isEmpty ? "(none)" : body)
            }
            let actions = (presentation["actions"]?.arrayValue ?? []).map { action in
                (action["identifier"]?.stringValue ?? "?") + (action["title"]?.stringValue.map { " (\($0))" } ?? "")
            }
            if !actions.isEmpty { text += field("Actions", actions.joined(separator: ", ")) }
        }
        for note in notes { text += "  " + terminal.line(for: note) + "\n" }
        for diagnostic in answer["diagnostics"]?.arrayValue ?? [] {
            let severity = diagnostic["severity"]?.stringValue ?? "note"
            text += "  \(severity == "error" ? terminal.red(severity) : terminal.dim(severity)) "
                + "\(diagnostic["code"]?.stringValue ?? ""): \(diagnostic["message"]?.stringValue ?? "")\n"
        }
        return text
    }

    private func field(_ name: String, _ value: String) -> String {
        "  " + terminal.dim(name.rightPadded(to: labelWidth)) + value + "\n"
    }
}
