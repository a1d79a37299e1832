import TidingsBase
import TidingsLoader
import TidingsManifest
import TidingsRegistry

/// `tidings list`: every bundle on the search path, what it declares, and what is wrong with it.
enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list",
        summary: "List the extension bundles on the search path, what they declare, and their problems.",
        usage: "[--extensions DIR]... [--no-cache] [--json]",
        options: [
            SearchPathOption.option,
            SearchPathOption.noCacheOption,
            .init(name: "json", value: nil, help: "Print JSON instead of a table."),
        ],
        discussion: [
            SearchPathOption.discussion,
            "No extension code runs: manifests are read and libraries are checked (present, ELF, this machine's architecture) without being loaded.",
            "Flags: hidden = UNNotificationExtensionDefaultContentHidden, title = UNNotificationExtensionOverridesDefaultTitle, touch = UNNotificationExtensionUserInteractionEnabled, view = has an interface file.",
        ],
        examples: ["tidings list", "tidings list --extensions ./build/extensions --json"])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard arguments.positionals.isEmpty else { throw .usage("tidings list takes no arguments.") }
        var index = try SearchPathOption.index(arguments, environment: environment, cached: true)
        index.checkLibraries()
        if arguments.flag("json") {
            print(index.json.serialized(pretty: true))
        } else {
            print(ListText(index: index, terminal: Terminal(descriptor: 1, environment: environment)).render(), terminator: "")
        }
        return .success
    }
}

extension ExtensionIndex {
    /// Adds to each bundle what can be known about its library without loading it.
    mutating func checkLibraries() {
        updateBundles { bundle in
            guard let library = bundle.libraryPath else { return }
            do throws(Diagnostic) {
                try ExtensionLoader.inspect(library)
            } catch {
                bundle.diagnostics.append(error)
            }
        }
    }
}
