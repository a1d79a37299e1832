import TidingsBase
import TidingsRegistry

/// The `--extensions DIR` option every command that reads bundles shares.
enum SearchPathOption {
    static let option = CommandSpec.Option(
        name: "extensions", value: "DIR",
        help: "Look for NAME.appex bundles in DIR instead of the search path.", repeatable: true)

    static let discussion = """
        Search path: TIDINGS_EXTENSIONS_PATH (colon-separated) when set, else \
        $XDG_DATA_HOME/tidings/extensions (~/.local/share/…) then tidings/extensions \
        under each of $XDG_DATA_DIRS (/usr/local/share:/usr/share).
        """

    /// Scans the directories the arguments and environment name.
    static func index(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExtensionIndex {
        let directories = arguments.values("extensions")
        for directory in directories where !FileSystem.isDirectory(directory) {
            throw CommandFailure(.noInput, [.error(.directoryMissing, "The extension directory \(directory) does not exist.",
                                                   at: .init(file: directory))])
        }
        return Discovery.scan(SearchPath.resolve(environment: environment, override: directories))
    }
}
