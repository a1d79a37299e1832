import Glibc
import TidingsBase

/// Finds Tidings' C header and Swift package from the running `tidings`
/// (`/proc/self/exe`), wherever it is:
/// - built in a checkout (`CHECKOUT/.build/…/tidings`): that checkout;
/// - installed (`PREFIX/bin/tidings`, by `Scripts/install.sh`): the header
///   `PREFIX/include/tidings/tidings.h`, the SDK package
///   `PREFIX/share/tidings/TidingsSDK` and the app library's package
///   `PREFIX/share/tidings/TidingsApp`;
/// - a build copied elsewhere: the checkout it was built from (its path is
///   compiled in), while that checkout is still there.
enum SourceLocator {
    /// What was found, and where it was looked for.
    struct Located {
        /// The header and package found; a field is nil when it was not found.
        var source: Scaffold.Source?
        /// The running executable, as `/proc/self/exe` names it.
        var executable: String
        /// Each place looked in, in order, for messages.
        var places: [String]

        /// The failure for a project that needs `what` ("the Tidings Swift package", "tidings.h") and found none.
        func failure(needing what: String) -> Diagnostic {
            .error(.fileNotFound, "Cannot find \(what) from this tidings (\(executable)): looked in \(places.joined(separator: "; ")). "
                   + "Give a checkout's path, an installed package's path (PREFIX/share/tidings/TidingsSDK, or TidingsApp for an app) or the Tidings package's URL with --tidings.")
        }
    }

    /// A checkout's (or an installed SDK package's) header directory, relative to the package.
    static let packagedHeaders = "Sources/TidingsABI/include"

    /// The prefix-relative path of the installed SDK package.
    static let installedPackage = "share/tidings/TidingsSDK"

    /// The prefix-relative path of the installed app library's package.
    static let installedAppPackage = "share/tidings/TidingsApp"

    /// The checkout this `tidings` was built from: this file is `CHECKOUT/Sources/tidings/Scaffold/SourceLocator.swift`.
    static let builtFrom: String = {
        var path = #filePath
        for _ in 0..<4 { path = Path.directory(of: path) }
        return path
    }()

    /// The source `--tidings` gives: a URL (the header, if any, found from
    /// this tidings), or a package's path (a checkout, an installed SDK
    /// package, which holds the header too, or an installed app library's
    /// package); nil for a path with no Package.swift.
    static func source(given: String) -> Scaffold.Source? {
        if given.contains("://") { return Scaffold.Source(include: locate().source?.include, package: given, app: given) }
        guard FileSystem.status(of: Path.join(given, "Package.swift"))?.kind == .regular else { return nil }
        let path = FileSystem.absolutePath(given)
        let include = Path.join(path, packagedHeaders)
        let hasHeader = FileSystem.status(of: Path.join(include, "tidings.h"))?.kind == .regular
        return Scaffold.Source(include: hasHeader ? include : locate().source?.include, package: path, app: path)
    }

    /// Looks for Tidings from the running executable.
    static func locate() -> Located {
        let executable = executablePath() ?? "/proc/self/exe"
        let bin = Path.directory(of: executable)
        var places: [String] = []
        var directory = bin
        for _ in 0..<5 {
            directory = Path.directory(of: directory)
            if isPackage(directory) { return Located(source: checkout(directory), executable: executable, places: []) }
        }
        places.append("a checkout above \(bin) (Package.swift and \(packagedHeaders)/tidings.h)")

        let prefix = Path.directory(of: bin)
        let include = Path.join(prefix, "include/tidings")
        let package = Path.join(prefix, installedPackage)
        let hasHeader = FileSystem.status(of: Path.join(include, "tidings.h"))?.kind == .regular
        let hasPackage = isPackage(package)
        let app = Path.join(prefix, installedAppPackage)
        let hasApp = FileSystem.status(of: Path.join(app, "Package.swift"))?.kind == .regular
        places.append("the prefix \(prefix) (include/tidings/tidings.h, \(installedPackage)/Package.swift, \(installedAppPackage)/Package.swift)")
        if hasHeader || hasPackage || hasApp {
            return Located(source: Scaffold.Source(include: hasHeader ? include : nil, package: hasPackage ? package : nil,
                                                   app: hasApp ? app : nil),
                           executable: executable, places: places)
        }

        places.append("the checkout it was built in, \(builtFrom)")
        if isPackage(builtFrom) { return Located(source: checkout(builtFrom), executable: executable, places: places) }
        return Located(source: nil, executable: executable, places: places)
    }

    /// True when `directory` holds a Tidings package: Package.swift and the header beneath it.
    private static func isPackage(_ directory: String) -> Bool {
        FileSystem.status(of: Path.join(directory, "Package.swift"))?.kind == .regular
            && FileSystem.status(of: Path.join(directory, packagedHeaders + "/tidings.h"))?.kind == .regular
    }

    private static func checkout(_ directory: String) -> Scaffold.Source {
        Scaffold.Source(include: Path.join(directory, packagedHeaders), package: directory, app: directory)
    }

    /// The running executable's path.
    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
