import TidingsBase
import TidingsManifest

/// Reads one bundle directory: its manifest and, for content extensions, its
/// interface file. Reads files only; never runs extension code.
package enum BundleReader {
    /// The manifest's file name inside a bundle.
    package static let manifestName = "Info.plist"
    /// The file extension of bundle directories.
    package static let bundleExtension = "appex"

    /// Reads the bundle at `path`.
    package static func read(_ path: String, searchRank: Int = 0) -> ExtensionBundle {
        var bundle = ExtensionBundle(path: path, searchRank: searchRank, manifest: nil, interface: nil, diagnostics: [])
        let manifestPath = Path.join(path, manifestName)
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(manifestPath, limit: 1 << 20)
        } catch {
            let missing = error.code == .fileNotFound
            bundle.diagnostics.append(.error(
                missing ? .bundleManifestMissing : error.code,
                missing ? "The bundle has no Info.plist." : error.message,
                at: .init(file: manifestPath)))
            return bundle
        }
        let validation = Manifest.read(bytes, file: manifestPath)
        bundle.diagnostics += validation.diagnostics
        bundle.manifest = validation.manifest
        if let manifest = validation.manifest, manifest.point == .content, let name = manifest.interfaceName {
            readInterface(named: name, into: &bundle)
        }
        return bundle
    }

    /// The files `read` consulted to make `bundle`, relative to the bundle
    /// directory: the directory itself ("."), whose entries say which files
    /// there are; the manifest; and the interface file the manifest names,
    /// if it is a content extension's.
    package static func dependencies(of bundle: ExtensionBundle) -> [String] {
        var files = [".", manifestName]
        if let manifest = bundle.manifest, manifest.point == .content, let name = manifest.interfaceName,
           !name.contains("/") {
            files.append(interfaceFileName(for: name))
        }
        return files
    }

    /// Where a bundle's localized strings may be, in the order they are looked for.
    package static let stringsFiles = ["Localizable.strings", "Base.lproj/Localizable.strings", "en.lproj/Localizable.strings"]

    /// The strings table of the bundle at `path` (the first of `stringsFiles`
    /// that exists); empty when it has none. Read on demand, never at discovery.
    package static func strings(ofBundle path: String) throws(Diagnostic) -> [String: String] {
        for name in stringsFiles {
            let file = Path.join(path, name)
            guard FileSystem.status(of: file)?.kind == .regular else { continue }
            return try StringsTable.parse(try FileSystem.readFile(file, limit: 1 << 20), file: file)
        }
        return [:]
    }

    /// The interface file for an `NSExtensionMainStoryboard` value: `NAME.json` in the bundle.
    package static func interfaceFileName(for name: String) -> String {
        Path.pathExtension(of: name) == "json" ? name : name + ".json"
    }

    private static func readInterface(named name: String, into bundle: inout ExtensionBundle) {
        let file = Path.join(bundle.path, interfaceFileName(for: name))
        guard !name.contains("/"), FileSystem.status(of: file)?.kind == .regular else {
            bundle.diagnostics.append(.warning(
                .bundleInterfaceMissing,
                "NSExtensionMainStoryboard names \"\(name)\", but the bundle has no \(interfaceFileName(for: name)); the extension gets no view elements.",
                at: .init(file: Path.join(bundle.path, manifestName), path: "NSExtension.NSExtensionMainStoryboard")))
            return
        }
        do {
            let reading = Interface.read(try FileSystem.readFile(file, limit: 1 << 20), file: file)
            // A broken interface file leaves the view empty; the bundle still serves.
            bundle.interface = reading.interface
            bundle.diagnostics += reading.diagnostics
            if let inputs = reading.interface?.inputIdentifiers, let first = inputs.first,
               bundle.manifest?.userInteractionEnabled == false {
                bundle.diagnostics.append(.warning(
                    .bundleInteractionDisabled,
                    "The interface has \(inputs.count) button(s) or text field(s) (\"\(first)\" first), but the manifest does not set UNNotificationExtensionUserInteractionEnabled to true: their events never reach the extension.",
                    at: .init(file: file)))
            }
        } catch {
            bundle.diagnostics.append(error)
        }
    }
}

extension Diagnostic.Code {
    /// A bundle directory without Info.plist.
    package static let bundleManifestMissing = Self("bundle.manifest-missing")
    /// The interface file the manifest names is not in the bundle.
    package static let bundleInterfaceMissing = Self("bundle.interface-missing")
    /// The interface has buttons or text fields, but the manifest does not enable user interaction.
    package static let bundleInteractionDisabled = Self("bundle.interaction-disabled")
}
