import Glibc
import TidingsBase
import TidingsManifest
import TidingsRegistry

/// `tidings manifest`: print, query, edit, lint and convert a manifest, in
/// the spirit of `plutil` and `PlistBuddy`. Edits keep the file's format
/// and its key order, are written atomically, and are refused when the
/// manifest would no longer validate (unless `--force`).
enum ManifestCommand: Command {
    static let spec = CommandSpec(
        name: "manifest",
        summary: "Print, query, edit, lint and convert an extension's Info.plist, keeping its format and key order.",
        usage: "ACTION TARGET [ARGUMENTS] [--force] [--output FILE] [--json]",
        options: [
            .init(name: "force", value: nil, help: "Write an edit even when the manifest would then have errors."),
            .init(name: "to", value: "FORMAT", help: "For convert: xml, binary or json.", choices: ["xml", "binary", "json"]),
            .init(name: "output", value: "FILE", help: "For convert: write here instead of replacing the manifest."),
            SearchPathOption.option,
            .init(name: "json", value: nil, help: "Print JSON instead of text."),
        ],
        arguments: .file,
        firstArguments: ["print", "get", "set", "insert", "remove", "lint", "convert", "add-category", "remove-category",
                         "set-ratio", "hide-default-content", "show-default-content"],
        discussion: [
            """
            Actions:
              print TARGET                      the whole manifest, readably
              get TARGET KEYPATH                one value
              set TARGET KEYPATH TYPE [VALUE]   set a value (a new key goes last in its dictionary)
              insert TARGET KEYPATH TYPE [VALUE] insert into an array at an index, or add a key
              remove TARGET KEYPATH             remove a value
              lint TARGET                       validate, listing every problem
              convert TARGET --to FORMAT        rewrite as xml, binary or json (in place, or --output FILE)
              add-category TARGET NAME          declare one more UNNotificationExtensionCategory
              remove-category TARGET NAME       stop declaring a category
              set-ratio TARGET RATIO            set UNNotificationExtensionInitialContentSizeRatio
              hide-default-content TARGET       set UNNotificationExtensionDefaultContentHidden to true
              show-default-content TARGET       set it to false
            """,
            "TARGET is an Info.plist file, a NAME.appex bundle directory, or the name (or identifier) of a bundle on the search path. lint of a bundle also checks its interface file and its library (the entry symbol, the libraries and symbols it needs, without running it): the verdict tidings list and tidings install give.",
            "KEYPATH is dotted (NSExtension.NSExtensionAttributes.UNNotificationExtensionCategory.0; a dot in a key is \\.) or, as PlistBuddy writes it, with colons (:NSExtension:NSExtensionAttributes). TYPE is string, bool, integer, real, date (ISO 8601), array or dict; an array or dict takes JSON for its content, or nothing for an empty one.",
            SearchPathOption.discussion,
        ],
        examples: [
            "tidings manifest print EventInvite",
            "tidings manifest get EventInvite NSExtension.NSExtensionAttributes.UNNotificationExtensionCategory",
            "tidings manifest add-category ./EventInvite.appex event-update",
            "tidings manifest set Info.plist NSExtension.NSExtensionAttributes.UNNotificationExtensionInitialContentSizeRatio real 0.5",
            "tidings manifest convert Info.plist --to binary --output Info.bplist",
        ])

    /// The actions that change the manifest, and how many arguments each takes after the target.
    private static let edits: [String: ClosedRange<Int>] = [
        "set": 2...3, "insert": 2...3, "remove": 1...1, "add-category": 1...1, "remove-category": 1...1,
        "set-ratio": 1...1, "hide-default-content": 0...0, "show-default-content": 0...0,
    ]
    private static let reads: [String: ClosedRange<Int>] = ["print": 0...0, "get": 1...1, "lint": 0...0, "convert": 0...0]

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard let action = arguments.positionals.first else {
            throw .usage("tidings manifest needs an action and a target (see tidings manifest --help).")
        }
        guard let counts = edits[action] ?? reads[action] else {
            let hint = Suggestion.closest(to: action, among: Array(edits.keys) + Array(reads.keys)).map { " Did you mean \($0)?" } ?? ""
            throw .usage("There is no manifest action \"\(action)\" (see tidings manifest --help).\(hint)")
        }
        guard arguments.positionals.count >= 2 else { throw .usage("tidings manifest \(action) needs a target.") }
        let rest = Array(arguments.positionals.dropFirst(2))
        guard counts.contains(rest.count) else {
            throw .usage("tidings manifest \(action) takes \(counts.lowerBound == counts.upperBound ? "\(counts.lowerBound)" : "\(counts.lowerBound) to \(counts.upperBound)") argument\(counts.upperBound == 1 ? "" : "s") after the target.")
        }
        if action != "convert" && (arguments.value("to") != nil || arguments.value("output") != nil) {
            throw .usage("--to and --output go with convert.")
        }
        let path = try resolve(arguments.positionals[1], arguments: arguments, environment: environment)
        let original = try read(path)
        let json = arguments.flag("json")
        let terminal = Terminal(descriptor: 1, environment: environment)

        switch action {
        case "print":
            print(json ? ManifestText.json(original.document).serialized(pretty: true)
                       : ManifestText.render(original.document, file: path, terminal: terminal), terminator: json ? "\n" : "")
            return .success
        case "get":
            let keyPath = PropertyListKeyPath(rest[0])
            guard let value = PropertyListEditing.value(at: keyPath, in: original.document.value) else {
                throw CommandFailure(.dataError, [.error(.editNoSuchValue, "\(keyPath) does not exist.", at: .init(file: path))])
            }
            print(json ? ManifestText.json(value).serialized(pretty: true) : ManifestText.render(value, terminal: terminal),
                  terminator: json ? "\n" : "")
            return .success
        case "lint":
            var diagnostics = original.document.warnings + Manifest.validate(original.document.value, file: path).diagnostics
            // A bundle's manifest gets the verdict list and install give: its interface file, its library and what
            // the registry says of it among the bundles beside it (shadowing) too.
            let directory = Path.directory(of: path)
            if Path.lastComponent(of: path) == BundleReader.manifestName,
               Path.pathExtension(of: directory) == BundleReader.bundleExtension {
                for diagnostic in ExtensionBundle.judged(directory, on: SearchPath.resolve(environment: environment)).diagnostics where !diagnostics.contains(diagnostic) {
                    diagnostics.append(diagnostic)
                }
            }
            if json {
                print(JSON.object([("file", .string(path)), ("valid", .bool(!diagnostics.containsError)),
                                   ("diagnostics", .array(diagnostics.map { $0.json }))]).serialized(pretty: true))
            } else {
                for diagnostic in diagnostics { print(Terminal(descriptor: 1, environment: environment).line(for: diagnostic)) }
                print(diagnostics.containsError ? "\(path): \(diagnostics.filter { $0.severity == .error }.count) errors"
                                                : "\(path): valid")
            }
            return diagnostics.containsError ? .dataError : .success
        case "convert":
            guard let name = arguments.value("to") else { throw .usage("convert needs --to xml, binary or json.") }
            guard let format = PropertyListFormat(rawValue: name) else {
                throw .usage("--to takes xml, binary or json; it got \"\(name)\".")
            }
            let destination = arguments.value("output") ?? path
            try write(original.document.value, as: format, to: destination, mode: original.mode)
            report("Converted \(path) to \(format.rawValue)\(destination == path ? "" : " in \(destination)").", json: json)
            return .success
        default:
            let edited = try edit(action, rest, in: original.document.value, file: path)
            try check(edited, against: original.document.value, file: path, force: arguments.flag("force"))
            try write(edited, as: original.document.format, to: path, mode: original.mode)
            report("Edited \(path) (\(original.document.format.rawValue)).", json: json)
            return .success
        }
    }

    /// The manifest file `target` names: a file, a bundle directory, or a bundle on the search path.
    private static func resolve(_ target: String, arguments: ParsedArguments,
                                environment: [String: String]) throws(CommandFailure) -> String {
        switch FileSystem.status(of: target)?.kind {
        case .regular?:
            return target
        case .directory?:
            return Path.join(target, BundleReader.manifestName)
        default:
            let index = try SearchPathOption.index(arguments, environment: environment)
            guard let bundle = index.bundle(named: target) else {
                throw CommandFailure(.noInput, [.error(.fileNotFound,
                    "\(target) is neither a file, a bundle directory, nor a bundle on the search path.")])
            }
            return Path.join(bundle.path, BundleReader.manifestName)
        }
    }

    /// The manifest at `path`, decoded, and its permission bits.
    private static func read(_ path: String) throws(CommandFailure) -> (document: PropertyListDocument, mode: mode_t) {
        do {
            let document = try PropertyList.decode(try FileSystem.readFile(path, limit: 16 << 20), file: path)
            var info = stat()
            let mode: mode_t = stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0o644
            return (document, mode)
        } catch {
            throw .input(error)
        }
    }

    /// The manifest with the edit `action` made.
    private static func edit(_ action: String, _ arguments: [String], in manifest: PropertyList,
                             file: String) throws(CommandFailure) -> PropertyList {
        do throws(Diagnostic) {
            switch action {
            case "set", "insert":
                guard let type = PropertyListValueText.ValueType(rawValue: arguments[1]) else {
                    throw .error(.editInvalidValue, "TYPE is one of \(PropertyListValueText.ValueType.allCases.map(\.rawValue).joined(separator: ", ")); it is \"\(arguments[1])\".")
                }
                let value = try PropertyListValueText.value(of: type, arguments.count > 2 ? arguments[2] : nil)
                let keyPath = PropertyListKeyPath(arguments[0])
                return action == "set" ? try PropertyListEditing.setting(value, at: keyPath, in: manifest)
                    : try PropertyListEditing.inserting(value, at: keyPath, in: manifest)
            case "remove":
                return try PropertyListEditing.removing(at: PropertyListKeyPath(arguments[0]), in: manifest)
            case "add-category":
                return try ManifestEdit.addCategory(arguments[0]).applied(to: manifest)
            case "remove-category":
                return try ManifestEdit.removeCategory(arguments[0]).applied(to: manifest)
            case "set-ratio":
                guard let ratio = Double(arguments[0]) else {
                    throw .error(.editInvalidValue, "The ratio is a number such as 0.75; \"\(arguments[0])\" is not one.")
                }
                return try ManifestEdit.setInitialContentSizeRatio(ratio).applied(to: manifest)
            default:
                return try ManifestEdit.setDefaultContentHidden(action == "hide-default-content").applied(to: manifest)
            }
        } catch {
            var located = error
            located.location.file = located.location.file ?? file
            throw CommandFailure(.dataError, [located])
        }
    }

    /// Refuses (unless `force`) an edit after which the manifest has errors it did not have.
    private static func check(_ edited: PropertyList, against original: PropertyList, file: String,
                              force: Bool) throws(CommandFailure) {
        let before = Set(Manifest.validate(original, file: file).diagnostics.filter { $0.severity == .error }
            .map { "\($0.code) \($0.location)" })
        let after = Manifest.validate(edited, file: file).diagnostics.filter { $0.severity == .error }
        let introduced = after.filter { !before.contains("\($0.code) \($0.location)") }
        guard !introduced.isEmpty, !force else { return }
        throw CommandFailure(.dataError, introduced + [.note(.editRefused,
            "The manifest would no longer validate, so it was not written (it is as it was); --force writes it anyway.",
            at: .init(file: file))])
    }

    /// Writes `value` as `format` to `path` atomically (write, flush, rename), with `mode`.
    private static func write(_ value: PropertyList, as format: PropertyListFormat, to path: String,
                              mode: mode_t) throws(CommandFailure) {
        do {
            try FileSystem.writeFileAtomically(path, try PropertyListEncoding.encode(value, as: format), mode: mode)
        } catch {
            throw CommandFailure(error.code == .plistCannotEncode ? .dataError : .cannotCreate, [error])
        }
    }

    /// Says what was done: a sentence, or `{"message": …}` with --json.
    private static func report(_ message: String, json: Bool) {
        print(json ? JSON.object([("message", .string(message))]).serialized(pretty: true) : message)
    }
}

extension Diagnostic.Code {
    /// An edit was not written because the manifest would no longer validate.
    static let editRefused = Self("edit.refused")
}
