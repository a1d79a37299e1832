import TidingsBase

/// The common edits of a notification extension's manifest, as `tidings
/// manifest` offers them beside its general set, insert and remove.
package enum ManifestEdit: Sendable, Equatable {
    /// Declares one more category (`UNNotificationExtensionCategory` becomes
    /// an array when it held one string).
    case addCategory(String)
    /// Stops declaring a category.
    case removeCategory(String)
    /// Sets `UNNotificationExtensionInitialContentSizeRatio`.
    case setInitialContentSizeRatio(Double)
    /// Sets `UNNotificationExtensionDefaultContentHidden`.
    case setDefaultContentHidden(Bool)

    /// `manifest` with the edit made; the attributes dictionary is made when missing.
    package func applied(to manifest: PropertyList) throws(Diagnostic) -> PropertyList {
        let attributes = PropertyListKeyPath(steps: [.key(ManifestKey.extension), .key(ManifestKey.attributes)])
        var manifest = manifest
        if PropertyListEditing.value(at: attributes, in: manifest) == nil {
            manifest = try PropertyListEditing.setting(.dictionary([]), at: attributes, in: manifest)
        }
        let path = { (key: String) in PropertyListKeyPath(steps: attributes.steps + [.key(key)]) }
        switch self {
        case .addCategory(let category):
            let categories = try Self.categories(in: manifest, at: path(ManifestKey.category))
            guard !categories.contains(category) else {
                throw .error(.editExists, "The manifest declares category \"\(category)\" already.")
            }
            let value: PropertyList = categories.isEmpty ? .string(category) : .array((categories + [category]).map(PropertyList.string))
            return try PropertyListEditing.setting(value, at: path(ManifestKey.category), in: manifest)
        case .removeCategory(let category):
            let categories = try Self.categories(in: manifest, at: path(ManifestKey.category))
            guard categories.contains(category) else {
                throw .error(.editNoSuchValue, "The manifest declares no category \"\(category)\"; it declares "
                    + (categories.isEmpty ? "none." : categories.map { "\"\($0)\"" }.joined(separator: ", ") + "."))
            }
            let left = categories.filter { $0 != category }
            if left.isEmpty { return try PropertyListEditing.removing(at: path(ManifestKey.category), in: manifest) }
            let wasArray = if case .array? = PropertyListEditing.value(at: path(ManifestKey.category), in: manifest) { true } else { false }
            let value: PropertyList = left.count == 1 && !wasArray ? .string(left[0]) : .array(left.map(PropertyList.string))
            return try PropertyListEditing.setting(value, at: path(ManifestKey.category), in: manifest)
        case .setInitialContentSizeRatio(let ratio):
            guard ratio.isFinite, ratio > 0 else {
                throw .error(.editInvalidValue, "The initial content size ratio must be a number above 0; it is \(ratio).")
            }
            return try PropertyListEditing.setting(.real(ratio), at: path(ManifestKey.initialContentSizeRatio), in: manifest)
        case .setDefaultContentHidden(let hidden):
            return try PropertyListEditing.setting(.bool(hidden), at: path(ManifestKey.defaultContentHidden), in: manifest)
        }
    }

    /// The categories declared at `path`: none, one string, or an array of strings.
    private static func categories(in manifest: PropertyList, at path: PropertyListKeyPath) throws(Diagnostic) -> [String] {
        switch PropertyListEditing.value(at: path, in: manifest) {
        case nil: return []
        case .string(let category)?: return [category]
        case .array(let elements)?:
            var categories: [String] = []
            for element in elements {
                guard case .string(let category) = element else {
                    throw .error(.editInvalidValue, "\(path) holds \(element.typeDescription), not only strings; edit it with set.")
                }
                categories.append(category)
            }
            return categories
        case let other?:
            throw .error(.editInvalidValue, "\(path) is \(other.typeDescription), not a string or an array; edit it with set.")
        }
    }
}

extension Diagnostic.Code {
    /// A value given to an edit is not one the edit takes.
    package static let editInvalidValue = Self("edit.invalid-value")
}
