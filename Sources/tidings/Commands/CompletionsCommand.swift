import TidingsBase

/// `tidings completions SHELL`: the shell's completion script for tidings.
enum CompletionsCommand: Command {
    static let spec = CommandSpec(
        name: "completions",
        summary: "Print the completion script of bash, zsh or fish for tidings.",
        usage: "bash|zsh|fish | --installed bundles|apps [--extensions DIR]...",
        options: [
            .init(name: "installed", value: "bundles|apps",
                  help: "Print, one a line, the installed bundles' identifiers and names, or their apps' identifiers: the words the scripts offer."),
            SearchPathOption.option,
        ],
        firstArguments: ShellCompletion.allCases.map(\.rawValue),
        discussion: [
            "The scripts complete commands, options, the values of options that take one of a set (--isolation, --previews, --to), file and directory arguments, the installed bundles' identifiers and names where a command takes a bundle (uninstall, validate) and their apps' identifiers for --app; they are made from the same text as --help, and ask tidings completions --installed for the installed words as they complete (with the command line's --extensions). The install step (Scripts/install.sh) puts them where each shell looks: \(ShellCompletion.allCases.map { "PREFIX/share/" + $0.installPath }.joined(separator: ", ")).",
        ],
        examples: [
            "source <(tidings completions bash)",
            "tidings completions fish > ~/.config/fish/completions/tidings.fish",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        if let installed = arguments.value("installed") {
            guard arguments.positionals.isEmpty else { throw .usage("--installed takes no shell: it prints words, not a script.") }
            let bundles = try SearchPathOption.index(arguments, environment: environment).bundles
            let words: [String]
            switch installed {
            case "bundles":
                words = bundles.flatMap { bundle in
                    [bundle.manifest?.bundleIdentifier, Path.deletingExtension(of: bundle.name)].compactMap { $0 }
                }
            case "apps":
                words = bundles.compactMap { $0.manifest?.appIdentifier }
            default:
                throw .usage("--installed takes bundles or apps, not \"\(installed)\".")
            }
            var seen = Set<String>()
            // A shell splits the words at white space: a name with a space in it cannot be offered.
            for word in words.sorted() where !word.contains(where: \.isWhitespace) && seen.insert(word).inserted { print(word) }
            return .success
        }
        let names = ShellCompletion.allCases.map(\.rawValue).joined(separator: ", ")
        guard arguments.positionals.count == 1 else { throw .usage("tidings completions needs one shell: \(names).") }
        guard let shell = ShellCompletion(rawValue: arguments.positionals[0]) else {
            throw .usage("There is no completion for \"\(arguments.positionals[0])\"; the shells are \(names).")
        }
        print(shell.script(for: Tidings.commands.map { $0.spec }), terminator: "")
        return .success
    }
}
