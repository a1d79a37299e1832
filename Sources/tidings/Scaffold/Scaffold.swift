import TidingsBase

/// What `tidings new` makes: the files of a new extension project, from its
/// name, kind, language and app, or of a new app on TidingsApp.
struct Scaffold {
    /// The extension points a project can be made for, and an app.
    enum Kind: String, CaseIterable {
        case content
        case service
        /// An app: an executable on the app library, TidingsApp.
        case app
    }

    /// The languages a project can be written in.
    enum Language: String, CaseIterable {
        case swift
        case c
    }

    /// Where the Tidings package (for a Swift project) and header (for a C one) come from.
    struct Source {
        /// The directory holding `tidings.h`, for a C project; nil when none was found.
        var include: String?
        /// The package a Swift project depends on, a path or a URL; nil when none was found.
        var package: String?
        /// The package an app depends on for TidingsApp, a path or a URL: a
        /// checkout, or the installed `PREFIX/share/tidings/TidingsApp`; nil when none was found.
        var app: String?
    }

    var name: String
    var kind: Kind
    var language: Language
    var app: String
    var categories: [String]
    var source: Source

    /// The extension's bundle identifier: the app's, then the name in lower case.
    var bundleIdentifier: String { "\(app).\(name.lowercased())" }

    /// The library the build makes.
    var library: String { "lib\(name).so" }

    /// The library's path after the build, relative to the project.
    var builtLibrary: String { language == .swift ? ".build/debug/\(library)" : library }

    /// The files, by path relative to the project directory.
    var files: [(path: String, text: String)] {
        if kind == .app { return ScaffoldAppTemplates.files(self) }
        var files: [(String, String)] = [("Info.plist", ScaffoldTemplates.manifest(self)),
                                          ("payload.json", ScaffoldTemplates.payload(self)),
                                          ("README.md", ScaffoldTemplates.readme(self)),
                                          (".gitignore", language == .swift ? ".build/\nPackage.resolved\n" : "*.so\n")]
        if kind == .content {
            files.append(("MainInterface.json", ScaffoldTemplates.interface))
            files.append(("categories.json", ScaffoldTemplates.categories(self)))
        }
        switch language {
        case .swift:
            files.append(("Package.swift", ScaffoldTemplates.package(self)))
            files.append(("Sources/\(name)/\(name).swift", kind == .content ? ScaffoldTemplates.swiftContent(self)
                                                                             : ScaffoldTemplates.swiftService(self)))
        case .c:
            files.append(("Makefile", ScaffoldTemplates.makefile(self)))
            files.append(("\(name).c", kind == .content ? ScaffoldTemplates.cContent(self) : ScaffoldTemplates.cService(self)))
        }
        return files
    }

    /// The command that runs the built app, run in its directory (an app's only).
    var runCommand: String { ".build/debug/\(name)" }

    /// The command that builds the project, run in its directory.
    var buildCommand: String { language == .swift ? "swift build" : "make" }

    /// The command that validates the built project, run in its directory (for a Swift package, it finds the built library).
    var validateCommand: String {
        "tidings validate ." + (kind == .content ? " --categories categories.json" : "")
    }

    /// The command that installs the built bundle, run in its directory.
    var installCommand: String {
        "tidings install Info.plist \(builtLibrary)\(kind == .content ? " MainInterface.json" : "") --name \(name)"
    }

    /// The command that delivers the sample payload to the installed extension.
    var deliverCommand: String {
        "tidings deliver payload.json --app \(app)" + (kind == .content ? " --categories categories.json --open" : "")
    }

    /// A name usable as a Swift module, a C identifier and a file name: a letter, then letters, digits or `_`.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }
}
