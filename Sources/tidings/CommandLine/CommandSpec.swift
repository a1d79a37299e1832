/// What a command accepts, and the words its `--help` prints.
struct CommandSpec {
    /// An option: `--name VALUE` or a flag `--name`.
    struct Option {
        var name: String
        /// The value's placeholder, such as `DIR`; nil for a flag.
        var value: String?
        var help: String
        var repeatable = false
        /// The values the option takes, when they are a fixed set; shells complete them.
        var choices: [String] = []

        /// The values a shell offers for the option: its choices, or the words of an `a|b` placeholder.
        var completions: [String] {
            if !choices.isEmpty { return choices }
            guard let value, value.contains("|") else { return [] }
            return value.split(separator: "|").map(String.init)
        }

        /// What a shell completes the option's value with.
        var valueKind: ValueKind {
            guard let value else { return .none }
            if !completions.isEmpty { return .choice }
            switch value {
            case "DIR": return .directory
            case "FILE", "PATH", "ICON": return .file
            default: return .text
            }
        }
    }

    /// What an option's value is, for shell completion.
    enum ValueKind {
        /// A flag: no value.
        case none
        /// One of `Option.completions`.
        case choice
        case directory
        case file
        /// Free text.
        case text
    }

    var name: String
    var summary: String
    /// The usage line after `tidings NAME`.
    var usage: String
    var options: [Option]
    /// What the arguments that are not options are, for shell completion.
    var arguments: ValueKind = .none
    /// The words the first argument is one of (an action), when it is; shells complete them.
    var firstArguments: [String] = []
    /// Paragraphs after the options.
    var discussion: [String] = []
    var examples: [String] = []
    /// True when the arguments may name installed bundles (by name or identifier): shells offer those installed.
    var bundleArguments = false

    /// The options `--help` and the manual list: the command's own and `--help`.
    var allOptions: [Option] { options + [Option(name: "help", value: nil, help: "Show this help.")] }

    /// The usage line after `tidings NAME`: `usage`, then each option it does not mention, so that none is left out.
    var synopsis: String {
        var line = usage
        for option in options where !mentions(option.name) {
            line += " [--\(option.name)" + (option.value.map { " \($0)" } ?? "") + "]" + (option.repeatable ? "..." : "")
        }
        return line
    }

    /// True when `usage` names `--option` (not merely a longer option that begins alike).
    private func mentions(_ option: String) -> Bool {
        var rest = usage[...]
        while let found = rest.firstRange(of: "--\(option)") {
            let next = rest[found.upperBound...].first
            if next == nil || !(next!.isLetter || next!.isNumber || next! == "-") { return true }
            rest = rest[found.upperBound...]
        }
        return false
    }

    /// `--help` text.
    var help: String {
        var text = "\(summary)\n\nUsage: tidings \(name) \(synopsis)\n"
        let all = allOptions
        let labels = all.map { option in "--\(option.name)" + (option.value.map { " \($0)" } ?? "") }
        let width = labels.map(\.count).max() ?? 0
        text += "\nOptions:\n"
        for (label, option) in zip(labels, all) {
            let padding = String(repeating: " ", count: width - label.count)
            text += "  \(label)\(padding)  \(option.help)\(option.repeatable ? " (repeatable)" : "")\n"
        }
        for paragraph in discussion { text += "\n\(paragraph)\n" }
        if !examples.isEmpty {
            text += "\nExamples:\n" + examples.map { "  \($0)\n" }.joined()
        }
        return text
    }
}

/// A subcommand of `tidings`.
protocol Command {
    static var spec: CommandSpec { get }
    /// True for a command that may start workers (to run extensions, or to
    /// probe the sandbox): `tidings` hardens the process before it runs
    /// (`HostHardening.apply()`). False unless a command says so.
    static var startsWorkers: Bool { get }
    /// Runs with parsed arguments; returns the exit code.
    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode
}

extension Command {
    static var startsWorkers: Bool { false }
}
