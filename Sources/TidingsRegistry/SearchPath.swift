import TidingsBase

/// Where the host looks for extension bundles, in order of precedence.
///
/// `TIDINGS_EXTENSIONS_PATH` (colon-separated) replaces the default, which is
/// `$XDG_DATA_HOME/tidings/extensions` (`~/.local/share` when unset) followed
/// by `tidings/extensions` under each of `$XDG_DATA_DIRS`
/// (`/usr/local/share:/usr/share` when unset), as the XDG Base Directory
/// specification says.
package struct SearchPath: Sendable, Equatable {
    /// The directories, most important first.
    package var directories: [String]
    /// Where the list came from, for `tidings list`: an option, a variable, or the XDG default.
    package var origin: Origin

    /// Where a search path came from.
    package enum Origin: String, Sendable {
        /// `--extensions DIR` on the command line.
        case option
        /// `TIDINGS_EXTENSIONS_PATH`.
        case environment
        /// The XDG data directories.
        case xdg
    }

    package init(directories: [String], origin: Origin) {
        self.directories = directories
        self.origin = origin
    }

    /// The search path for an environment, unless `override` directories are given.
    package static func resolve(environment: [String: String], override: [String] = []) -> SearchPath {
        if !override.isEmpty { return SearchPath(directories: deduplicated(override), origin: .option) }
        if let list = environment["TIDINGS_EXTENSIONS_PATH"], !list.isEmpty {
            return SearchPath(directories: split(list), origin: .environment)
        }
        var directories: [String] = []
        if let dataHome = BaseDirectory.data.path(in: environment) {
            directories.append(Path.join(dataHome, "tidings/extensions"))
        }
        let dataDirectories = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        for directory in split(dataDirectories) where directory.hasPrefix("/") {
            directories.append(Path.join(directory, "tidings/extensions"))
        }
        return SearchPath(directories: deduplicated(directories), origin: .xdg)
    }

    private static func split(_ list: String) -> [String] {
        deduplicated(list.split(separator: ":").map(String.init).filter { !$0.isEmpty })
    }

    private static func deduplicated(_ directories: [String]) -> [String] {
        var seen: Set<String> = []
        return directories.filter { seen.insert($0).inserted }
    }
}
