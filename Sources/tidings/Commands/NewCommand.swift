import TidingsBase

/// `tidings new`: a new extension project, ready to build and install, or a new app on TidingsApp, ready to build and run.
enum NewCommand: Command {
    static let spec = CommandSpec(
        name: "new",
        summary: "Make a new content or service extension project in Swift or C: manifest, code, interface file, sample payload and categories, build files; or an app on TidingsApp.",
        usage: "NAME [--kind content|service|app] [--language swift|c] [--app ID] [--categories LIST] [--into DIR] [--tidings PATH|URL] [--json]",
        options: [
            .init(name: "kind", value: "content|service|app", help: "The extension point (default content), or app: a Swift package whose executable uses UserNotificationCenter."),
            .init(name: "language", value: "swift|c", help: "The language (default swift)."),
            .init(name: "app", value: "ID", help: "The app's bundle identifier (default com.example.NAME in lower case); the extension's is the app's then .NAME."),
            .init(name: "categories", value: "LIST",
                  help: "For a content extension: the categories it draws, separated by commas (default NAME in lower case)."),
            .init(name: "into", value: "DIR", help: "Make the project in DIR/NAME (default ./NAME)."),
            .init(name: "tidings", value: "PATH|URL",
                  help: "Where a Swift project gets the Tidings package: a checkout's path, an installed SDK package's path (PREFIX/share/tidings/TidingsSDK) or, for an app, the installed app library's (PREFIX/share/tidings/TidingsApp), or a URL (default: found from this tidings, see below)."),
            .init(name: "json", value: nil, help: "Print JSON instead of text."),
        ],
        arguments: .text,
        discussion: [
            "NAME is the Swift module, the C file and the library (libNAME.so): a letter, then letters, digits or _. The project builds with one command (swift build, or make for C), is checked with tidings validate . (which finds a Swift package's built library) and installs with one more (tidings install …, or make install); its README.md says which, and how to deliver its sample payload.",
            "A Swift project depends on the Tidings package by path or by URL, naming it by its identity, the last part of that path or URL in lower case. A C project needs only tidings.h: its Makefile points at that header (or pkg-config --cflags tidings once installed).",
            "Without --tidings, both are found from this tidings itself: built in a checkout, that checkout; installed as PREFIX/bin/tidings, PREFIX/include/tidings/tidings.h and the SDK package PREFIX/share/tidings/TidingsSDK (Scripts/install.sh installs both); a build copied elsewhere, the checkout it was built in while it is there. When none is found, the error names each place looked in.",
            "--kind app makes an app in Swift: a package with one executable on the product TidingsApp (the checkout's, or the installed PREFIX/share/tidings/TidingsApp, found as above) that asks authorization, adds a request and prints what it did; swift build builds it, .build/debug/NAME runs it against tidings serve (--socket PATH for another socket).",
        ],
        examples: [
            "tidings new Reminders --app com.example.reminders --categories reminder,overdue",
            "tidings new Digest --kind service --language c --app com.example.news",
            "tidings new Pillbox --kind app --app org.example.pillbox",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard arguments.positionals.count == 1 else { throw .usage("tidings new needs one NAME (see tidings new --help).") }
        let name = arguments.positionals[0]
        guard Scaffold.isValidName(name) else {
            throw .usage("\"\(name)\" cannot name an extension: use a letter, then letters, digits or _ (it names the module, the file and the library).")
        }
        let kind = try choice(arguments, "kind", default: Scaffold.Kind.content)
        let language = try choice(arguments, "language", default: Scaffold.Language.swift)
        let app = arguments.value("app") ?? "com.example.\(name.lowercased())"
        guard !app.isEmpty, app.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) else {
            throw .usage("--app takes a bundle identifier such as com.example.app, not \"\(app)\".")
        }
        if kind == .app && language != .swift {
            throw .usage("--kind app makes a Swift package on TidingsApp: it takes no --language c.")
        }
        if kind == .app && arguments.value("categories") != nil {
            throw .usage("--categories goes with a content extension: an app sets its categories in code (setNotificationCategories).")
        }
        if kind == .service && arguments.value("categories") != nil {
            throw .usage("--categories goes with a content extension: a service extension serves all of its app's notifications.")
        }
        let categories = (arguments.value("categories") ?? name.lowercased()).split(separator: ",").map {
            String($0.trimmingPrefix(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        }
        guard !categories.isEmpty, categories.allSatisfy({ !$0.isEmpty && !$0.contains("\"") && !$0.contains("<") }) else {
            throw .usage("--categories takes names separated by commas, such as reminder,overdue.")
        }
        let source: Scaffold.Source
        if let given = arguments.value("tidings") {
            guard let found = SourceLocator.source(given: given) else {
                throw CommandFailure(.noInput, [.error(.fileNotFound, "\(given) is not a Tidings package (a checkout, or an installed SDK or app library package): it has no Package.swift.")])
            }
            // An app needs TidingsApp's package: a checkout or the installed app library, not the SDK's.
            if kind == .app, let path = found.app, !path.contains("://"),
               FileSystem.status(of: Path.join(path, "Sources/TidingsApp"))?.kind != .directory {
                throw CommandFailure(.noInput, [.error(.fileNotFound,
                    "\(given) holds no TidingsApp (Sources/TidingsApp): give a checkout or an installed PREFIX/share/tidings/TidingsApp.")])
            }
            source = found
        } else {
            source = SourceLocator.locate().source ?? Scaffold.Source()
        }
        guard kind == .app ? source.app != nil : language == .swift ? source.package != nil : source.include != nil else {
            let needed = kind == .app ? "the app library's package (TidingsApp)"
                : language == .swift ? "the Tidings Swift package" : "Tidings' C header, tidings.h"
            throw CommandFailure(.noInput, [SourceLocator.locate().failure(needing: needed)])
        }
        let project = Scaffold(name: name, kind: kind, language: language, app: app, categories: categories, source: source)
        let directory = Path.join(arguments.value("into") ?? ".", name)
        if let existing = FileSystem.status(of: directory) {
            let empty = existing.kind == .directory && ((try? FileSystem.contentsOfDirectory(directory))?.isEmpty ?? false)
            guard empty else { throw CommandFailure(.cannotCreate, [.error(.usage, "\(directory) exists already; nothing was made.")]) }
        }
        do throws(Diagnostic) {
            for file in project.files {
                let path = Path.join(directory, file.path)
                try FileSystem.createDirectory(Path.directory(of: path))
                try FileSystem.writeFileAtomically(path, Array(file.text.utf8))
            }
        } catch {
            throw CommandFailure(.cannotCreate, [error])
        }
        if kind == .app {
            if arguments.flag("json") {
                print(JSON.object([
                    ("directory", .string(FileSystem.absolutePath(directory))), ("files", .array(project.files.map { .string($0.path) })),
                    ("build", .string(project.buildCommand)), ("run", .string(project.runCommand)),
                ]).serialized(pretty: true))
            } else {
                print("Made \(directory): an app of \(app) on TidingsApp, in Swift.")
                print("  cd \(directory)\n  \(project.buildCommand)\n  \(project.runCommand)")
            }
            return .success
        }
        if arguments.flag("json") {
            print(JSON.object([
                ("directory", .string(FileSystem.absolutePath(directory))),
                ("files", .array(project.files.map { .string($0.path) })),
                ("build", .string(project.buildCommand)), ("validate", .string(project.validateCommand)), ("install", .string(project.installCommand)),
                ("deliver", .string(project.deliverCommand)),
            ]).serialized(pretty: true))
        } else {
            print("Made \(directory): a \(kind.rawValue) extension of \(app) in \(language == .swift ? "Swift" : "C").")
            print("  cd \(directory)\n  \(project.buildCommand)\n  \(project.validateCommand)\n  \(project.installCommand)\n  \(project.deliverCommand)")
        }
        return .success
    }

    /// The value of `--name` among `Choice`'s cases, or `fallback`.
    private static func choice<Choice: RawRepresentable & CaseIterable>(
        _ arguments: ParsedArguments, _ name: String, default fallback: Choice
    ) throws(CommandFailure) -> Choice where Choice.RawValue == String {
        guard let given = arguments.value(name) else { return fallback }
        guard let value = Choice(rawValue: given) else {
            throw .usage("--\(name) takes \(Choice.allCases.map(\.rawValue).joined(separator: " or ")), not \"\(given)\".")
        }
        return value
    }
}
