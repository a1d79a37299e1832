import TidingsBase
import TidingsRuntime
import TidingsServer

/// `tidings manual`: the manual pages, made from the text of `--help`.
enum ManualCommand: Command {
    static let spec = CommandSpec(
        name: "manual",
        summary: "Print the manual page of tidings or of one command in roff, or write every page into a directory.",
        usage: "[COMMAND] [--directory DIR] [--protocol markdown|openrpc|json]",
        options: [
            .init(name: "directory", value: "DIR",
                  help: "Write every page here as NAME.1 (tidings.1, tidings-deliver.1, …) instead of printing one."),
            .init(name: "protocol", value: "FORMAT",
                  help: "Print the reference of the server's protocol instead, made from its method table: markdown (Docs/reference/protocol.md), openrpc (Docs/reference/openrpc.json, an OpenRPC document with JSON Schema for every parameter, result and event, as server.protocol answers it) or json (Docs/reference/protocol.json, the names and types alone)."),
        ],
        // The other commands' names (a test keeps them in step: the list cannot name itself while it is made).
        firstArguments: ["list", "deliver", "preview", "serve", "desktop", "show", "schedule", "apps", "push", "new", "validate", "install", "uninstall", "manifest", "completions"],
        discussion: [
            "The pages are made from the same text as each command's --help, so they say the same. The install step (Scripts/install.sh) writes them into PREFIX/share/man/man1, after which man tidings and man tidings-deliver work.",
        ],
        examples: [
            "tidings manual deliver | man -l -",
            "tidings manual --directory ~/.local/share/man/man1",
            "tidings manual --protocol markdown > Docs/reference/protocol.md",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        if let format = arguments.value("protocol") {
            guard arguments.positionals.isEmpty, arguments.value("directory") == nil else {
                throw .usage("--protocol prints the protocol reference; name no command and no --directory with it.")
            }
            guard let text = ProtocolReference.text(format) else {
                throw .usage("--protocol takes markdown, openrpc or json; it is \"\(format)\".")
            }
            print(text, terminator: "")
            return .success
        }
        let specs = Tidings.commands.map { $0.spec }
        let pages = [ManualPage(overviewOf: specs, version: HostFunctions.version)]
            + specs.map { ManualPage(of: $0, version: HostFunctions.version) }
        if let directory = arguments.value("directory") {
            guard arguments.positionals.isEmpty else { throw .usage("--directory writes every page; name no command with it.") }
            do throws(Diagnostic) {
                try FileSystem.createDirectory(directory)
                for page in pages {
                    try FileSystem.writeFileAtomically("\(directory)/\(page.name).1", Array(page.source.utf8))
                }
            } catch {
                throw CommandFailure(.cannotCreate, [error])
            }
            return .success
        }
        guard arguments.positionals.count <= 1 else { throw .usage("tidings manual takes at most one command.") }
        guard let topic = arguments.positionals.first else {
            print(pages[0].source, terminator: "")
            return .success
        }
        guard let page = pages.first(where: { $0.name == "tidings-" + topic }) else {
            let hint = Suggestion.closest(to: topic, among: specs.map(\.name)).map { " Did you mean \($0)?" } ?? ""
            throw .usage("There is no command \"\(topic)\" to show the manual of.\(hint)")
        }
        print(page.source, terminator: "")
        return .success
    }
}
