import TidingsBase
import TidingsRegistry

/// Installs the NoOp extension, and copies of it that differ only in
/// identifier and category, into an extension directory, and checks that
/// discovery finds every one of them usable and routable.
enum BundleFarm {
    /// The app every bundle belongs to (the NoOp identifier minus its last component).
    static let app = "com.example.bench"
    /// NoOp's bundle identifier, as Manifests/NoOp.plist gives it.
    static let identifier = "com.example.bench.noop"
    /// NoOp's category, as Manifests/NoOp.plist gives it.
    static let category = "noop"

    /// Fills `directory` with NoOp.appex and `count - 1` copies NoOp002.appex…,
    /// identifiers com.example.bench.noop002… and categories noop002…,
    /// and returns the index discovery builds from it.
    static func populate(_ directory: String, count: Int, products: Products) throws(BenchmarkFailure) -> ExtensionIndex {
        let template: String
        do {
            try FileSystem.createDirectory(directory)
            template = String(decoding: try FileSystem.readFile(products.noOpManifest, limit: 1 << 20), as: UTF8.self)
        } catch {
            throw BenchmarkFailure(error.message)
        }
        try install("NoOp", manifest: template, library: products.noOpLibrary, into: directory)
        if count > 1 {
            for number in 2...count {
                let suffix = String(number).leftPadded(to: 3, with: "0")
                let manifest = try copy(of: template, identifier: identifier + suffix, category: category + suffix,
                                        file: products.noOpManifest)
                try install("NoOp" + suffix, manifest: manifest, library: products.noOpLibrary, into: directory)
            }
        }
        let index = Discovery.scan(SearchPath(directories: [directory], origin: .option))
        try verify(index, count: count, directory: directory)
        return index
    }

    /// The manifest with NoOp's identifier and category replaced.
    private static func copy(of template: String, identifier: String, category: String,
                             file: String) throws(BenchmarkFailure) -> String {
        let replacements = [("<string>\(Self.identifier)</string>", "<string>\(identifier)</string>"),
                            ("<string>\(Self.category)</string>", "<string>\(category)</string>")]
        var manifest = template
        for (old, new) in replacements {
            guard manifest.ranges(of: old).count == 1 else {
                throw BenchmarkFailure("\(file) should contain \(old) exactly once, to be copied under other names.")
            }
            manifest = manifest.replacing(old, with: new)
        }
        return manifest
    }

    /// Writes `directory/NAME.appex` with `manifest` as Info.plist and the library beside it.
    private static func install(_ name: String, manifest: String, library: String,
                                into directory: String) throws(BenchmarkFailure) {
        let bundle = Path.join(directory, "\(name).\(BundleReader.bundleExtension)")
        do {
            try FileSystem.createDirectory(bundle)
            try FileSystem.writeFileAtomically(Path.join(bundle, BundleReader.manifestName), Array(manifest.utf8))
            try FileSystem.copyFile(library, to: Path.join(bundle, Path.lastComponent(of: library)))
        } catch {
            throw BenchmarkFailure(error.message)
        }
    }

    /// Checks that every bundle is usable, without warnings, and routes its category.
    private static func verify(_ index: ExtensionIndex, count: Int, directory: String) throws(BenchmarkFailure) {
        let problems = index.diagnostics + index.bundles.flatMap(\.diagnostics)
        if let problem = problems.first(where: { $0.severity >= .warning }) {
            throw BenchmarkFailure("A generated bundle in \(directory) has a problem: \(problem.message)")
        }
        guard index.bundles.count == count, index.bundles.allSatisfy(\.isUsable) else {
            throw BenchmarkFailure("Discovery found \(index.bundles.count) usable bundles in \(directory), not \(count).")
        }
        let categories = [category] + (count > 1 ? (2...count).map { category + String($0).leftPadded(to: 3, with: "0") } : [])
        for category in categories where index.contentExtension(forApp: app, category: category) == nil {
            throw BenchmarkFailure("No bundle in \(directory) serves category \(category) of \(app).")
        }
    }
}

