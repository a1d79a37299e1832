/// The XDG Base Directory specification's per-user directories: where a
/// program keeps its data, state and cache.
package enum BaseDirectory: Sendable {
    /// `$XDG_DATA_HOME`, else `~/.local/share`: files the user keeps (extensions).
    case data
    /// `$XDG_STATE_HOME`, else `~/.local/state`: what survives a restart
    /// but is not worth keeping elsewhere (attachments, delivered notifications).
    case state
    /// `$XDG_CACHE_HOME`, else `~/.cache`: what can be rebuilt.
    case cache
    /// `$XDG_CONFIG_HOME`, else `~/.config`: what the user configures (the host's policy).
    case config

    /// The variable that names the directory.
    package var variable: String {
        switch self {
        case .data: "XDG_DATA_HOME"
        case .state: "XDG_STATE_HOME"
        case .cache: "XDG_CACHE_HOME"
        case .config: "XDG_CONFIG_HOME"
        }
    }

    /// The default below `$HOME` when the variable is unset or not absolute.
    package var defaultBelowHome: String {
        switch self {
        case .data: ".local/share"
        case .state: ".local/state"
        case .cache: ".cache"
        case .config: ".config"
        }
    }

    /// The directory in `environment`: the variable when it holds an absolute
    /// path (the specification says to ignore a relative one), else the
    /// default below `$HOME`; nil when neither is set.
    package func path(in environment: [String: String]) -> String? {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return Path.join(home, defaultBelowHome)
    }
}
