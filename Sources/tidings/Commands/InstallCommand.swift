import TidingsBase
import TidingsLoader
import TidingsManifest
import TidingsRegistry

/// `tidings install`: makes a NAME.appex bundle from a manifest, a library and
/// resources, and drops it into an extension directory.
enum InstallCommand: Command {
    static let spec = CommandSpec(
        name: "install",
        summary: "Make an extension bundle from a manifest, a shared library and resources, and install it.",
        usage: "MANIFEST LIBRARY [RESOURCE]... [--into DIR] [--name NAME] [--force] [--json]",
        options: [
            .init(name: "into", value: "DIR",
                  help: "Install into DIR (default: the first directory of the search path, usually ~/.local/share/tidings/extensions)."),
            .init(name: "name", value: "NAME", help: "Call the bundle NAME.appex (default: the manifest's file name, e.g. EventInvite)."),
            .init(name: "force", value: nil, help: "Install even when the manifest or library has errors."),
            .init(name: "json", value: nil, help: "Print JSON instead of text."),
        ],
        arguments: .file,
        discussion: [
            "The manifest is copied as Info.plist, the library under the name its CFBundleExecutable gives, and each resource (such as the interface file) beside them. The bundle is assembled next to its destination and renamed into place, so a running host never sees half of it; an existing bundle of that name is replaced.",
            "Nothing from the library runs: it is checked to be an ELF shared library for this machine.",
        ],
        examples: [
            "tidings install Manifests/EventInvite.plist .build/debug/libEventInvite.so Plugins/EventInvite/MainInterface.json",
            "cc -shared -fPIC -o libHello.so hello.c && tidings install Info.plist libHello.so --into ./extensions --name Hello",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        guard arguments.positionals.count >= 2 else {
            throw .usage("tidings install needs a manifest and a library (see tidings install --help).")
        }
        let manifestPath = arguments.positionals[0]
        let libraryPath = arguments.positionals[1]
        let resources = Array(arguments.positionals.dropFirst(2))
        let force = arguments.flag("force")

        guard FileSystem.status(of: libraryPath)?.kind == .regular else {
            throw CommandFailure(.noInput, [.error(.fileNotFound, "The library \(libraryPath) does not exist or is not a file.",
                                                   at: .init(file: libraryPath))])
        }
        let manifestBytes: [UInt8]
        do {
            manifestBytes = try FileSystem.readFile(manifestPath, limit: 1 << 20)
        } catch {
            throw .input(error)
        }
        let manifest = Manifest.read(manifestBytes, file: manifestPath).manifest
        for resource in resources where FileSystem.status(of: resource)?.kind != .regular {
            throw .input(.error(.fileNotFound, "The resource \(resource) is not a file.", at: .init(file: resource)))
        }
        let name = arguments.value("name") ?? defaultName(manifestPath: manifestPath, manifest: manifest)
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw .usage("--name must be a plain name, without '/' and not starting with '.'.")
        }
        let directory = arguments.value("into")
            ?? SearchPath.resolve(environment: environment).directories.first ?? "."
        let executable = manifest?.executable ?? Path.lastComponent(of: libraryPath)
        let bundle = Path.join(directory, "\(name).\(BundleReader.bundleExtension)")
        let staging: String
        do {
            staging = try stage(bundle, manifest: manifestBytes, library: libraryPath, executable: executable, resources: resources)
        } catch {
            throw CommandFailure(.cannotCreate, [error])
        }
        // The verdict list gives, on the bundle as it will be; its problems named at their installed paths.
        let problems = ExtensionBundle.judged(staging).diagnostics.map { $0.moved(from: staging, to: bundle) }
        if problems.containsError && !force {
            try? FileSystem.removeTree(staging)
            throw CommandFailure(.dataError, problems + [.note(.usage, "Nothing was installed; --force installs anyway.")])
        }
        do {
            try swap(staging, into: bundle)
        } catch {
            throw CommandFailure(.cannotCreate, [error])
        }

        let installed = BundleReader.read(bundle)
        if arguments.flag("json") {
            print(JSON.object([("installed", installed.json), ("diagnostics", .array(problems.map(\.json)))])
                .serialized(pretty: true))
        } else {
            let terminal = Terminal(descriptor: 1, environment: environment)
            var line = "Installed \(terminal.bold(installed.name)) in \(directory)"
            if let manifest = installed.manifest {
                line += ": \(manifest.bundleIdentifier), \(manifest.point.shortName) extension of \(manifest.appIdentifier)"
                if !manifest.categories.isEmpty { line += " for " + manifest.categories.joined(separator: ", ") }
            }
            print(line)
            for problem in problems { print("  " + terminal.line(for: problem)) }
        }
        return .success
    }

    /// The bundle's name without `--name`: the manifest file's (EventInvite for
    /// EventInvite.plist), except for a file called Info.plist, as every iOS
    /// manifest is; then the manifest's CFBundleName or display name, else its identifier.
    private static func defaultName(manifestPath: String, manifest: Manifest?) -> String {
        let fileName = Path.deletingExtension(of: Path.lastComponent(of: manifestPath))
        if fileName.lowercased() != "info" { return fileName }
        let display = manifest?.displayName?.filter { $0.isLetter || $0.isNumber || "._-".contains($0) } ?? ""
        if !display.isEmpty, !display.hasPrefix(".") { return display }
        return manifest?.bundleIdentifier ?? fileName
    }

    /// Builds the bundle beside `bundle`, under a hidden name, and returns where.
    private static func stage(_ bundle: String, manifest: [UInt8], library: String, executable: String,
                              resources: [String]) throws(Diagnostic) -> String {
        let directory = Path.directory(of: bundle)
        try FileSystem.createDirectory(directory)
        let staging = Path.join(directory, ".\(Path.lastComponent(of: bundle)).new")
        try FileSystem.removeTree(staging)
        try FileSystem.createDirectory(staging)
        do {
            try FileSystem.writeFileAtomically(Path.join(staging, BundleReader.manifestName), manifest)
            try FileSystem.copyFile(library, to: Path.join(staging, executable))
            for resource in resources {
                try FileSystem.copyFile(resource, to: Path.join(staging, Path.lastComponent(of: resource)))
            }
        } catch {
            try? FileSystem.removeTree(staging)
            throw error
        }
        return staging
    }

    /// Renames the staged bundle into place, so a running host never sees half of it; an existing bundle of that name is replaced.
    private static func swap(_ staging: String, into bundle: String) throws(Diagnostic) {
        let previous = Path.join(Path.directory(of: bundle), ".\(Path.lastComponent(of: bundle)).old")
        do {
            try FileSystem.removeTree(previous)
            if FileSystem.status(of: bundle) != nil { try FileSystem.move(bundle, to: previous) }
            try FileSystem.move(staging, to: bundle)
            try FileSystem.removeTree(previous)
        } catch {
            try? FileSystem.removeTree(staging)
            throw error
        }
    }
}
