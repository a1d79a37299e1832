import TidingsBase
import TidingsRegistry
import TidingsRuntime

/// The `--extensions DIR` option every command that reads bundles shares,
/// and `--no-cache` for those that keep an index cache.
enum SearchPathOption {
    static let option = CommandSpec.Option(
        name: "extensions", value: "DIR",
        help: "Look for NAME.appex bundles in DIR instead of the search path.", repeatable: true)

    /// `--no-cache`, for the commands that use the index cache.
    static let noCacheOption = CommandSpec.Option(
        name: "no-cache", value: nil,
        help: "Read every bundle instead of taking unchanged ones from the index cache ($XDG_CACHE_HOME/tidings, ~/.cache/…), and leave the cache alone.")

    static let discussion = """
        Search path: TIDINGS_EXTENSIONS_PATH (colon-separated) when set, else \
        $XDG_DATA_HOME/tidings/extensions (~/.local/share/…) then tidings/extensions \
        under each of $XDG_DATA_DIRS (/usr/local/share:/usr/share).
        """

    /// Scans the directories the arguments and environment name; with
    /// `cached`, through the user's index cache unless `--no-cache` is given,
    /// once the cache's place is checked (`IndexCache.check()`).
    static func index(_ arguments: ParsedArguments, environment: [String: String],
                      cached: Bool = false) throws(CommandFailure) -> ExtensionIndex {
        let directories = arguments.values("extensions")
        for directory in directories where !FileSystem.isDirectory(directory) {
            throw CommandFailure(.noInput, [.error(.directoryMissing, "The extension directory \(directory) does not exist.",
                                                   at: .init(file: directory))])
        }
        let cache = cached && !arguments.flag(noCacheOption.name)
            ? IndexCache.standard(in: environment, version: HostFunctions.version) : nil
        do throws(Diagnostic) {
            try cache?.check()
        } catch {
            throw .ownFile(error, otherwise: .cannotCreate)
        }
        return Discovery.scan(SearchPath.resolve(environment: environment, override: directories), cache: cache)
    }
}
