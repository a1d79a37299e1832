import TidingsBase
import TidingsRegistry

/// `tidings uninstall`: removes an installed bundle, the inverse of `install`.
enum UninstallCommand: Command {
    static let spec = CommandSpec(
        name: "uninstall",
        summary: "Remove an installed extension bundle, found by its name or identifier on the search path.",
        usage: "BUNDLE... [--extensions DIR]... [--json]",
        options: [
            SearchPathOption.option,
            .init(name: "json", value: nil, help: "Print JSON instead of text."),
        ],
        arguments: .text,
        discussion: [
            "BUNDLE is a bundle's directory name (EventInvite or EventInvite.appex) or its identifier (com.example.events.invite), as tidings list shows them. The bundle is renamed out of sight first and then deleted, so a running host sees it whole or not at all; tidings serve notices and stops serving it. A library already loaded keeps its code until the host restarts.",
            SearchPathOption.discussion,
        ],
        examples: [
            "tidings uninstall EventInvite",
            "tidings uninstall com.example.events.invite --extensions ./extensions",
        ],
        bundleArguments: true)

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard !arguments.positionals.isEmpty else {
            throw .usage("tidings uninstall needs the name or identifier of a bundle (see tidings list).")
        }
        let index = try SearchPathOption.index(arguments, environment: environment)
        var bundles: [ExtensionBundle] = []
        for name in arguments.positionals {
            guard let bundle = index.bundle(named: name) else {
                let names = index.bundles.map { Path.deletingExtension(of: $0.name) }
                let hint = Suggestion.closest(to: name, among: names).map { " Did you mean \($0)?" } ?? ""
                throw CommandFailure(.noInput, [.error(.fileNotFound, "No bundle called \(name) is on the search path.\(hint)")])
            }
            bundles.append(bundle)
        }
        for bundle in bundles {
            let hidden = Path.join(Path.directory(of: bundle.path), ".\(bundle.name).removed")
            do throws(Diagnostic) {
                try FileSystem.removeTree(hidden)
                try FileSystem.move(bundle.path, to: hidden)
                try FileSystem.removeTree(hidden)
            } catch {
                throw CommandFailure(.cannotCreate, [error])
            }
        }
        if arguments.flag("json") {
            print(JSON.object([("removed", .array(bundles.map { .string($0.path) }))]).serialized(pretty: true))
        } else {
            for bundle in bundles { print("Removed \(bundle.name) from \(Path.directory(of: bundle.path))") }
        }
        return .success
    }
}
