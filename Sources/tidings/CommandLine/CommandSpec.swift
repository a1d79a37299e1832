/// What a command accepts, and the words its `--help` prints.
struct CommandSpec {
    /// An option: `--name VALUE` or a flag `--name`.
    struct Option {
        var name: String
        /// The value's placeholder, such as `DIR`; nil for a flag.
        var value: String?
        var help: String
        var repeatable = false
    }

    var name: String
    var summary: String
    /// The usage line after `tidings NAME`.
    var usage: String
    var options: [Option]
    /// Paragraphs after the options.
    var discussion: [String] = []
    var examples: [String] = []

    /// `--help` text.
    var help: String {
        var text = "\(summary)\n\nUsage: tidings \(name) \(usage)\n"
        let all = options + [Option(name: "help", value: nil, help: "Show this help.")]
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
    /// Runs with parsed arguments; returns the exit code.
    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode
}
