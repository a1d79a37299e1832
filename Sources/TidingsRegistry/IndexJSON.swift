import TidingsBase
import TidingsManifest

extension ExtensionBundle {
    /// The bundle as JSON: where it is, what its manifest says, what is wrong.
    package var json: JSON {
        var members: [(String, JSON)] = [("name", .string(name)), ("path", .string(path)), ("usable", .bool(isUsable))]
        if let manifest {
            members += [
                ("identifier", .string(manifest.bundleIdentifier)),
                ("app", .string(manifest.appIdentifier)),
                ("point", .string(manifest.point.rawValue)),
                ("executable", .string(manifest.executable)),
                ("categories", .array(manifest.categories.map(JSON.string))),
                ("initialContentSizeRatio", manifest.initialContentSizeRatio.map(JSON.double) ?? .null),
                ("defaultContentHidden", .bool(manifest.defaultContentHidden)),
                ("overridesDefaultTitle", .bool(manifest.overridesDefaultTitle)),
                ("userInteractionEnabled", .bool(manifest.userInteractionEnabled)),
                ("interface", manifest.interfaceName.map(JSON.string) ?? .null),
            ]
        }
        members.append(("diagnostics", .array(diagnostics.map(\.json))))
        return .object(members)
    }
}

extension ExtensionIndex {
    /// The index as JSON: the search path and every bundle.
    package var json: JSON {
        .object([
            ("searchPath", .object([
                ("origin", .string(searchPath.origin.rawValue)),
                ("directories", .array(searchPath.directories.map(JSON.string))),
            ])),
            ("bundles", .array(bundles.map(\.json))),
            ("diagnostics", .array(diagnostics.map(\.json))),
        ])
    }
}
