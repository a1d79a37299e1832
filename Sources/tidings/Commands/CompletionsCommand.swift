/// `tidings completions SHELL`: the shell's completion script for tidings.
enum CompletionsCommand: Command {
    static let spec = CommandSpec(
        name: "completions",
        summary: "Print the completion script of bash, zsh or fish for tidings.",
        usage: "bash|zsh|fish",
        options: [],
        firstArguments: ShellCompletion.allCases.map(\.rawValue),
        discussion: [
            "The scripts complete commands, options, the values of options that take one of a set (--isolation, --previews, --to) and file and directory arguments; they are made from the same text as --help. The install step (Scripts/install.sh) puts them where each shell looks: \(ShellCompletion.allCases.map { "PREFIX/share/" + $0.installPath }.joined(separator: ", ")).",
        ],
        examples: [
            "source <(tidings completions bash)",
            "tidings completions fish > ~/.config/fish/completions/tidings.fish",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        let names = ShellCompletion.allCases.map(\.rawValue).joined(separator: ", ")
        guard arguments.positionals.count == 1 else { throw .usage("tidings completions needs one shell: \(names).") }
        guard let shell = ShellCompletion(rawValue: arguments.positionals[0]) else {
            throw .usage("There is no completion for \"\(arguments.positionals[0])\"; the shells are \(names).")
        }
        print(shell.script(for: Tidings.commands.map { $0.spec }), terminator: "")
        return .success
    }
}
