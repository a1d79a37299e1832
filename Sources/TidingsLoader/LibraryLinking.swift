import Glibc
import Synchronization
import TidingsABI
import TidingsBase

/// Whether a library would link, decided from files alone, as the dynamic
/// linker would decide it but without running any of its code: that it
/// exports the entry function, that every library it needs can be found
/// (loaded already in this process, on its run path, or in the system's
/// directories), and that every symbol it needs without being weak is
/// defined by one of those libraries, by itself, or by this process.
///
/// `tidings list`, `install`, `manifest lint` and `deliver --explain` say
/// the same of a library because each asks this.
package enum LibraryLinking {
    /// The problems of the library at `path`: empty when it would link.
    /// Its ELF header is checked first (`ExtensionLoader.inspect`).
    package static func problems(of path: String) -> [Diagnostic] {
        let location = Diagnostic.Location(file: path)
        let name = Path.lastComponent(of: path)
        do throws(Diagnostic) {
            try ExtensionLoader.inspect(path)
        } catch {
            return [error]
        }
        let linkage: ELFLinkage
        do {
            let file = try FileDescriptor(opening: path, as: .regularFile)
            linkage = try ELFLinkage(reading: file)
        } catch let failure as ELFLinkage.Failure {
            guard failure != .noSections else { return [] }
            return [.error(.libraryUnreadable, "\(name)'s dynamic section or symbol table cannot be read.", at: location)]
        } catch {
            return [.error(.libraryUnreadable, "\(name) cannot be read.", at: location)]
        }
        var problems: [Diagnostic] = []
        if !linkage.defined.contains(TIDINGS_ENTRY_SYMBOL) && !linkage.defined.contains(TIDINGS_ENTRY_V3_SYMBOL) {
            problems.append(.error(.entryMissing, entryMissing(name, exported: linkage.defined), at: location))
        }
        let resolution = scope.withLock { $0.resolve(linkage, origin: Path.directory(of: path)) }
        if !resolution.missing.isEmpty {
            problems.append(.error(.libraryNeededMissing,
                                   "\(name) needs \(list(resolution.missing)), which \(resolution.missing.count == 1 ? "is" : "are") nowhere the dynamic linker looks (its run path, LD_LIBRARY_PATH, the system's library directories).",
                                   at: location))
        }
        let undefined = linkage.required.subtracting(linkage.defined).filter { !resolution.defines($0) }.sorted()
        if !undefined.isEmpty {
            problems.append(.error(.libraryUnresolvedSymbol,
                                   "\(name) needs \(undefined.count == 1 ? "the symbol" : "the symbols") \(list(undefined)), which neither it, the libraries it needs, nor the host defines; loading it would fail.",
                                   at: location))
        }
        return problems
    }

    /// Why `name`, which exports the dynamic symbols `exported`, has no entry
    /// function, and the fix: the `tidings_` symbols it does export, with the
    /// one the entry was likely meant to be; else the usual causes.
    package static func entryMissing(_ name: String, exported: Set<String>) -> String {
        let sentence = "\(name) does not export \(TIDINGS_ENTRY_SYMBOL), the entry function every extension must have"
        let ours = exported.filter { $0.hasPrefix("tidings_") || $0.hasPrefix("_tidings_") }.sorted()
        let entries = [TIDINGS_ENTRY_SYMBOL, TIDINGS_ENTRY_V3_SYMBOL]
        if let meant = ours.first(where: { name in entries.contains { Suggestion.closest(to: name, among: [$0], limit: 6) != nil } }) {
            let entry = entries.min { Suggestion.editDistance(meant, $0) < Suggestion.editDistance(meant, $1) }!
            return sentence + ": it exports \(meant). Did you mean \(entry)? Rename the function \(entry)."
        }
        if !ours.isEmpty {
            return sentence + "; its exported tidings_ symbols are \(list(ours)). Export a function named \(TIDINGS_ENTRY_SYMBOL)."
        }
        return sentence + " and exports no tidings_ symbol: is the entry misspelt, declared static, or hidden (-fvisibility=hidden without TIDINGS_EXPORT)?"
    }

    /// Up to three names, then how many more.
    private static func list(_ names: [String]) -> String {
        let shown = names.prefix(3).joined(separator: ", ")
        return names.count > 3 ? "\(shown) and \(names.count - 3) more" : shown
    }

    /// What this process knows of libraries, built on first use and kept.
    private static let scope = Mutex(LinkScope())
}

/// The libraries this process has loaded and the ones read from disk, by
/// name, with the symbols each defines.
private struct LinkScope {
    /// A library found: where, and what it says of linking.
    struct Library {
        var path: String
        var linkage: ELFLinkage
    }

    /// Loaded objects by soname and file name, and the symbols of the global scope (the executable and what it loaded).
    private var loaded: [String: Library]?
    private var globalSymbols: Set<String> = []
    /// Libraries read from disk, by path.
    private var read: [String: ELFLinkage?] = [:]

    /// What resolving a library's needs found.
    struct Resolution {
        var missing: [String] = []
        var symbols: [Set<String>] = []

        func defines(_ symbol: String) -> Bool { symbols.contains { $0.contains(symbol) } }
    }

    /// The libraries `linkage` needs, and theirs, found as the dynamic linker would.
    mutating func resolve(_ linkage: ELFLinkage, origin: String) -> Resolution {
        let loaded = loadedObjects()
        var resolution = Resolution(symbols: [globalSymbols])
        var queue = [(needs: linkage, origin: origin)]
        var seen: Set<String> = []
        while let (needs, origin) = queue.popLast(), seen.count < 512 {
            for name in needs.needed where seen.insert(name).inserted {
                if let library = loaded[name] {
                    resolution.symbols.append(library.linkage.defined)
                    continue
                }
                guard let (path, found) = find(name, runPaths: needs.runPaths, origin: origin) else {
                    resolution.missing.append(name)
                    continue
                }
                resolution.symbols.append(found.defined)
                queue.append((found, Path.directory(of: path)))
            }
        }
        return resolution
    }

    /// The objects mapped into this process (`/proc/self/maps`), read once.
    private mutating func loadedObjects() -> [String: Library] {
        if let loaded { return loaded }
        var objects: [String: Library] = [:]
        let maps = (try? FileSystem.readFile("/proc/self/maps", limit: 16 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        var paths: [String] = ["/proc/self/exe"]
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            if !paths.contains(path), path.contains(".so") { paths.append(path) }
        }
        for path in paths {
            guard let linkage = linkage(at: path) else { continue }
            let library = Library(path: path, linkage: linkage)
            objects[Path.lastComponent(of: path)] = library
            if let soname = linkage.soname { objects[soname] = library }
            globalSymbols.formUnion(linkage.defined)
        }
        loaded = objects
        return objects
    }

    /// The library `name` on `runPaths` (with `$ORIGIN` as `origin`), `LD_LIBRARY_PATH` or the system's directories.
    private mutating func find(_ name: String, runPaths: [String], origin: String) -> (String, ELFLinkage)? {
        if name.contains("/") { return linkage(at: name).map { (name, $0) } }
        let expanded = runPaths.map { $0.replacing("${ORIGIN}", with: origin).replacing("$ORIGIN", with: origin) }
        let environment = getenv("LD_LIBRARY_PATH").map { String(cString: $0).split(separator: ":").map(String.init) } ?? []
        for directory in expanded + environment + Self.systemDirectories {
            let path = Path.join(directory, name)
            if let found = linkage(at: path) { return (path, found) }
        }
        return nil
    }

    /// The linkage of the file at `path`, read once; nil when it is not a readable ELF library.
    private mutating func linkage(at path: String) -> ELFLinkage? {
        if let known = read[path] { return known }
        let found: ELFLinkage? = {
            guard let file = try? FileDescriptor(opening: path, as: .regularFile) else { return nil }
            return try? ELFLinkage(reading: file)
        }()
        read[path] = found
        return found
    }

    /// The directories the dynamic linker searches after the run path: those
    /// of `/etc/ld.so.conf.d`, then the defaults.
    private static let systemDirectories: [String] = {
        var directories: [String] = []
        for file in (try? FileSystem.contentsOfDirectory("/etc/ld.so.conf.d")) ?? [] where file.hasSuffix(".conf") {
            let text = (try? FileSystem.readFile("/etc/ld.so.conf.d/\(file)", limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) }
            for line in (text ?? "").split(separator: "\n") {
                let trimmed = line.trimmingPrefix(while: \.isWhitespace)
                if trimmed.hasPrefix("/") { directories.append(String(trimmed)) }
            }
        }
        return directories + ["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
    }()
}

extension Diagnostic.Code {
    /// A library the extension's library needs (`DT_NEEDED`) is nowhere the dynamic linker looks.
    package static let libraryNeededMissing = Self("load.needed-library-missing")
}
