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
            "Nothing from the library runs: it is checked to be an ELF shared library for this machine, by reading its headers and tables (never the whole file), and copied through a fixed buffer. Every file given — manifest, library, resources — must be a regular file named directly: a symbolic link, FIFO, device or directory is refused, with --force too (--force skips the verdict, never these checks).",
            "The bundle is assembled in .NAME.appex.new beside it, locked while this install runs; an install that was killed leaves it, and the next install into that directory removes it (and any other abandoned one) without following a link in it.",
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

        // Every file is opened once, without following a link, and checked on its descriptor; --force skips
        // the verdict on the bundle, never these checks.
        let manifestBytes: [UInt8]
        do throws(Diagnostic) {
            manifestBytes = try readManifest(FileDescriptor(openingUnlinked: manifestPath, as: .regularFile), path: manifestPath)
            // Checked now, so that nothing is staged for a bad one; opened again (and checked again) to be copied.
            for file in [libraryPath] + resources {
                do throws(Diagnostic) {
                    _ = try FileDescriptor(openingUnlinked: file, as: .regularFile)
                } catch where error.code == .fileNotFound {
                    throw .error(.fileNotFound, "The \(file == libraryPath ? "library" : "resource") \(file) does not exist.",
                                 at: .init(file: file))
                }
            }
        } catch {
            throw error.code == .fileNotFound ? CommandFailure(.noInput, [error]) : .input(error)
        }
        let manifest = Manifest.read(manifestBytes, file: manifestPath).manifest
        let name = arguments.value("name") ?? defaultName(manifestPath: manifestPath, manifest: manifest)
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw .usage("--name must be a plain name, without '/' and not starting with '.'.")
        }
        let directory = arguments.value("into")
            ?? SearchPath.resolve(environment: environment).directories.first ?? "."
        let executable = manifest?.executable ?? Path.lastComponent(of: libraryPath)
        guard !executable.isEmpty, !executable.contains("/"), executable != ".", executable != ".." else {
            throw .input(.error(.fileNotFound, "The manifest's CFBundleExecutable \"\(executable)\" is not a plain file name.",
                                at: .init(file: manifestPath)))
        }
        let bundle = Path.join(directory, "\(name).\(BundleReader.bundleExtension)")
        let staged: InstallStaging
        do throws(Diagnostic) {
            staged = try InstallStaging(for: bundle)
            try staged.write(BundleReader.manifestName, bytes: manifestBytes)
            try staged.copy(try FileDescriptor(openingUnlinked: libraryPath, as: .regularFile), as: executable,
                            from: libraryPath, executable: true)
            for resource in resources {
                try staged.copy(try FileDescriptor(openingUnlinked: resource, as: .regularFile),
                                as: Path.lastComponent(of: resource), from: resource, executable: false)
            }
        } catch {
            let input: Set<Diagnostic.Code> = [.fileLink, .fileUnreadable, .fileNotFound]
            throw input.contains(error.code) ? .input(error) : CommandFailure(.cannotCreate, [error])
        }
        // The verdict list gives, on the bundle as it will be and among the bundles it joins (what it shadows,
        // what shadows it); its problems named at their installed paths.
        let problems = ExtensionBundle.judged(staged.path, on: SearchPath.resolve(environment: environment), installedAt: bundle)
            .diagnostics.map { $0.moved(from: staged.path, to: bundle) }
        if problems.containsError && !force {
            staged.abandon()
            throw CommandFailure(.dataError, problems + [.note(.usage, "Nothing was installed; --force installs anyway.")])
        }
        do {
            try staged.commit()
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

    /// The manifest's bytes, read from `file` (opened at `path`): at most 1 MiB.
    private static func readManifest(_ file: borrowing FileDescriptor, path: String) throws(Diagnostic) -> [UInt8] {
        let limit = 1 << 20
        let bytes: [UInt8]
        do throws(SystemError) {
            bytes = try file.read(at: 0, count: limit + 1)
        } catch {
            throw FileSystem.failure(error, .fileUnreadable, "cannot read", path)
        }
        guard bytes.count <= limit else {
            throw .error(.fileTooLarge, "\(path) is more than the \(limit) bytes a manifest may have.", at: .init(file: path))
        }
        return bytes
    }
}
